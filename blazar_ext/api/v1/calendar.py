"""GET /v1/os-hosts/calendar and GET /v1/floatingips/calendar: what the
reservation calendar draws for a window (?start=&end=[&limit=&marker=]).

Every resource, and every allocation overlapping the window. A lease's
name, status and owner are shown only to whoever may see that lease
(its project, or ``blazar:leases:get_all_projects``); anyone else sees
the time taken, and no lease id. ``limit`` and ``marker`` page the
resources by name, so a page can draw its first screenful first.
"""

import pecan
from pecan import rest

from blazar_ext.api.v1.schemas import query as query_schema
from blazar_ext.api.v1 import time_window
from blazar_ext.db.api import calendar as calendar_api
from blazar_ext import exceptions
from blazar_ext.policies import floatingips as floatingip_policies
from blazar_ext.policies import leases as lease_policies
from blazar_ext.policies import oshosts as oshosts_policies
from blazar_ext import policy

PARAMS = frozenset(query_schema.CALENDAR['properties'])
# A page is a screenful or two of rows; the whole calendar is unpaged.
MAX_LIMIT = query_schema.MAX_CALENDAR_LIMIT


ALLOCATION_FIELDS = ('resource_id', 'start', 'end', 'lease_id')


def view(found: dict, start, end, see_all: bool,
         project_id: str | None, see_reasons: bool = False) -> dict:
    """The calendar body; leases of other projects left anonymous, and
    why hosts are out of service only for those who may see hosts.

    Leases and allocations are rows (lists) under their field names
    (``lease_fields``, ``allocation_fields``): a busy window has tens of
    thousands, and rows cost a third less to build, send and read than
    objects.
    """
    leases, allocations = {}, []
    for resource_id, a_start, a_end, *lease in found['allocations']:
        lease_id = lease[0]
        visible = see_all or (project_id is not None
                              and lease[4] == project_id)
        if visible and lease_id not in leases:
            leases[lease_id] = lease
        allocations.append([str(resource_id), a_start, a_end,
                            lease_id if visible else None])
    resources = [dict(r, id=str(r['id'])) for r in found['resources']]
    if not see_reasons:
        # Why a host is out of service is the operator's note.
        for resource in resources:
            resource.pop('reservable_reason', None)
    return {'calendar': {'start': time_window.stamp(start),
                         'end': time_window.stamp(end),
                         'resource_count': found['resource_count'],
                         'resources': resources,
                         'lease_fields': list(calendar_api.LEASE_COLUMNS),
                         'leases': list(leases.values()),
                         'allocation_fields': list(ALLOCATION_FIELDS),
                         'allocations': allocations}}


def _answer(rule: str, read) -> dict:
    context = pecan.request.context
    policy.authorize(context, rule)
    params = pecan.request.GET
    time_window.check_names(params, PARAMS)
    start, end = time_window.window(params)
    limit = params.get('limit')
    if limit is not None:
        if not limit.isdecimal() or not 1 <= int(limit) <= MAX_LIMIT:
            raise exceptions.Invalid(
                reason='limit must be an integer from 1 to %d, got %r'
                       % (MAX_LIMIT, limit))
        limit = int(limit)
    see_all = policy.authorize(context, lease_policies.GET_ALL_PROJECTS,
                               do_raise=False)
    see_reasons = policy.authorize(context, oshosts_policies.GET,
                                   do_raise=False)
    found = read(context, start, end, limit=limit,
                 marker=params.get('marker'))
    return view(found, start, end, see_all, context.project_id,
                see_reasons)


class HostCalendarController(rest.RestController):
    """/v1/os-hosts/calendar"""

    @pecan.expose('json')
    def get_all(self, **_query):
        return _answer(oshosts_policies.CALENDAR,
                       calendar_api.host_calendar)


class FloatingIPCalendarController(rest.RestController):
    """/v1/floatingips/calendar"""

    @pecan.expose('json')
    def get_all(self, **_query):
        return _answer(floatingip_policies.CALENDAR,
                       calendar_api.floatingip_calendar)
