"""BudgetFilter: leases are paid for in credits from budgets.

In the transaction of a lease create or update it charges the budget the
lease's cost (resources x hours x rate) less what it was charged already,
and refuses (403, the change undone) when the balance does not cover it;
on delete it refunds the part of the charge for the time not used. The
budget rows are locked first, so parallel creates never overdraw. Healing
changes no charge: the lease keeps its price.
"""

import datetime
import decimal

from oslo_log import log as logging
from oslo_utils import timeutils

from blazar_ext.db.api.budgets import budget as budget_api
from blazar_ext.db.api.budgets import cost as budget_cost
from blazar_ext.enforcement import base
from blazar_ext.enforcement import pricing
from blazar_ext.enforcement import rates as rates_mod

LOG = logging.getLogger(__name__)


def _date(value) -> datetime.datetime:
    if isinstance(value, str):
        return datetime.datetime.fromisoformat(value)
    return value


class Pricer:
    """Rates in force (the file's or the API's) applied to a lease."""

    def __init__(self, conf):
        self.conf = conf
        self.source = rates_mod.RateSource(conf)

    def rates(self, session) -> list:
        file_rates = self.source.file_rates()
        if file_rates is not None:
            return file_rates
        return budget_api.rates_in(session)

    def lines(self, session, items: list, start, end) -> list:
        """The rate lines of ``items`` (what a lease would hold)."""
        rates = self.rates(session)
        expressions = _host_expressions(rates)
        first = budget_cost.first_matching(
            session, expressions,
            {h for item in items for h in item.host_ids})
        return self._priced(rates, items, start, end,
                            _matching(expressions, first))

    def _priced(self, rates: list, items: list, start, end,
                matching) -> list:
        return pricing.lines(items, rates, start, end,
                             self.conf.budgets.default_rate, matching)

    def lease_lines(self, session, lease: dict) -> list:
        """The rate lines of what the lease holds, over its window: one
        query for its hosts and the host rates each matches first."""
        rates = self.rates(session)
        expressions = _host_expressions(rates)
        facts = budget_cost.held(session, lease['reservations'],
                                 lease['id'],
                                 budget_cost.as_json(expressions))
        first = {h: i for f in facts.values()
                 for h, i in f['first'].items()}
        items = [pricing.Item(
            resource_type=f['resource_type'], count=f['count'],
            host_ids=tuple(f['host_ids']), vcpus=f['vcpus'],
            memory_mb=f['memory_mb'], reservation_id=rid)
            for rid, f in facts.items()]
        return self._priced(rates, items, _date(lease['start_date']),
                            _date(lease['end_date']),
                            _matching(expressions, first))


def _host_expressions(rates: list) -> list:
    return [r['properties'] for r in rates
            if r['resource_type'] == rates_mod.HOST_TYPE
            and r['properties'] is not None]


def _matching(expressions: list, first: dict):
    """pricing's ``matching``: a host still unpriced at a rate matches it
    when it is the first host rate expression the host matches."""
    def matching(expression, ids: list) -> list:
        return [h for h in ids if h in first
                and expressions[first[h]] == expression]
    return matching


class BudgetFilter(base.BaseFilter):
    """Charge leases to the budgets of their project and user."""

    def __init__(self, conf):
        super().__init__(conf)
        # A bad rates file stops the manager here, naming the line.
        self.pricer = Pricer(conf)

    def reload_rates(self) -> bool:
        return self.pricer.source.reload()

    def _refuse(self, row, cost, charged, available) -> Exception:
        owner = 'project %s' % row.project_id
        if row.user_id:
            owner += ', user %s' % row.user_id
        more = cost - charged
        return self.reject(
            'Budget %s (%s) cannot pay for this lease: it costs %s credits%s'
            ' and the balance is %s credits (%s short).' % (
                row.id, owner, _n(cost),
                ' (%s more than charged already)' % _n(more)
                if charged else '', _n(available), _n(more - available)))

    def _settle(self, session, lease: dict, reason: str,
                new: bool = False) -> None:
        now = timeutils.utcnow()
        rows = budget_api.budgets_of(session, lease.get('project_id'),
                                     lease.get('user_id'), lock=True)
        if not rows:
            if self.conf.budgets.require_budget:
                raise self.reject('Project %s has no budget; leases must be '
                                  'paid for.' % lease.get('project_id'))
            return
        cost = pricing.total(self.pricer.lease_lines(session, lease))
        deltas = []
        for row in rows:
            # A new lease has been charged nothing yet.
            charged = (budget_api.ZERO if new else budget_api.lease_charged(
                session, row.id, lease['id']))
            delta = cost - charged
            available = budget_api.balance(row, now)
            if delta > 0 and delta > available:
                raise self._refuse(row, cost, charged, available)
            deltas.append((row, delta))
        for row, delta in deltas:
            if delta:
                budget_api.charge(
                    session, row, lease['id'], delta, now, reason,
                    low_percent=self.conf.budgets.low_balance_percent)

    def write_create(self, session, context: dict, lease: dict) -> None:
        self._settle(session, lease, 'lease %s created' % lease['name'],
                     new=True)

    def write_update(self, session, context: dict, current_lease: dict,
                     lease: dict) -> None:
        self._settle(session, lease, 'lease %s updated' % lease['name'])

    def write_delete(self, session, context: dict, lease: dict) -> None:
        now = timeutils.utcnow()
        start, end = _date(lease['start_date']), _date(lease['end_date'])
        whole = pricing.hours(start, end)
        unused = pricing.hours(max(start, now), end)
        if not whole or not unused:
            return
        for row in budget_api.budgets_of(session, lease.get('project_id'),
                                         lease.get('user_id'), lock=True):
            charged = budget_api.lease_charged(session, row.id, lease['id'])
            refund = (charged * unused / whole).quantize(
                rates_mod.QUANTUM, decimal.ROUND_HALF_DOWN)
            if refund > 0:
                budget_api.charge(session, row, lease['id'], -refund, now,
                                  'lease %s deleted: %s of %s hours unused'
                                  % (lease['name'], _n(unused), _n(whole)))


def _n(value) -> str:
    """A number of credits or hours, without trailing zeros."""
    text = '%.4f' % value
    return text.rstrip('0').rstrip('.') if '.' in text else text


def find(chain) -> BudgetFilter | None:
    """The chain's BudgetFilter, if it is enabled."""
    for flt in getattr(chain, 'filters', ()):
        if isinstance(flt, BudgetFilter):
            return flt
    return None


def reload_rates(chain) -> None:
    """SIGHUP: read the rates file again (kept as it was if bad)."""
    flt = find(chain)
    if flt is not None:
        flt.reload_rates()
