"""Budgets and their ledger; the rates set through the API.

Ledger amounts are changes of the balance: a charge is negative, a refund
positive, an adjustment either, the credits a budget starts with positive;
``balance`` is the balance after the entry. Budgets are written by the
manager only; a charge locks its budget rows (SELECT ... FOR UPDATE) in
the transaction of the lease change.
"""

import datetime
import decimal
import functools
import json

from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from blazar_ext.db.api import outbox
from blazar_ext.db.models import budget as models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions

# The most a budget holds (the API's limit for an amount; the column
# holds 10**16).
MAX_CREDITS = 10 ** 15
PERIODS = ('daily', 'weekly', 'monthly')
CHARGE = 'charge'
REFUND = 'refund'
ADJUST = 'adjust'
CREATE = 'create'
RENEW = 'renew'
ZERO = decimal.Decimal(0)


def period_start(period: str | None, now: datetime.datetime):
    """The start of the period ``now`` falls in (None without a period)."""
    if not period:
        return None
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == 'daily':
        return day
    if period == 'weekly':
        return day - datetime.timedelta(days=day.weekday())
    return day.replace(day=1)


def _values(row) -> dict:
    """A budget's columns from an ORM row, a Core row or a dict."""
    if isinstance(row, dict):
        return dict(row)
    mapping = getattr(row, '_mapping', None)
    return dict(mapping) if mapping is not None else row.to_dict()


def _renewed(row: dict, now: datetime.datetime) -> bool:
    start = period_start(row['period'], now)
    return start is not None and (row['period_start'] is None
                                  or row['period_start'] < start)


def _view(row, now: datetime.datetime | None = None) -> dict:
    """A budget as a dict with its balance; a period that has renewed
    since the last write shows as renewed."""
    values = _values(row)
    values.pop('user_key', None)
    if _renewed(values, now or timeutils.utcnow()):
        values['spent'] = ZERO
    values['balance'] = values['credits'] - values['spent']
    return values


def _get_model(session, budget_id: str, lock: bool = False):
    query = sa.select(models.Budget).where(models.Budget.id == budget_id)
    if lock:
        query = query.with_for_update()
    row = session.scalars(query).first()
    if row is None:
        raise exceptions.BudgetNotFound(budget=budget_id)
    return row


def budget_get(context, budget_id: str) -> dict:
    with db_session.reader.using(context) as session:
        return _view(_get_model(session, budget_id))


def budget_list(context, project_id: str | None = None) -> list:
    query = sa.select(models.Budget).order_by(models.Budget.project_id,
                                              models.Budget.user_key)
    if project_id is not None:
        query = query.where(models.Budget.project_id == project_id)
    with db_session.reader.using(context) as session:
        return [_view(row) for row in session.scalars(query)]


def _record(session, event_type: str, row, **extra) -> None:
    """Write a budget event (notifications.catalog) in the transaction
    of the change; amounts as numbers, as the API shows them."""
    values = _view(row)
    data = {k: float(v) if isinstance(v, decimal.Decimal) else v
            for k, v in dict(values, **extra).items()}
    outbox.record(session, event_type, data)


def _entry(session, row, kind: str, amount: decimal.Decimal,
           lease_id: str | None = None, reason: str | None = None) -> None:
    session.add(models.BudgetLedgerEntry(
        budget_id=row.id, lease_id=lease_id, kind=kind, amount=amount,
        balance=row.credits - row.spent, reason=reason))


def budget_create(context, values: dict) -> dict:
    """A new budget; BudgetExists for a second one of the same owner."""
    now = timeutils.utcnow()
    user_id = values.get('user_id') or None
    with db_session.writer.using(context) as session:
        existing = session.scalar(sa.select(models.Budget.id).where(
            models.Budget.project_id == values['project_id'],
            models.Budget.user_key == (user_id or '')))
        if existing is not None:
            raise _exists(values['project_id'], user_id, existing)
        row = models.Budget(
            project_id=values['project_id'], user_id=user_id,
            user_key=user_id or '', credits=values['credits'], spent=ZERO,
            period=values.get('period'),
            period_start=period_start(values.get('period'), now))
        session.add(row)
        try:
            session.flush()
        except db_exc.DBDuplicateEntry:
            raise _exists(values['project_id'], user_id, 'made meanwhile')
        _entry(session, row, CREATE, row.credits,
               reason=values.get('reason'))
        return _view(row, now)


