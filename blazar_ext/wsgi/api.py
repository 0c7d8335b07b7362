"""WSGI entry point for uwsgi, gunicorn or mod_wsgi.

    uwsgi --http :1234 --module blazar_ext.wsgi.api:application

Reads the configuration from $BLAZAR_EXT_CONFIG_FILE (default
/etc/blazar-ext/blazar-ext.conf when it exists).
"""

import os

from blazar_ext.api import app as api_app
from blazar_ext import service

_DEFAULT_CONFIG = '/etc/blazar-ext/blazar-ext.conf'


def init_application():
    """Build the WSGI application from the configuration files."""
    path = os.environ.get('BLAZAR_EXT_CONFIG_FILE', _DEFAULT_CONFIG)
    files = [path] if os.path.exists(path) else []
    service.prepare('blazar-ext-api', argv=[], default_config_files=files)
    return api_app.build()


application = init_application()
