"""``blazar-ext-manage host maintenance NODE``: schedule a maintenance
window (or see what it would move, with --dry-run), through the manager."""

from blazar_ext import context as blazar_context
from blazar_ext.db.api import host_service
from blazar_ext import exceptions
from blazar_ext.rpc import manager_client


def _line(entry: dict) -> str:
    moved_to = ' -> %s' % entry['to'] if entry.get('to') else ''
    return '  lease %s, reservation %s%s' % (
        entry['lease_id'], entry['reservation_id'], moved_to)


def maintenance(args) -> int:
    context = blazar_context.get_admin_context()
    values = {'start_date': args.start, 'end_date': args.end,
              'reason': args.reason, 'dry_run': args.dry_run}
    try:
        host_id = host_service.host_id_of(context, args.host)
        result = manager_client.get_client().schedule_maintenance(
            context, str(host_id), values)
    except exceptions.BlazarExtException as exc:
        print(str(exc))
        return 1
    window = result['maintenance']
    print('%s maintenance of host %s from %s to %s%s' % (
        'Would schedule' if result['dry_run'] else 'Scheduled',
        args.host, window['start_date'], window['end_date'],
        '' if result['dry_run'] else ' (window %s)' % window['id']))
    print('Moved: %d' % len(result['moved']))
    for entry in result['moved']:
        print(_line(entry))
    print('Unmovable: %d' % len(result['unmovable']))
    for entry in result['unmovable']:
        print(_line(entry))
    return 0


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        'maintenance',
        help='Schedule a maintenance window on a host: the leases in the '
             'window move to other matching hosts ahead of time; the host '
             'is out of service during the window.')
    parser.add_argument('host', help='Host name or id.')
    parser.add_argument('--start', required=True,
                        help="Start, 'YYYY-MM-DD HH:MM' (UTC) or 'now'.")
    parser.add_argument('--end', required=True,
                        help="End, 'YYYY-MM-DD HH:MM' (UTC).")
    parser.add_argument('--reason', help='Why; shown on the host.')
    parser.add_argument('--dry-run', action='store_true',
                        help='Show what would move and change nothing.')
    parser.set_defaults(func=maintenance)
