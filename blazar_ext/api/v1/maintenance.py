"""/v1/os-hosts/{host_id}/maintenance: maintenance windows (issue 30).

POST schedules a window (or, with ``dry_run``, shows what it would move);
PUT or PATCH on one window moves or shortens it; DELETE cancels it. GET
/v1/maintenance lists every host's windows. Operators only.
"""

import pecan
from pecan import rest

from blazar_ext.api.v1.schemas import maintenance as schema
from blazar_ext.api.v1 import views
from blazar_ext.api import validation
from blazar_ext.db.api import host_service
from blazar_ext.db.api import maintenance as maintenance_api
from blazar_ext import exceptions
from blazar_ext.policies import maintenance as policies
from blazar_ext import policy
from blazar_ext.rpc import manager_client


def view(window: dict) -> dict:
    """A window (its row, or as the manager answers it)."""
    body = {'id': window['id'], 'host_id': str(window['compute_host_id']),
            'start_date': views.timestamp(window['start_date']),
            'end_date': views.timestamp(window['end_date']),
            'reason': window['reason'], 'status': window['status'],
            # The lease holding the host for the window.
            'lease_id': window.get('hold_lease_id')}
    if 'created_at' in window:
        body['created_at'] = views.record_time(window.get('created_at'))
        body['updated_at'] = views.record_time(window.get('updated_at'))
    return body


def _answer(result: dict) -> dict:
    return dict(result, maintenance=view(result['maintenance']))


def _of_host(context, host_id: str, window_id: str) -> dict:
    window = maintenance_api.window_get(context, window_id)
    if str(window['compute_host_id']) != str(
            host_service.host_id_of(context, host_id)):
        raise exceptions.MaintenanceNotFound(maintenance=window_id)
    return window


def _list(host_id: str | None) -> dict:
    context = pecan.request.context
    policy.authorize(context, policies.GET)
    if host_id is not None:
        host_id = host_service.host_id_of(context, host_id)
    return {'maintenances': [view(w) for w in
                             maintenance_api.window_list(context, host_id)]}


class AllMaintenanceController(rest.RestController):
    """/v1/maintenance: every host's windows."""

    @pecan.expose('json')
    def get_all(self):
        return _list(None)


class MaintenanceController(rest.RestController):
    """/v1/os-hosts/{host_id}/maintenance"""

    @pecan.expose('json')
    def get_all(self, host_id):
        return _list(host_id)

    @pecan.expose('json')
    def get_one(self, host_id, maintenance_id):
        context = pecan.request.context
        policy.authorize(context, policies.GET)
        return {'maintenance': view(_of_host(context, host_id,
                                             maintenance_id))}

    @pecan.expose('json')
    def post(self, host_id):
        context = pecan.request.context
        policy.authorize(context, policies.POST)
        values = validation.parse_json(pecan.request.body)
        validation.validate(schema.CREATE, values)
        result = manager_client.get_client().schedule_maintenance(
            context, host_id, values)
        pecan.response.status = 200 if result['dry_run'] else 201
        return _answer(result)

    def _update(self, host_id, window_id):
        context = pecan.request.context
        policy.authorize(context, policies.PATCH)
        _of_host(context, host_id, window_id)
        values = validation.parse_json(pecan.request.body)
        validation.validate(schema.UPDATE, values)
        return _answer(manager_client.get_client().update_maintenance(
            context, window_id, values))

    @pecan.expose('json')
    def put(self, host_id, maintenance_id):
        return self._update(host_id, maintenance_id)

    @pecan.expose('json')
    def patch(self, host_id, maintenance_id):
        return self._update(host_id, maintenance_id)

    @pecan.expose(content_type='application/json')
    def delete(self, host_id, maintenance_id):
        context = pecan.request.context
        policy.authorize(context, policies.DELETE)
        _of_host(context, host_id, maintenance_id)
        manager_client.get_client().cancel_maintenance(context,
                                                       maintenance_id)
        pecan.response.status = 204
        return ''
