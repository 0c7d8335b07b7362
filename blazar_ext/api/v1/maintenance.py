"""Maintenance windows (issue 30): /v1/os-hosts/{host_id}/maintenance and
/v1/floatingips/{floatingip_id}/maintenance.

POST schedules a window (or, with ``dry_run``, shows what it would move);
PUT or PATCH on one window moves or shortens it; DELETE cancels it. GET
/v1/maintenance lists every window, of every resource type. Operators
only.
"""

import pecan
from pecan import rest

from blazar_ext.api.v1.schemas import maintenance as schema
from blazar_ext.api.v1 import views
from blazar_ext.api import validation
from blazar_ext.db.api import floatingip as fip_api
from blazar_ext.db.api import host_service
from blazar_ext.db.api import maintenance as maintenance_api
from blazar_ext import exceptions
from blazar_ext.plugins import physical_host
from blazar_ext.plugins import virtual_floatingip
from blazar_ext.policies import maintenance as policies
from blazar_ext import policy
from blazar_ext.rpc import manager_client

# The window column of each type, and the field naming it in the view.
_FIELDS = (('compute_host_id', physical_host.RESOURCE_TYPE, 'host_id'),
           ('floatingip_id', virtual_floatingip.RESOURCE_TYPE,
            'floatingip_id'))


def view(window: dict) -> dict:
    """A window (its row, or as the manager answers it)."""
    body = {'id': window['id'],
            'start_date': views.timestamp(window['start_date']),
            'end_date': views.timestamp(window['end_date']),
            'reason': window['reason'], 'status': window['status'],
            # The lease holding the resource for the window.
            'lease_id': window.get('hold_lease_id')}
    for column, resource_type, field in _FIELDS:
        if window.get(column):
            body.update({'resource_type': resource_type,
                         field: str(window[column])})
    if 'created_at' in window:
        body['created_at'] = views.record_time(window.get('created_at'))
        body['updated_at'] = views.record_time(window.get('updated_at'))
    return body


def _answer(result: dict) -> dict:
    return dict(result, maintenance=view(result['maintenance']))


class AllMaintenanceController(rest.RestController):
    """/v1/maintenance: every window of every resource."""

    @pecan.expose('json')
    def get_all(self):
        context = pecan.request.context
        policy.authorize(context, policies.GET)
        return {'maintenances': [view(w) for w in
                                 maintenance_api.window_list(context)]}


class ResourceMaintenanceController(rest.RestController):
    """The windows of one resource; subclasses name its type."""

    #: The manager's resource type (None: a host, sent as RPC 1.5).
    resource_type: str | None = None
    #: The maintenance_windows column naming the resource.
    column = ''
    #: The parent resource's path argument (the handlers take it as
    #: ``ref``).
    parent_argument = ''

    @staticmethod
    def resource_id_of(context, ref: str) -> str:
        """The resource's id (its type's NotFound, a 404)."""
        raise NotImplementedError

    def _of_resource(self, context, ref: str, window_id: str) -> dict:
        window = maintenance_api.window_get(context, window_id)
        if str(window.get(self.column)) != self.resource_id_of(context,
                                                               ref):
            raise exceptions.MaintenanceNotFound(maintenance=window_id)
        return window

    @pecan.expose('json')
    def get_all(self, ref):
        context = pecan.request.context
        policy.authorize(context, policies.GET)
        windows = maintenance_api.window_list(
            context, self.column, self.resource_id_of(context, ref))
        return {'maintenances': [view(w) for w in windows]}

    @pecan.expose('json')
    def get_one(self, ref, maintenance_id):
        context = pecan.request.context
        policy.authorize(context, policies.GET)
        return {'maintenance': view(self._of_resource(context, ref,
                                                      maintenance_id))}

    @pecan.expose('json')
    def post(self, ref):
        context = pecan.request.context
        policy.authorize(context, policies.POST)
        values = validation.request_json(pecan.request)
        validation.validate(schema.CREATE, values)
        result = manager_client.get_client().schedule_maintenance(
            context, self.resource_id_of(context, ref), values,
            resource_type=self.resource_type)
        pecan.response.status = 200 if result['dry_run'] else 201
        return _answer(result)

    def _update(self, ref, window_id):
        context = pecan.request.context
        policy.authorize(context, policies.PATCH)
        values = validation.request_json(pecan.request)
        validation.validate(schema.UPDATE, values)
        self._of_resource(context, ref, window_id)
        return _answer(manager_client.get_client().update_maintenance(
            context, window_id, values))

    @pecan.expose('json')
    def put(self, ref, maintenance_id):
        return self._update(ref, maintenance_id)

    @pecan.expose('json')
    def patch(self, ref, maintenance_id):
        return self._update(ref, maintenance_id)

    @pecan.expose(content_type='application/json')
    def delete(self, ref, maintenance_id):
        context = pecan.request.context
        policy.authorize(context, policies.DELETE)
        self._of_resource(context, ref, maintenance_id)
        manager_client.get_client().cancel_maintenance(context,
                                                       maintenance_id)
        pecan.response.status = 204
        return ''


class MaintenanceController(ResourceMaintenanceController):
    """/v1/os-hosts/{host_id}/maintenance (the host by id or name)."""

    column = 'compute_host_id'
    parent_argument = 'host_id'

    @staticmethod
    def resource_id_of(context, ref: str) -> str:
        return str(host_service.host_id_of(context, ref))


class FloatingIPMaintenanceController(ResourceMaintenanceController):
    """/v1/floatingips/{floatingip_id}/maintenance"""

    resource_type = virtual_floatingip.RESOURCE_TYPE
    column = 'floatingip_id'
    parent_argument = 'floatingip_id'

    @staticmethod
    def resource_id_of(context, ref: str) -> str:
        return str(fip_api.floatingip_get(context, ref)['id'])