def _exists(project_id: str, user_id, budget: str) -> exceptions.Conflict:
    return exceptions.BudgetExists(
        project_id=project_id, budget=budget,
        user=' and user %s' % user_id if user_id else '')


def _roll(session, row, now: datetime.datetime) -> None:
    """Start the period ``now`` falls in, if it is a new one (an ORM
    row)."""
    renewed = _renew(session, row.to_dict(), now)
    if renewed:
        row.spent, row.period_start = renewed


def _renew(session, values: dict, now: datetime.datetime) -> tuple | None:
    """If ``now`` falls in a new period: the renewal's ledger entry and
    budget.renewed, and (spent, period_start) from then on; else None."""
    if not _renewed(values, now):
        return None
    started = period_start(values['period'], now)
    _insert_entry(session, values['id'], RENEW, values['spent'],
                  values['credits'], None,
                  '%s allowance renewed' % values['period'])
    _record(session, 'budget.renewed',
            dict(values, spent=ZERO, period_start=started),
            amount=values['spent'])
    return ZERO, started


def budget_adjust(context, budget_id: str, amount: decimal.Decimal,
                  reason: str) -> dict:
    """Add ``amount`` (negative: take away) to the credits."""
    now = timeutils.utcnow()
    with db_session.writer.using(context) as session:
        row = _get_model(session, budget_id, lock=True)
        _roll(session, row, now)
        if row.credits + amount < 0:
            raise exceptions.Invalid(
                reason='budget %s has %s credits; taking %s away would '
                       'leave fewer than 0' % (budget_id, row.credits,
                                               -amount))
        if row.credits + amount > MAX_CREDITS:
            raise exceptions.Invalid(
                reason='budget %s has %s credits; adding %s would make '
                       'more than %d' % (budget_id, row.credits, amount,
                                         MAX_CREDITS))
        row.credits = row.credits + amount
        session.flush()
        _entry(session, row, ADJUST, amount, reason=reason)
        _record(session, 'budget.adjusted', row, amount=amount,
                reason=reason)
        return _view(row, now)


def budget_delete(context, budget_id: str) -> None:
    with db_session.writer.using(context) as session:
        row = _get_model(session, budget_id, lock=True)
        session.execute(sa.delete(models.BudgetLedgerEntry).where(
            models.BudgetLedgerEntry.budget_id == row.id))
        session.delete(row)


def ledger_list(context, budget_id: str) -> list:
    """The budget's entries, oldest first; BudgetNotFound."""
    table = models.BudgetLedgerEntry
    with db_session.reader.using(context) as session:
        _get_model(session, budget_id)
        return [row.to_dict() for row in session.scalars(
            sa.select(table).where(table.budget_id == budget_id)
            .order_by(table.id))]


# In the manager's lease transaction.

def budgets_of(session, project_id: str | None, user_id: str | None,
               lock: bool = False) -> list:
    """The user's sub-budget (if any), then the project's (if any), as
    read-only rows; locked in id order, so that two charges never wait
    on each other."""
    keys = [user_id or '', ''] if user_id else ['']
    rows = session.execute(_budgets_of_statement(lock), {
        'project_id': project_id, 'keys': keys}).all()
    rows.sort(key=lambda row: row.user_key == '')
    return rows


@functools.lru_cache(maxsize=None)
def _budgets_of_statement(lock: bool):
    # Built once: on the lease create path building and keying the
    # statement cost more than running it. Core rows, not ORM objects:
    # the charge is one UPDATE, without the unit of work's flush.
    table = models.Budget.__table__
    query = (sa.select(table)
             .where(table.c.project_id == sa.bindparam('project_id'),
                    table.c.user_key.in_(
                        sa.bindparam('keys', expanding=True)))
             .order_by(table.c.id))
    return query.with_for_update() if lock else query


