"""WSGI entry point of the placement-compatible API alone, at the root.

    uwsgi --http :8778 --module blazar_ext.wsgi.placement:application

As upstream Placement's placement.wsgi.api:application: point the
Keystone catalog's placement endpoint at the server with no path. Reads
the configuration from $BLAZAR_EXT_CONFIG_FILE (default
/etc/blazar-ext/blazar-ext.conf when it exists).
"""

import os

from blazar_ext.api import app as api_app
from blazar_ext import service

_DEFAULT_CONFIG = '/etc/blazar-ext/blazar-ext.conf'


def init_application():
    """Build the placement WSGI application from the configuration files."""
    path = os.environ.get('BLAZAR_EXT_CONFIG_FILE', _DEFAULT_CONFIG)
    files = [path] if os.path.exists(path) else []
    service.prepare('blazar-ext-placement-api', argv=[],
                    default_config_files=files)
    return api_app.build_placement()


application = init_application()
