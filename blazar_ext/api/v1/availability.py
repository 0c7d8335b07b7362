"""GET /v1/os-hosts/availability: when are ``count`` matching hosts free?

    ?start=&end=&count=&duration=&resource_properties=
     &hypervisor_properties=&traits=

Read-only; the hosts are the ones a lease with the same filters could be
given (reservable, enabled, matching), and busy time includes the
manager's cleaning time around each allocation.
"""

import datetime

from oslo_config import cfg
import pecan
from pecan import rest

from blazar_ext.api.v1.schemas import query as query_schema
from blazar_ext.api.v1 import time_window
from blazar_ext.db.api import availability as availability_api
from blazar_ext import exceptions
from blazar_ext.policies import oshosts as oshosts_policies
from blazar_ext import policy
from blazar_ext.query import availability
from blazar_ext.query import traits as trait_query

CONF = cfg.CONF

PARAMS = frozenset(query_schema.AVAILABILITY['properties'])
MAX_COUNT = query_schema.MAX_COUNT


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


def _traits(params) -> trait_query.TraitRequirement:
    values = params.getall('traits')
    if not values:
        return trait_query.TraitRequirement()
    try:
        return trait_query.parse(values)
    except trait_query.TraitRequirementError as exc:
        raise exceptions.Invalid(reason='traits: %s' % exc)


def view(found: availability.Availability, start, end, count: int,
         duration: datetime.timedelta) -> dict:
    """The response body for one computed availability."""
    stamp = time_window.stamp
    slots = [{'start': stamp(a), 'end': stamp(b)} for a, b in found.slots]
    return {'availability': {
        'start': stamp(start), 'end': stamp(end), 'count': count,
        'duration': int(duration.total_seconds() // 60),
        'matching_hosts': found.matching_hosts,
        'free_hosts': [{'start': stamp(a), 'end': stamp(b), 'hosts': n}
                       for a, b, n in found.free_hosts],
        'slots': slots,
        'earliest': ({'start': slots[0]['start'],
                      'end': stamp(found.slots[0][0] + duration)}
                     if slots else None)}}


class HostAvailabilityController(rest.RestController):
    """/v1/os-hosts/availability"""

    @pecan.expose('json')
    def get_all(self, **_query):
        context = pecan.request.context
        policy.authorize(context, oshosts_policies.AVAILABILITY)
        params = pecan.request.GET
        time_window.check_names(params, PARAMS, repeatable={'traits'})
        start, end = time_window.window(params)
        count = _positive(params, 'count', 1, MAX_COUNT)
        window_minutes = int((end - start).total_seconds() // 60)
        duration = datetime.timedelta(minutes=_positive(
            params, 'duration', window_minutes, window_minutes))
        busy = availability_api.host_busy_intervals(
            context, params.get('resource_properties') or '',
            params.get('hypervisor_properties') or '', _traits(params),
            start, end,
            datetime.timedelta(minutes=CONF.manager.cleaning_time),
            policy.authorize(context, oshosts_policies.GET_PRIVATE,
                             do_raise=False))
        found = availability.compute(busy, start, end, count, duration)
        return view(found, start, end, count, duration)
