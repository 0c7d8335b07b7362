"""Release notes build configuration (reno)."""

extensions = ['reno.sphinxext']
master_doc = 'index'
project = 'blazar_ext Release Notes'
copyright = '2026, blazar_ext developers'
html_theme = 'alabaster'
