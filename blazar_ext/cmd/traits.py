"""Standard traits and resource classes: sync them from os-traits and
os-resource-classes into the database."""

from blazar_ext import context as blazar_context
from blazar_ext.db.api.placement import resource_class as rc_api
from blazar_ext.db.api.placement import trait as trait_api


def sync(args) -> int:
    """Insert the standard traits and classes missing; print how many."""
    ctx = blazar_context.get_admin_context()
    traits = trait_api.sync_standard_traits(ctx)
    classes = rc_api.sync_standard_classes(ctx)
    print('Added %d standard traits and %d standard resource classes.'
          % (traits, classes))
    return 0


def add_parsers(subparsers) -> None:
    parser = subparsers.add_parser(
        'sync', help='Add the standard traits of the installed os-traits '
                     '(and standard resource classes) to the database.')
    parser.set_defaults(func=sync)
