"""OpenStackClient commands for the slot search, flexible leases and
extension advice, in python-blazarclient's ``openstack.reservation.v1``
command group (setup.cfg):

    openstack reservation slot find --reservation ... --duration 48h \\
        --within 14d
    openstack reservation slot book NAME --reservation ... --duration 2h \\
        --not-after '2030-01-31 00:00'
    openstack reservation lease extension show LEASE

They talk through the reservation client OpenStackClient builds with
python-blazarclient's plugin (``client_manager.reservation``), and take
``--reservation`` as ``openstack reservation lease create`` does. This
module is loaded by OpenStackClient only.
"""

import datetime
import logging
import re

from blazarclient.v1.shell_commands import leases as blazar_leases
from osc_lib.command import command
from osc_lib import exceptions

DATE_FORMAT = '%Y-%m-%d %H:%M'
UNITS = {'s': 1, 'm': 60, 'h': 3600, 'd': 86400, 'w': 7 * 86400}
OPTION_COLUMNS = ('start_date', 'end_date', 'duration', 'latest_end_date')


def seconds(text: str) -> int:
    """'3600', '90m', '48h', '14d' or '2w' as seconds."""
    match = re.fullmatch(r'\s*(\d+)\s*([smhdw]?)\s*', text or '')
    if not match:
        raise exceptions.CommandError(
            'invalid duration %r: a number of seconds or a number with '
            's, m, h, d or w' % text)
    return int(match.group(1)) * UNITS[match.group(2) or 's']


def lease_date(text: str) -> str:
    """``text`` as a lease date (YYYY-MM-DD HH:MM, UTC), checked."""
    try:
        return datetime.datetime.strptime(text, DATE_FORMAT).strftime(
            DATE_FORMAT)
    except ValueError:
        raise exceptions.CommandError(
            'invalid date %r: YYYY-MM-DD HH:MM (UTC)' % text)


class ReservationParser:
    """python-blazarclient's own --reservation parsing."""

    log = logging.getLogger(__name__)
    _parse_params = blazar_leases.CreateLeaseBase._parse_params

    def parse(self, text: str) -> dict:
        keys = blazar_leases.CREATE_RESERVATION_KEYS
        for resource_type in ('physical:host', 'virtual:instance',
                              'virtual:floatingip', 'flavor:instance'):
            if resource_type in text:
                defaults = keys[resource_type]
                break
        else:
            defaults = keys['others']
        try:
            return self._parse_params(text, defaults,
                                      'invalid --reservation %r' % text)
        except Exception as exc:
            raise exceptions.CommandError(str(exc))


def _add_search_arguments(parser, within: bool = True) -> None:
    parser.add_argument(
        '--reservation', metavar='<key=value>', action='append',
        dest='reservations', default=[], required=True,
        help='A reservation, as for "openstack reservation lease create" '
             '(resource_type=physical:host,min=2,max=2,...); repeat for '
             'several.')
    parser.add_argument(
        '--duration', help='Length of the lease: seconds, or a number with '
                           's, m, h, d or w (48h).')
    parser.add_argument('--min-duration',
                        help='Shortest acceptable length (with '
                             '--max-duration, instead of --duration).')
    parser.add_argument('--max-duration',
                        help='Longest length wanted.')
    parser.add_argument('--not-before', metavar='<YYYY-MM-DD HH:MM>',
                        help='Earliest start (UTC; default: now).')
    parser.add_argument('--not-after', metavar='<YYYY-MM-DD HH:MM>',
                        help='Latest end (UTC).')
    if within:
        parser.add_argument('--within',
                            help='Latest end as a time from now (14d), '
                                 'instead of --not-after.')


def _search_body(parsed_args) -> dict:
    body = {'reservations': [ReservationParser().parse(text)
                             for text in parsed_args.reservations]}
    for name in ('duration', 'min_duration', 'max_duration'):
        value = getattr(parsed_args, name)
        if value is not None:
            body[name] = seconds(value)
    if parsed_args.not_before:
        body['not_before'] = lease_date(parsed_args.not_before)
    within = getattr(parsed_args, 'within', None)
    if parsed_args.not_after and within:
        raise exceptions.CommandError(
            'give --not-after or --within, not both')
    if within:
        body['not_after'] = (datetime.datetime.utcnow() + datetime.timedelta(
            seconds=seconds(within))).strftime(DATE_FORMAT)
    elif parsed_args.not_after:
        body['not_after'] = lease_date(parsed_args.not_after)
    else:
        raise exceptions.CommandError('--not-after or --within is required')
    return body


def _request(app, method: str, path: str, body=None) -> dict:
    manager = app.client_manager.reservation.lease.request_manager
    if method == 'POST':
        _resp, answer = manager.post(path, body=body)
    else:
        _resp, answer = manager.get(path)
    return answer


class FindSlot(command.Lister):
    """Find when a lease of the given reservations fits (creates nothing)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        _add_search_arguments(parser)
        parser.add_argument('--limit', type=int, default=5,
                            help='Most options to show (default 5).')
        parser.add_argument('--prefer', choices=('earliest', 'longest'),
                            default='earliest',
                            help='Rank options by start (earliest) or by '
                                 'how long they could last (longest).')
        return parser

    def take_action(self, parsed_args):
        body = _search_body(parsed_args)
        body.update(limit=parsed_args.limit, prefer=parsed_args.prefer)
        options = _request(self.app, 'POST', '/leases/plan', body)['options']
        columns = OPTION_COLUMNS if parsed_args.prefer == 'longest' else (
            OPTION_COLUMNS[:3])
        return columns, [tuple(o.get(c) for c in columns) for o in options]


class BookSlot(command.ShowOne):
    """Create a lease at the first slot where it fits (a flexible lease)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('name', metavar='<name>',
                            help='Name of the lease.')
        _add_search_arguments(parser)
        return parser

    def take_action(self, parsed_args):
        body = _search_body(parsed_args)
        body['name'] = parsed_args.name
        lease = _request(self.app, 'POST', '/leases', body)['lease']
        return zip(*sorted(lease.items()))


class ShowLeaseExtension(command.ShowOne):
    """Show how far a lease could be extended, in place or by moving."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('lease', metavar='<lease>',
                            help='ID or name of the lease.')
        return parser

    def _lease_id(self, name_or_id: str) -> str:
        leases = _request(self.app, 'GET', '/leases')['leases']
        by_name = [lease['id'] for lease in leases
                   if name_or_id in (lease['id'], lease['name'])]
        if len(by_name) == 1:
            return by_name[0]
        if by_name:
            raise exceptions.CommandError(
                'more than one lease is named %r; give its ID' % name_or_id)
        return name_or_id

    def take_action(self, parsed_args):
        lease_id = self._lease_id(parsed_args.lease)
        advice = _request(self.app, 'GET',
                          '/leases/%s/extension' % lease_id)['extension']
        return zip(*sorted(advice.items()))
