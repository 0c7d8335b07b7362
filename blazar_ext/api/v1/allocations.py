"""Host allocations: GET /v1/os-hosts/allocations and
GET /v1/os-hosts/{host_id}/allocation, as Blazar."""

import pecan
from pecan import rest

from blazar_ext.api.v1 import views
from blazar_ext.db.api import allocation as allocation_api
from blazar_ext.db.api import host as host_api
from blazar_ext.db.api import host_service
from blazar_ext import policy


class HostAllocationsController(rest.RestController):
    """/v1/os-hosts/allocations?lease_id=&reservation_id="""

    @pecan.expose('json')
    def get_all(self, **_query):
        context = pecan.request.context
        policy.authorize(context, 'blazar:oshosts:get_allocations')
        params = pecan.request.GET
        found = allocation_api.host_allocation_list(
            context, lease_id=params.get('lease_id'),
            reservation_id=params.get('reservation_id'))
        states = host_service.reservable_of(context, found)
        return {'allocations': [views.host_allocation(h, r, states.get(h))
                                for h, r in sorted(found.items())]}


class HostAllocationController(rest.RestController):
    """/v1/os-hosts/{host_id}/allocation"""

    @pecan.expose('json')
    def get_all(self, host_id, **_query):
        context = pecan.request.context
        policy.authorize(context, 'blazar:oshosts:get_allocations')
        params = pecan.request.GET
        host = host_api.host_get(context, host_id)
        found = allocation_api.host_allocation_list(
            context, lease_id=params.get('lease_id'),
            reservation_id=params.get('reservation_id'), host_id=host['id'])
        return {'allocation': views.host_allocation(
            host['id'], found.get(host['id'], []), host['reservable'])}
