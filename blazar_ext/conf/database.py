"""[database] options, owned by oslo.db; only the default differs."""

from oslo_config import cfg
from oslo_db import options as db_options

DEFAULT_CONNECTION = 'sqlite:///$state_path/blazar_ext.sqlite'


def register_opts(conf: cfg.ConfigOpts) -> None:
    db_options.set_defaults(conf, connection=DEFAULT_CONNECTION)


def list_opts() -> dict:
    return {'database': db_options.database_opts}
