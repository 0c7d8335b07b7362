"""Hosts: take a host out of service and back (``disable``, ``enable``);
give hosts registered before revision 0006 their resource providers."""

from blazar_ext.cmd import maintenance as maintenance_cmd
from blazar_ext import context as blazar_context
from blazar_ext.db.api import host as host_api
from blazar_ext.db.api import host_service
from blazar_ext import exceptions
from blazar_ext.plugins import physical_host
from blazar_ext.rpc import manager_client


def link_providers(args) -> int:
    """Create (or adopt) the provider of every host without one."""
    linked = host_api.link_missing_providers(
        blazar_context.get_admin_context())
    print('Linked %d host(s) to their resource providers%s'
          % (len(linked), (': ' + ', '.join(linked)) if linked else '.'))
    return 0


def _set_reservable(args, reservable: bool) -> int:
    """Through the manager, the only writer: it heals what the host held."""
    context = blazar_context.get_admin_context()
    values = {'reservable': reservable}
    if not reservable and args.reason:
        values['reservable_reason'] = args.reason
    try:
        host_id = host_service.host_id_of(context, args.host)
        host = manager_client.get_client().resource_call(
            context, physical_host.RESOURCE_TYPE, 'update',
            {'id': str(host_id), 'values': values})
    except exceptions.BlazarExtException as exc:
        print(str(exc))
        return 1
    print('Host %s (%s) is %s%s' % (
        host['hypervisor_hostname'], host['id'],
        'in service' if host['reservable'] else 'out of service',
        ': %s' % host['reservable_reason']
        if host.get('reservable_reason') else ''))
    return 0


def disable(args) -> int:
    return _set_reservable(args, False)


def enable(args) -> int:
    return _set_reservable(args, True)


def add_parsers(subparsers) -> None:
    parser = subparsers.add_parser(
        'disable',
        help='Take a host out of service: it is no longer reservable and '
             'the reservations it holds are moved to other hosts (or '
             'flagged missing resources where none fits).')
    parser.add_argument('host', help='Host name or id.')
    parser.add_argument('--reason', help='Why; shown on the host.')
    parser.set_defaults(func=disable)
    parser = subparsers.add_parser(
        'enable', help='Bring a host back into service; degraded '
                       'reservations are retried.')
    parser.add_argument('host', help='Host name or id.')
    parser.add_argument('--reason',
                        help='Why; accepted for symmetry, not stored.')
    parser.set_defaults(func=enable)
    parser = subparsers.add_parser(
        'link-providers',
        help='Create the resource provider (VCPU, MEMORY_MB, DISK_GB '
             'inventory) of every host that has none, or adopt the '
             'provider of the same name.')
    parser.set_defaults(func=link_providers)
    maintenance_cmd.add_parser(subparsers)
