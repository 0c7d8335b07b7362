"""[DEFAULT] options."""

import os

from oslo_config import cfg

state_path = cfg.StrOpt(
    'state_path',
    default=os.path.join(os.path.expanduser('~'), '.local', 'state',
                         'blazar-ext'),
    sample_default='$HOME/.local/state/blazar-ext',
    help='Directory where blazar_ext keeps its state: the SQLite database '
         'of the embedded default and anything else written at run time.')

host = cfg.StrOpt(
    'host',
    default=os.uname().nodename,
    sample_default='<hostname>',
    help='Name of this node, used as the RPC server name of the manager.')

capability_default_visibility = cfg.StrOpt(
    'capability_default_visibility',
    default='private',
    choices=[('private', 'users cannot enumerate a new capability until an '
                         'operator makes it public'),
             ('public', 'new capabilities are listed to every user allowed '
                        'to list resource properties')],
    help='Visibility of an extra capability the first time a resource '
         'has it (a host registered or updated with a new key). Existing '
         'capabilities keep their flag; change it with PATCH '
         '/v1/{resource_type}/properties/{name}.')

startup_timeout = cfg.IntOpt(
    'startup_timeout', default=30, min=0,
    help='Seconds blazar-ext-api, blazar-ext-placement-api, '
         'blazar-ext-manager and the all-in-one wait at start for the '
         'database and the message broker to answer; then they exit with '
         'an error instead of starting.')

ALL_OPTS = [state_path, host, capability_default_visibility,
            startup_timeout]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(ALL_OPTS)


def list_opts() -> dict:
    return {'DEFAULT': ALL_OPTS}
