"""Sphinx configuration for the blazar_ext API reference (os-api-ref).

Build: tox -e api-ref, or
sphinx-build -W -b html -d api-ref/build/doctrees api-ref/source \
    api-ref/build/html
"""

extensions = [
    'os_api_ref',
    'openstackdocstheme',
]

# openstackdocstheme
openstackdocs_repo_name = 'openstack/blazar_ext'
openstackdocs_bug_project = 'blazar_ext'
openstackdocs_bug_tag = 'api-ref'
openstackdocs_auto_name = False
# The "last updated" stamp would ask git for each page; not needed here.
openstackdocs_last_updated = False

project = 'blazar_ext API Reference'
copyright = '2026, blazar_ext developers'
master_doc = 'index'
source_suffix = '.rst'
exclude_patterns = ['build']
pygments_style = 'native'

html_theme = 'openstackdocs'
html_theme_options = {
    'sidebar_mode': 'toc',
}
html_title = 'blazar_ext API Reference'

# The microversion selector (.. rest_expand_all::) on the placement page.
os_api_ref_min_microversion = '1.0'
os_api_ref_max_microversion = '1.39'
