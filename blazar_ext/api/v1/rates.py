"""/v1/rates: what resources cost in credits per hour."""

from oslo_config import cfg
import pecan
from pecan import rest

from blazar_ext.api.v1.schemas import budget as schema
from blazar_ext.api import validation
from blazar_ext.db.api.budgets import budget as budget_api
from blazar_ext.enforcement import rates as rates_mod
from blazar_ext.policies import budgets as budget_policies
from blazar_ext import policy
from blazar_ext.rpc import budget_client

CONF = cfg.CONF


def _body(context) -> dict:
    path = CONF.budgets.rates_file
    if path:
        # The manager's copy is the one in force; the API reads the file
        # as it is now.
        try:
            rates, source = rates_mod.load_file(path), 'file'
        except rates_mod.RatesFileError as exc:
            return {'rates': [], 'source': 'file', 'error': str(exc),
                    'default_rate': CONF.budgets.default_rate}
    else:
        rates, source = budget_api.rates_list(context), 'api'
    return {'rates': [rates_mod.shown(r) for r in rates], 'source': source,
            'default_rate': CONF.budgets.default_rate}


class RatesController(rest.RestController):

    @pecan.expose('json')
    def get_all(self):
        context = pecan.request.context
        policy.authorize(context, budget_policies.RATES_GET)
        return _body(context)

    @pecan.expose('json')
    def put(self):
        context = pecan.request.context
        policy.authorize(context, budget_policies.RATES_PUT)
        values = validation.request_json(pecan.request)
        validation.validate(schema.RATES, values)
        # Checked here too, so a bad expression is a 400 before any call.
        rates_mod.validate_list(values['rates'])
        budget_client.get_client().set_rates(context, values['rates'])
        return _body(context)
