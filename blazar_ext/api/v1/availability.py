"""GET /v1/os-hosts/availability: when are ``count`` matching hosts free?

    ?start=&end=&count=&duration=&resource_properties=
     &hypervisor_properties=&traits=

Read-only; the hosts are the ones a lease with the same filters could be
given (reservable, enabled, matching), and busy time includes the
manager's cleaning time around each allocation.
"""

import datetime

from oslo_config import cfg
from oslo_utils import timeutils
import pecan
from pecan import rest

from blazar_ext.db.api import availability as availability_api
from blazar_ext import exceptions
from blazar_ext import policy
from blazar_ext.query import availability
from blazar_ext.query import traits as trait_query

CONF = cfg.CONF

DATE_FORMATS = ('%Y-%m-%d %H:%M', '%Y-%m-%d %H:%M:%S')
PARAMS = frozenset(('start', 'end', 'count', 'duration',
                    'resource_properties', 'hypervisor_properties',
                    'traits'))
SINGLE_PARAMS = PARAMS - {'traits'}
MAX_COUNT = 2 ** 31 - 1
# Longer windows would not be a calendar question; the cap keeps the
# answer (and the sweep) bounded.
MAX_WINDOW = datetime.timedelta(days=732)


def _date(value: str, field: str) -> datetime.datetime:
    if field == 'start' and value == 'now':
        # Dates are given to the minute, as lease dates are.
        return timeutils.utcnow().replace(second=0, microsecond=0)
    for fmt in DATE_FORMATS:
        try:
            return datetime.datetime.strptime(value, fmt)
        except ValueError:
            continue
    raise exceptions.Invalid(
        reason="%s %r is not a date in the format YYYY-MM-DD HH:MM%s"
               % (field, value, " or 'now'" if field == 'start' else ''))


def _positive(params, field: str, default: int | None,
              maximum: int) -> int | None:
    value = params.get(field)
    if value is None:
        return default
    if not value.isdecimal() or not 1 <= int(value) <= maximum:
        raise exceptions.Invalid(
            reason='%s must be an integer from 1 to %d, got %r'
                   % (field, maximum, value))
    return int(value)


def _check_names(params) -> None:
    unknown = sorted(set(params.keys()) - PARAMS)
    if unknown:
        raise exceptions.Invalid(
            reason='unknown query parameter(s): %s; expected %s'
                   % (', '.join(unknown), ', '.join(sorted(PARAMS))))
    for name in SINGLE_PARAMS:
        if len(params.getall(name)) > 1:
            raise exceptions.Invalid(
                reason='query parameter %s may be given once' % name)


def _window(params) -> tuple:
    for field in ('start', 'end'):
        if not params.get(field):
            raise exceptions.Invalid(
                reason='query parameter %s is required (YYYY-MM-DD HH:MM)'
                       % field)
    start = _date(params['start'], 'start')
    end = _date(params['end'], 'end')
    if end - start < datetime.timedelta(minutes=1):
        raise exceptions.Invalid(
            reason='end must be at least a minute after start')
    if end - start > MAX_WINDOW:
        raise exceptions.Invalid(
            reason='the window may be at most %d days long'
                   % MAX_WINDOW.days)
    return start, end


def _traits(params) -> trait_query.TraitRequirement:
    values = params.getall('traits')
    if not values:
        return trait_query.TraitRequirement()
    try:
        return trait_query.parse(values)
    except trait_query.TraitRequirementError as exc:
        raise exceptions.Invalid(reason='traits: %s' % exc)


def _stamp(value: datetime.datetime) -> str:
    return value.strftime(DATE_FORMATS[0])


def view(found: availability.Availability, start, end, count: int,
         duration: datetime.timedelta) -> dict:
    """The response body for one computed availability."""
    slots = [{'start': _stamp(a), 'end': _stamp(b)} for a, b in found.slots]
    return {'availability': {
        'start': _stamp(start), 'end': _stamp(end), 'count': count,
        'duration': int(duration.total_seconds() // 60),
        'matching_hosts': found.matching_hosts,
        'free_hosts': [{'start': _stamp(a), 'end': _stamp(b), 'hosts': n}
                       for a, b, n in found.free_hosts],
        'slots': slots,
        'earliest': ({'start': slots[0]['start'],
                      'end': _stamp(found.slots[0][0] + duration)}
                     if slots else None)}}


class HostAvailabilityController(rest.RestController):
    """/v1/os-hosts/availability"""

    @pecan.expose('json')
    def get_all(self, **_query):
        context = pecan.request.context
        policy.authorize(context, 'blazar:oshosts:availability')
        params = pecan.request.GET
        _check_names(params)
        start, end = _window(params)
        count = _positive(params, 'count', 1, MAX_COUNT)
        window_minutes = int((end - start).total_seconds() // 60)
        duration = datetime.timedelta(minutes=_positive(
            params, 'duration', window_minutes, window_minutes))
        busy = availability_api.host_busy_intervals(
            context, params.get('resource_properties') or '',
            params.get('hypervisor_properties') or '', _traits(params),
            start, end,
            datetime.timedelta(minutes=CONF.manager.cleaning_time),
            policy.authorize(context, 'blazar:oshosts:get_private',
                             do_raise=False))
        found = availability.compute(busy, start, end, count, duration)
        return view(found, start, end, count, duration)
