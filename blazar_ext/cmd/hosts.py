"""Hosts: give hosts registered before revision 0006 their resource
providers, so that traits apply to them."""

from blazar_ext import context as blazar_context
from blazar_ext.db.api import host as host_api


def link_providers(args) -> int:
    """Create (or adopt) the provider of every host without one."""
    linked = host_api.link_missing_providers(
        blazar_context.get_admin_context())
    print('Linked %d host(s) to their resource providers%s'
          % (len(linked), (': ' + ', '.join(linked)) if linked else '.'))
    return 0


def add_parsers(subparsers) -> None:
    parser = subparsers.add_parser(
        'link-providers',
        help='Create the resource provider (VCPU, MEMORY_MB, DISK_GB '
             'inventory) of every host that has none, or adopt the '
             'provider of the same name.')
    parser.set_defaults(func=link_providers)
