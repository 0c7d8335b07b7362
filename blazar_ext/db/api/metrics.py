"""The service's state as Prometheus reports it: counts by status and type,
resources reserved now, overdue events. Read at scrape time, so any
process scraped tells the same (see blazar_ext.metrics)."""

import datetime

from oslo_utils import timeutils
import sqlalchemy as sa

from blazar_ext.db.api import outbox as outbox_api
from blazar_ext.db.models import lease as models
from blazar_ext.db.models import outbox as outbox_models
from blazar_ext.db import session as db_session
from blazar_ext import states

# A reservation in these holds nothing (any more).
_RELEASED = (states.Reservation.DELETED, states.Reservation.ERROR)


def _reserved_now(session, allocations, resource_column, now) -> int:
    """Distinct resources an allocation holds at ``now``."""
    reservations = models.Reservation.__table__
    query = (sa.select(sa.func.count(sa.distinct(resource_column)))
             .select_from(allocations.join(
                 reservations,
                 reservations.c.id == allocations.c.reservation_id))
             .where(allocations.c.start_date <= now,
                    allocations.c.end_date > now,
                    reservations.c.status.notin_(_RELEASED)))
    return session.execute(query).scalar() or 0


def _reservable(session, resource) -> int:
    """Resources of the model ``resource`` in service (and, where it has
    the column, not disabled)."""
    table = resource.__table__
    where = [table.c.reservable.is_(sa.true())]
    if 'disabled' in table.c:
        where.append(table.c.disabled.is_(sa.false()))
    return session.execute(sa.select(sa.func.count()).select_from(table)
                           .where(*where)).scalar()


def state(context, now: datetime.datetime | None = None,
          sources: list = ()) -> dict:
    """Counts for the state gauges, in one reader transaction.

    Returns {'leases': {status: n}, 'degraded_leases': n,
    'reservations': {(resource_type, status): n},
    'missing_resources': n, 'reservable': {type: n},
    'reserved': {type: n}, 'overdue_events': n,
    'oldest_overdue_event': datetime or None}. ``sources``: the
    enabled types' own resources, as db.api.healing.LostSource entries
    (their resource and allocation tables), for 'reservable' and
    'reserved'.
    """
    now = now or timeutils.utcnow()
    leases = models.Lease.__table__
    reservations = models.Reservation.__table__
    events = models.Event.__table__
    with db_session.reader.using(context) as session:
        by_status = dict(session.execute(
            sa.select(leases.c.status, sa.func.count())
            .group_by(leases.c.status)).all())
        degraded = session.execute(
            sa.select(sa.func.count()).select_from(leases)
            .where(leases.c.degraded.is_(sa.true()))).scalar()
        by_type = {(rtype, status): count for rtype, status, count in
                   session.execute(
                       sa.select(reservations.c.resource_type,
                                 reservations.c.status, sa.func.count())
                       .group_by(reservations.c.resource_type,
                                 reservations.c.status)).all()}
        missing = session.execute(
            sa.select(sa.func.count()).select_from(reservations)
            .where(reservations.c.missing_resources.is_(sa.true()),
                   reservations.c.status.notin_(_RELEASED))).scalar()
        reservable, reserved = {}, {}
        for source in sources:
            allocations = source.allocation.__table__
            reservable[source.resource_type] = _reservable(session,
                                                           source.resource)
            reserved[source.resource_type] = _reserved_now(
                session, allocations, allocations.c[source.column], now)
        overdue, oldest = session.execute(
            sa.select(sa.func.count(), sa.func.min(events.c.time))
            .where(events.c.status == states.Event.UNDONE,
                   events.c.time <= now)).one()
        pending, deliveries = _outbox(session)
    return {'leases': {status or 'UNKNOWN': count
                       for status, count in by_status.items()},
            'degraded_leases': degraded or 0,
            'reservations': by_type,
            'missing_resources': missing or 0,
            'reservable': reservable, 'reserved': reserved,
            'overdue_events': overdue or 0,
            'oldest_overdue_event': oldest,
            'notifications_pending': pending,
            'deliveries': deliveries}


def _outbox(session) -> tuple:
    """(outbox events whose oslo.messaging notification is not sent
    yet, {webhook delivery status: n})."""
    outbox = outbox_models.OutboxEvent.__table__
    deliveries = outbox_models.Delivery.__table__
    pending = session.execute(
        sa.select(sa.func.count()).select_from(outbox)
        .where(outbox.c.notify_status.in_(outbox_api.OPEN))
    ).scalar()
    by_status = dict(session.execute(
        sa.select(deliveries.c.status, sa.func.count())
        .group_by(deliveries.c.status)).all())
    return pending or 0, by_status
