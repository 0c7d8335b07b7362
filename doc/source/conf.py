"""Sphinx configuration for the blazar_ext documentation."""

import os
import sys

# The package itself, for the oslo.config and oslo.policy extensions.
sys.path.insert(0, os.path.abspath('../..'))
# Local extensions: openapi_reference renders the OpenAPI documents.
sys.path.insert(0, os.path.abspath('_exts'))

extensions = [
    'oslo_config.sphinxext',
    'oslo_config.sphinxconfiggen',
    'oslo_policy.sphinxext',
    'oslo_policy.sphinxpolicygen',
    'openapi_reference',
]

# oslo_config.sphinxconfiggen: _static/blazar-ext.conf.sample
config_generator_config_file = (
    '../../etc/blazar-ext/blazar-ext-config-generator.conf')
sample_config_basename = '_static/blazar-ext'

# oslo_policy.sphinxpolicygen: _static/blazar-ext.policy.yaml.sample
policy_generator_config_file = (
    '../../etc/blazar-ext/blazar-ext-policy-generator.conf')
sample_policy_basename = '_static/blazar-ext'

project = 'blazar_ext'
copyright = '2026, blazar_ext developers'
master_doc = 'index'
source_suffix = '.rst'
exclude_patterns = ['_build']
pygments_style = 'sphinx'

html_theme = 'alabaster'
html_static_path = ['_static']
html_title = 'blazar_ext documentation'
