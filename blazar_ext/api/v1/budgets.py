"""/v1/budgets: budgets in credits, their ledger, and adjustments.

Reads come from the database; changes go to the manager over RPC (the
"budgets" namespace), which writes budgets as it writes leases.
"""

import pecan
from pecan import rest

from blazar_ext.api.v1.schemas import budget as schema
from blazar_ext.api.v1 import views
from blazar_ext.api import validation
from blazar_ext.db.api.budgets import budget as budget_api
from blazar_ext.policies import budgets as budget_policies
from blazar_ext import policy
from blazar_ext.rpc import budget_client


def budget_view(values: dict) -> dict:
    return {'id': values['id'], 'project_id': values['project_id'],
            'user_id': values['user_id'],
            'credits': float(values['credits']),
            'spent': float(values['spent']),
            'balance': float(values['balance']),
            'period': values['period'],
            'period_start': views.record_time(values['period_start']),
            'created_at': views.record_time(values['created_at']),
            'updated_at': views.record_time(values['updated_at'])}


def entry_view(values: dict) -> dict:
    return {'id': values['id'], 'lease_id': values['lease_id'],
            'kind': values['kind'], 'amount': float(values['amount']),
            'balance': float(values['balance']),
            'reason': values['reason'],
            'created_at': views.record_time(values['created_at'])}


def _get_authorized(context, budget_id: str, rule: str) -> dict:
    budget = budget_api.budget_get(context, budget_id)
    policy.authorize(context, rule, {'project_id': budget['project_id'],
                                     'user_id': budget['user_id']})
    return budget


class LedgerController(rest.RestController):
    """/v1/budgets/{budget_id}/ledger"""

    @pecan.expose('json')
    def get_all(self, budget_id):
        context = pecan.request.context
        _get_authorized(context, budget_id, budget_policies.LEDGER)
        return {'ledger': [entry_view(e) for e in
                           budget_api.ledger_list(context, budget_id)]}


class AdjustController(rest.RestController):
    """/v1/budgets/{budget_id}/adjust"""

    @pecan.expose('json')
    def post(self, budget_id):
        context = pecan.request.context
        policy.authorize(context, budget_policies.ADJUST)
        values = validation.request_json(pecan.request)
        validation.validate(schema.ADJUST, values)
        budget_api.budget_get(context, budget_id)
        budget_client.get_client().adjust_budget(
            context, budget_id, repr(values['amount']), values['reason'])
        return {'budget': budget_view(budget_api.budget_get(context,
                                                            budget_id))}


class BudgetsController(rest.RestController):

    ledger = LedgerController()
    adjust = AdjustController()

    @pecan.expose('json')
    def get_all(self, **_query):
        context = pecan.request.context
        policy.authorize(context, budget_policies.GET)
        project_id = pecan.request.GET.get('project_id')
        if not policy.authorize(context, budget_policies.GET_ALL_PROJECTS,
                                do_raise=False):
            project_id = context.project_id
        return {'budgets': [budget_view(b) for b in
                            budget_api.budget_list(context, project_id)]}

    @pecan.expose('json')
    def get_one(self, budget_id):
        context = pecan.request.context
        return {'budget': budget_view(
            _get_authorized(context, budget_id, budget_policies.GET))}

    @pecan.expose('json')
    def post(self):
        context = pecan.request.context
        policy.authorize(context, budget_policies.POST)
        values = validation.request_json(pecan.request)
        validation.validate(schema.CREATE, values)
        values['credits'] = repr(values['credits'])
        created = budget_client.get_client().create_budget(context, values)
        pecan.response.status = 201
        return {'budget': budget_view(
            budget_api.budget_get(context, created['id']))}

    @pecan.expose(content_type='application/json')
    def delete(self, budget_id):
        context = pecan.request.context
        policy.authorize(context, budget_policies.DELETE)
        budget_client.get_client().delete_budget(context, budget_id)
        pecan.response.status = 204
        return ''
