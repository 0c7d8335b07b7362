"""blazar-ext-db-manage: database schema migrations."""

import sys

from oslo_config import cfg

from blazar_ext.db import migration
from blazar_ext import service

CONF = service.CONF


def _upgrade(args) -> int:
    migration.upgrade(args.revision)
    print('Database at revision %s' % migration.version())
    return 0


def _version(args) -> int:
    print(migration.version() or 'empty (no revision)')
    return 0


def _revision(args) -> int:
    migration.revision(args.message, autogenerate=args.autogenerate)
    return 0


def _add_commands(subparsers) -> None:
    upgrade = subparsers.add_parser('upgrade', help='Upgrade the schema.')
    upgrade.add_argument('revision', nargs='?', default='head')
    upgrade.set_defaults(func=_upgrade)
    version = subparsers.add_parser('version',
                                    help='Print the current revision.')
    version.set_defaults(func=_version)
    revision = subparsers.add_parser('revision',
                                     help='Create a new revision file.')
    revision.add_argument('-m', '--message', required=True)
    revision.add_argument('--autogenerate', action='store_true')
    revision.set_defaults(func=_revision)


def main(argv: list[str] | None = None) -> int:
    CONF.register_cli_opt(cfg.SubCommandOpt(
        'command', title='Commands', handler=_add_commands))
    service.prepare('blazar-ext-db-manage', argv)
    return CONF.command.func(CONF.command)


if __name__ == '__main__':
    sys.exit(main())