def balance(row, now: datetime.datetime) -> decimal.Decimal:
    return _view(row, now)['balance']


def charge(session, row, lease_id: str, amount: decimal.Decimal,
           now: datetime.datetime, reason: str,
           low_percent: int = 0) -> None:
    """Spend ``amount`` (negative: refund) of a budget row locked by
    budgets_of, with its ledger entry (and a renewal's, first);
    budget.low when the balance falls below ``low_percent`` of the
    credits."""
    values = _values(row)
    spent, started = (_renew(session, values, now)
                      or (values['spent'], values['period_start']))
    low = values['credits'] * low_percent / 100
    was_low = values['credits'] - spent < low
    spent += amount
    session.execute(_charge_statement(), {
        'budget_id': values['id'], 'spent': spent,
        'period_start': started})
    _insert_entry(session, values['id'], CHARGE if amount > 0 else REFUND,
                  -amount, values['credits'] - spent, lease_id, reason)
    if not was_low and values['credits'] - spent < low:
        _record(session, 'budget.low',
                dict(values, spent=spent, period_start=started),
                lease_id=lease_id, amount=amount, reason=reason)


@functools.lru_cache(maxsize=None)
def _charge_statement():
    table = models.Budget.__table__
    return (sa.update(table).where(table.c.id == sa.bindparam('budget_id'))
            .values(spent=sa.bindparam('spent'),
                    period_start=sa.bindparam('period_start')))


def _insert_entry(session, budget_id: str, kind: str,
                  amount: decimal.Decimal, balance_after: decimal.Decimal,
                  lease_id: str | None, reason: str | None) -> None:
    session.execute(sa.insert(models.BudgetLedgerEntry.__table__), {
        'budget_id': budget_id, 'lease_id': lease_id, 'kind': kind,
        'amount': amount, 'balance': balance_after, 'reason': reason})


def lease_charged(session, budget_id: str, lease_id: str
                  ) -> decimal.Decimal:
    """What the lease has been charged on the budget, net of refunds."""
    table = models.BudgetLedgerEntry
    paid = session.scalar(
        sa.select(sa.func.sum(table.amount))
        .where(table.budget_id == budget_id, table.lease_id == lease_id,
               table.kind.in_((CHARGE, REFUND))))
    return -(paid or ZERO)


# Rates set through the API.

def rates_in(session) -> list:
    """The rates set through the API, in order (the list is shared: do
    not change it)."""
    return _rates_of(tuple(tuple(row) for row in session.execute(
        _rates_statement())))


def rates_list(context) -> list:
    with db_session.reader.using(context) as session:
        return [dict(rate) for rate in rates_in(session)]


@functools.lru_cache(maxsize=None)
def _rates_statement():
    table = models.Rate.__table__
    return sa.select(table.c.resource_type, table.c.properties,
                     table.c.credits_per_hour, table.c.credits_per_vcpu_hour,
                     table.c.credits_per_gb_hour).order_by(table.c.position)


@functools.lru_cache(maxsize=8)
def _rates_of(rows: tuple) -> list:
    # Read on every lease change; parsed once per set of rates.
    return [{'resource_type': resource_type,
             'properties': json.loads(properties) if properties else None,
             'credits_per_hour': per_hour,
             'credits_per_vcpu_hour': per_vcpu,
             'credits_per_gb_hour': per_gb}
            for resource_type, properties, per_hour, per_vcpu, per_gb
            in rows]


def rates_replace(context, rates: list) -> None:
    with db_session.writer.using(context) as session:
        session.execute(sa.delete(models.Rate))
        for position, rate in enumerate(rates):
            session.add(models.Rate(
                position=position, resource_type=rate['resource_type'],
                properties=(json.dumps(rate['properties'])
                            if rate['properties'] is not None else None),
                credits_per_hour=rate['credits_per_hour'],
                credits_per_vcpu_hour=rate['credits_per_vcpu_hour'],
                credits_per_gb_hour=rate['credits_per_gb_hour']))
