"""The manager's budget endpoint (RPC namespace "budgets"): budget
administration, rates set through the API, and lease quotes.

Budgets are written by the manager only, as reservation state is; the
charges themselves are made by the BudgetFilter in each lease's
transaction.
"""

import decimal

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_utils import timeutils

from blazar_ext.db.api.budgets import budget as budget_api
from blazar_ext.db.api import transaction
from blazar_ext.enforcement.filters import budget as budget_filter
from blazar_ext.enforcement import pricing
from blazar_ext.enforcement import rates as rates_mod
from blazar_ext import exceptions
from blazar_ext.manager import leases as lease_manager

LOG = logging.getLogger(__name__)

NAMESPACE = 'budgets'
# 1.0 - create_budget, adjust_budget, delete_budget, set_rates,
#       quote_lease
VERSION = '1.0'


def _item(spec, ids: list) -> pricing.Item:
    """What a reservation spec would hold, given its candidates."""
    resource_type = spec['resource_type']
    if resource_type in rates_mod.INSTANCE_TYPES:
        return pricing.Item(resource_type, count=spec['amount'],
                            vcpus=spec['vcpus'],
                            memory_mb=spec['memory_mb'])
    return pricing.Item(resource_type, count=len(ids), host_ids=tuple(ids))


class BudgetEndpoint:
    target = messaging.Target(namespace=NAMESPACE, version=VERSION)

    def __init__(self, leases: lease_manager.LeaseManager):
        self.leases = leases
        self._pricer = None

    @property
    def pricer(self) -> budget_filter.Pricer:
        """The BudgetFilter's pricer, or one of our own when it is off."""
        flt = budget_filter.find(self.leases.enforcement)
        if flt is not None:
            return flt.pricer
        if self._pricer is None:
            self._pricer = budget_filter.Pricer(lease_manager.CONF)
        return self._pricer

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def create_budget(self, context, values: dict) -> dict:
        values = dict(values, credits=rates_mod.credits(
            values['credits'], 'credits'))
        return {'id': budget_api.budget_create(context, values)['id']}

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def adjust_budget(self, context, budget_id: str, amount: str,
                      reason: str) -> dict:
        value = decimal.Decimal(amount).quantize(rates_mod.QUANTUM)
        return {'id': budget_api.budget_adjust(context, budget_id, value,
                                               reason)['id']}

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def delete_budget(self, context, budget_id: str) -> None:
        budget_api.budget_delete(context, budget_id)

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def set_rates(self, context, rates: list) -> None:
        if self.pricer.source.from_file:
            raise exceptions.RatesManagedByFile(path=self.pricer.source.path)
        budget_api.rates_replace(context, rates_mod.validate_list(rates))

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def quote_lease(self, context, values: dict,
                    private_visible: bool = False) -> dict:
        """The cost of the lease ``values`` would create now, its rate
        lines and the balances after; nothing is written."""
        now = timeutils.utcnow()
        start = lease_manager.parse_date(
            values.get('start_date'), 'start_date', allow_now=True,
            now=now.replace(second=0, microsecond=0))
        end = lease_manager.parse_date(values.get('end_date'), 'end_date')
        if end <= start:
            raise exceptions.Invalid(
                reason='End date must be later than start date. end_date '
                       '%s must be later than start_date %s'
                       % (values['end_date'], values['start_date']))
        plugins = self.leases.plugins
        specs = [plugins.get(r.get('resource_type')).normalize(
            r, private_visible=private_visible)
            for r in values.get('reservations') or []]
        with transaction.reading(context) as session:
            items = [_item(spec, plugins.get(spec['resource_type'])
                           .candidates(context, session, spec, start, end))
                     for spec in specs]
            lines = self.pricer.lines(session, items, start, end)
            cost = pricing.total(lines)
            budgets = [{'id': row.id, 'project_id': row.project_id,
                        'user_id': row.user_id,
                        'balance': float(budget_api.balance(row, now)),
                        'balance_after': float(
                            budget_api.balance(row, now) - cost)}
                       for row in budget_api.budgets_of(
                           session, context.project_id, context.user_id)]
        return {'cost': float(cost), 'currency': 'credits',
                'start_date': start.strftime(lease_manager.DATE_FORMATS[0]),
                'end_date': end.strftime(lease_manager.DATE_FORMATS[0]),
                'rate_lines': pricing.shown(lines), 'budgets': budgets}
