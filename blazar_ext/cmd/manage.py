"""blazar-ext-manage: operator tasks.

Each category of commands is a module with ``add_parsers(subparsers)`` (or,
for a category that is one command, ``configure_parser(parser)``); its
parsers set ``func`` to a callable taking the parsed arguments and returning
an exit code. Add a category by listing its module in CATEGORIES.
"""

import importlib
import sys

from oslo_config import cfg
from oslo_log import log as logging

from blazar_ext import conf
from blazar_ext.db import drivers

CONF = conf.CONF

# category name -> module providing add_parsers(subparsers)
CATEGORIES = {
    'hosts': 'blazar_ext.cmd.hosts',
    'import-blazar': 'blazar_ext.cmd.import_blazar',
    'metadefs': 'blazar_ext.cmd.metadefs',
    'traits': 'blazar_ext.cmd.traits',
}
# Other names a category answers to (``host disable NODE`` reads well).
ALIASES = {'hosts': ['host']}


def _add_categories(subparsers):
    for name, module_path in sorted(CATEGORIES.items()):
        module = importlib.import_module(module_path)
        parser = subparsers.add_parser(name, help=module.__doc__,
                                       aliases=ALIASES.get(name, []))
        if hasattr(module, 'configure_parser'):
            # A single command (``import-blazar --source-connection``).
            module.configure_parser(parser)
        else:
            module.add_parsers(parser.add_subparsers(dest='action',
                                                     required=True))


def main(argv: list[str] | None = None) -> int:
    CONF.register_cli_opt(cfg.SubCommandOpt(
        'category', title='Categories', handler=_add_categories))
    logging.register_options(CONF)
    CONF(argv if argv is not None else sys.argv[1:], project='blazar-ext')
    logging.setup(CONF, 'blazar-ext-manage')
    drivers.require_or_exit(CONF.database.connection, 'blazar-ext-manage')
    return CONF.category.func(CONF.category) or 0


if __name__ == '__main__':
    sys.exit(main())
