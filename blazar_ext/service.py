"""Start-up of a service process: configuration and logging.

Shared by the console scripts and the WSGI entry point, so it lives below
both (cmd/ and wsgi/ import it; it imports neither).
"""

import sys

from oslo_log import log as logging

from blazar_ext import conf
from blazar_ext.db import drivers

CONF = conf.CONF


def prepare(name: str, argv: list[str] | None = None,
            default_config_files: list[str] | None = None) -> None:
    """Parse the command line and config files, then set up logging.

    A database driver that is not installed ends the process with one
    line naming the extra that installs it.
    """
    logging.register_options(CONF)
    CONF(argv if argv is not None else sys.argv[1:], project='blazar-ext',
         default_config_files=default_config_files)
    logging.setup(CONF, name)
    drivers.require_or_exit(CONF.database.connection, name)
