"""/v1/leases: create, list, show, update and delete leases.

Reads come from the database; changes go to the manager over RPC.
"""

import pecan
from pecan import rest

from blazar_ext.api import gc_pause
from blazar_ext.api.v1 import hosts as v1_hosts
from blazar_ext.api.v1 import lease_plan
from blazar_ext.api.v1 import lease_series as v1_series
from blazar_ext.api.v1.schemas import lease as schema
from blazar_ext.api.v1.schemas import lease_plan as plan_schema
from blazar_ext.api.v1 import views
from blazar_ext.api import validation
from blazar_ext import exceptions
from blazar_ext.plugins import loader
from blazar_ext.policies import budgets as budget_policies
from blazar_ext.policies import leases as lease_policies
from blazar_ext import policy
from blazar_ext.rpc import budget_client
from blazar_ext.rpc import manager_client


def _get_authorized(context, lease_id: str, rule: str) -> dict:
    lease = loader.get().lease_get(context, lease_id)
    policy.authorize(context, rule,
                     {'project_id': lease['project_id'],
                      'user_id': lease['user_id']})
    return lease


def _json_response(body: bytes):
    """The response with ``body``, JSON already written (views keeps
    each lease's text)."""
    response = pecan.response
    response.content_type = 'application/json'
    response.body = body
    return response


def _degraded_filter(value: str | None) -> bool | None:
    """?degraded=true|false (an extension: the leases needing an
    operator); absent, every lease."""
    if value is None:
        return None
    if value.lower() not in ('true', 'false'):
        raise exceptions.Invalid(
            reason="degraded must be 'true' or 'false', got %r" % value)
    return value.lower() == 'true'


def require(values, names: list) -> None:
    """Upstream Blazar's "Missing parameter" message, naming them all."""
    if not isinstance(values, dict):
        return
    missing = [name for name in names if name not in values]
    if missing:
        raise exceptions.Invalid(
            reason='Missing parameter %s (%s)' % (
                ', '.join(missing), ', '.join(
                    "'%s' is a required property" % m for m in missing)))


class QuoteController(rest.RestController):
    """POST /v1/leases/quote: the create body, priced; nothing changes."""

    @pecan.expose('json')
    def post(self):
        context = pecan.request.context
        policy.authorize(context, budget_policies.QUOTE)
        values = validation.request_json(pecan.request)
        require(values, schema.CREATE['required'])
        validation.validate(schema.CREATE, values)
        return {'quote': budget_client.get_client().quote_lease(
            context, values, v1_hosts.show_private(context))}


class LeasesController(rest.RestController):

    quote = QuoteController()
    plan = lease_plan.LeasePlanController()
    extension = lease_plan.LeaseExtensionController()

    @pecan.expose('json')
    def get_all(self, **_query):
        context = pecan.request.context
        policy.authorize(context, lease_policies.GET)
        degraded = _degraded_filter(pecan.request.GET.get('degraded'))
        project_id = None
        if not policy.authorize(context, lease_policies.GET_ALL_PROJECTS,
                                do_raise=False):
            project_id = context.project_id
        with gc_pause.paused():
            return _json_response(views.leases_json(loader.get().lease_list(
                context, project_id, degraded=degraded)))

    @pecan.expose('json')
    def get_one(self, lease_id):
        context = pecan.request.context
        return _json_response(views.lease_json(
            _get_authorized(context, lease_id, lease_policies.GET)))

    @pecan.expose('json')
    def post(self):
        context = pecan.request.context
        policy.authorize(context, lease_policies.POST)
        values = validation.request_json(pecan.request)
        if isinstance(values, dict) and 'recurrence' in values:
            require(values, schema.CREATE['required'])
            pecan.response.status = 201
            return {'lease': v1_series.create(context, values)}
        if plan_schema.is_flexible(values):
            # Dates left to the manager: the first slot that fits.
            validation.validate(plan_schema.FLEXIBLE_CREATE, values)
        else:
            require(values, schema.CREATE['required'])
            validation.validate(schema.CREATE, values)
        created = manager_client.get_client().create_lease(
            context, values, v1_hosts.show_private(context))
        if 'reservations' not in created:
            # Pinned below manager RPC 1.8: the id alone; read it back.
            created = loader.get().lease_get(context, created['id'])
        pecan.response.status = 201
        return {'lease': views.lease(created)}

    @pecan.expose('json')
    def put(self, lease_id):
        context = pecan.request.context
        _get_authorized(context, lease_id, lease_policies.PUT)
        values = validation.request_json(pecan.request)
        validation.validate(schema.UPDATE, values)
        manager_client.get_client().update_lease(
            context, lease_id, values, v1_hosts.show_private(context))
        return {'lease': views.lease(
            loader.get().lease_get(context, lease_id))}

    @pecan.expose(content_type='application/json')
    def delete(self, lease_id):
        context = pecan.request.context
        _get_authorized(context, lease_id, lease_policies.DELETE)
        manager_client.get_client().delete_lease(context, lease_id)
        pecan.response.status = 204
        return ''
