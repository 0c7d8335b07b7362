"""Allocations as Blazar lists them: GET /v1/os-hosts/allocations,
GET /v1/os-hosts/{host_id}/allocation, and the same two routes under
/v1/floatingips (which upstream Blazar does not have).

Every resource is listed, with ``reservations: []`` when idle. Without a
lease_id or reservation_id filter, only leases that have not ended count,
as upstream."""

from oslo_utils import timeutils
import pecan
from pecan import rest

from blazar_ext.api.v1 import views
from blazar_ext.db.api import allocation as allocation_api
from blazar_ext.db.api import floatingip as fip_api
from blazar_ext.db.api import host as host_api
from blazar_ext.db.api import host_service
from blazar_ext.policies import floatingips as floatingip_policies
from blazar_ext.policies import leases as lease_policies
from blazar_ext import policy


def _filters() -> dict:
    """lease_id, reservation_id and, without either, leases not ended."""
    params = pecan.request.GET
    filters = {'lease_id': params.get('lease_id'),
               'reservation_id': params.get('reservation_id')}
    filters['ending_after'] = (None if any(filters.values())
                               else timeutils.utcnow())
    return filters


class HostAllocationsController(rest.RestController):
    """/v1/os-hosts/allocations?lease_id=&reservation_id="""

    @pecan.expose('json')
    def get_all(self, **_query):
        context = pecan.request.context
        policy.authorize(context, lease_policies.HOST_ALLOCATIONS)
        found = allocation_api.host_allocation_windows(context, **_filters())
        states = host_service.reservable_of(context, found)
        return {'allocations': [views.host_allocation(h, r, states.get(h))
                                for h, r in found.items()]}


class HostAllocationController(rest.RestController):
    """/v1/os-hosts/{host_id}/allocation"""

    @pecan.expose('json')
    def get_all(self, host_id, **_query):
        context = pecan.request.context
        policy.authorize(context, lease_policies.HOST_ALLOCATIONS)
        host = host_api.host_get(context, host_id)
        found = allocation_api.host_allocation_windows(
            context, host_id=host['id'], **_filters())
        return {'allocation': views.host_allocation(
            host['id'], found[host['id']], host['reservable'])}


class FloatingIPAllocationsController(rest.RestController):
    """/v1/floatingips/allocations?lease_id=&reservation_id="""

    @pecan.expose('json')
    def get_all(self, **_query):
        context = pecan.request.context
        policy.authorize(context, floatingip_policies.GET_ALLOCATIONS)
        found = allocation_api.floatingip_allocation_windows(
            context, **_filters())
        return {'allocations': [views.floatingip_allocation(f, r)
                                for f, r in found.items()]}


class FloatingIPAllocationController(rest.RestController):
    """/v1/floatingips/{floatingip_id}/allocation"""

    @pecan.expose('json')
    def get_all(self, floatingip_id, **_query):
        context = pecan.request.context
        policy.authorize(context, floatingip_policies.GET_ALLOCATIONS)
        fip = fip_api.floatingip_get(context, floatingip_id)
        found = allocation_api.floatingip_allocation_windows(
            context, fip_id=fip['id'], **_filters())
        return {'allocation': views.floatingip_allocation(
            fip['id'], found[fip['id']])}
