"""/v1/floatingips: register reservable floating IPs (no Neutron)."""

import pecan
from pecan import rest

from blazar_ext.api.v1 import allocations as v1_allocations
from blazar_ext.api.v1 import calendar as v1_calendar
from blazar_ext.api.v1 import leases as v1_leases
from blazar_ext.api.v1 import maintenance as v1_maintenance
from blazar_ext.api.v1.schemas import floatingip as schema
from blazar_ext.api.v1 import views
from blazar_ext.api import validation
from blazar_ext.db.api import floatingip as fip_api
from blazar_ext.plugins import virtual_floatingip
from blazar_ext.policies import floatingips as floatingip_policies
from blazar_ext import policy
from blazar_ext.rpc import manager_client


class FloatingIPsController(rest.RestController):

    # /v1/floatingips/allocations and /v1/floatingips/{id}/allocation.
    allocations = v1_allocations.FloatingIPAllocationsController()
    allocation = v1_allocations.FloatingIPAllocationController()

    # /v1/floatingips/calendar: what the reservation calendar draws.
    calendar = v1_calendar.FloatingIPCalendarController()
    # /v1/floatingips/{floatingip_id}/maintenance.
    maintenance = v1_maintenance.FloatingIPMaintenanceController()

    @pecan.expose('json')
    def get_all(self):
        context = pecan.request.context
        policy.authorize(context, floatingip_policies.GET)
        return {'floatingips': [views.floatingip(f) for f in
                                fip_api.floatingip_list(context)]}

    @pecan.expose('json')
    def get_one(self, floatingip_id):
        context = pecan.request.context
        policy.authorize(context, floatingip_policies.GET)
        return {'floatingip': views.floatingip(
            fip_api.floatingip_get(context, floatingip_id))}

    @pecan.expose('json')
    def post(self):
        context = pecan.request.context
        policy.authorize(context, floatingip_policies.POST)
        values = validation.request_json(pecan.request)
        v1_leases.require(values, schema.CREATE['required'])
        validation.validate(schema.CREATE, values)
        created = manager_client.get_client().resource_call(
            context, virtual_floatingip.RESOURCE_TYPE, 'create',
            {'values': values})
        pecan.response.status = 201
        return {'floatingip': views.floatingip(
            fip_api.floatingip_get(context, created['id']), iso=True)}

    @pecan.expose(content_type='application/json')
    def delete(self, floatingip_id):
        context = pecan.request.context
        policy.authorize(context, floatingip_policies.DELETE)
        manager_client.get_client().resource_call(
            context, virtual_floatingip.RESOURCE_TYPE, 'delete',
            {'id': floatingip_id})
        pecan.response.status = 204
        return ''
