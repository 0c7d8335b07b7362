"""Maintenance windows of hosts and floating IPs (issue 30).

A window holds its resource through a lease of its own (status
MAINTENANCE, one reservation of the resource's type, an allocation over
the window), so the allocation path books nothing new on the resource for
the window; the reservations already there are handed to healing ahead
of time, in the transaction that writes the window. Healing never touches
the hold: its status is not a live one. What is type-specific (the
window's column, the hold's detail and allocation, where reservations
hold the resource) comes from the type's plugin.
"""

import datetime

import sqlalchemy as sa

from blazar_ext.db.api import allocation as allocation_api
from blazar_ext.db.api import healing as healing_api
from blazar_ext.db.api import lease as lease_api
from blazar_ext.db.models import lease as lease_models
from blazar_ext.db.models import maintenance as models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions

SCHEDULED = 'scheduled'
ACTIVE = 'active'
DONE = 'done'
CANCELLED = 'cancelled'
# The hold lease's status: not live, so no healing, no events, no update.
HOLD_STATUS = 'MAINTENANCE'

_WINDOW = models.MaintenanceWindow
_LEASE = lease_models.Lease
_RES = lease_models.Reservation


class DryRun(Exception):
    """Rolls back a dry run's transaction, carrying its answer."""

    def __init__(self, result):
        super().__init__('dry run')
        self.result = result


# Reading

def window_get(context, window_id: str) -> dict:
    with db_session.reader.using(context) as session:
        row = session.get(_WINDOW, window_id)
        if row is None:
            raise exceptions.MaintenanceNotFound(maintenance=window_id)
        return row.to_dict()


def window_list(context, column: str | None = None,
                resource_id: str | None = None) -> list:
    """Every window, or those whose ``column`` (a resource type's) is
    ``resource_id``."""
    query = sa.select(_WINDOW).order_by(_WINDOW.start_date, _WINDOW.id)
    if column is not None:
        query = query.where(getattr(_WINDOW, column) == resource_id)
    with db_session.reader.using(context) as session:
        return [row.to_dict() for row in session.scalars(query)]


def windows_due(context, now: datetime.datetime) -> list:
    """(window id, status) of the windows to start or to end at ``now``."""
    with db_session.reader.using(context) as session:
        return [tuple(row) for row in session.execute(
            sa.select(_WINDOW.id, _WINDOW.status).where(sa.or_(
                sa.and_(_WINDOW.status == SCHEDULED,
                        _WINDOW.start_date <= now),
                sa.and_(_WINDOW.status == ACTIVE,
                        _WINDOW.end_date <= now)))
            .order_by(_WINDOW.start_date))]


def window_advance(context, window_id: str, from_status: str,
                   to_status: str) -> dict | None:
    """Move the window from ``from_status`` to ``to_status``; the window
    if this caller did it (one guarded UPDATE: of two managers, one)."""
    with db_session.writer.using(context) as session:
        result = session.execute(
            sa.update(_WINDOW)
            .where(_WINDOW.id == window_id, _WINDOW.status == from_status)
            .values(status=to_status)
            .execution_options(synchronize_session=False))
        if result.rowcount != 1:
            return None
        return session.get(_WINDOW, window_id).to_dict()


# Writing: the manager's allocating transaction.

def window_lock(session, window_id: str) -> dict:
    row = session.scalars(
        sa.select(_WINDOW).where(_WINDOW.id == window_id).with_for_update()
        .execution_options(populate_existing=True)).first()
    if row is None:
        raise exceptions.MaintenanceNotFound(maintenance=window_id)
    return row.to_dict()


def window_insert(session, values: dict) -> str:
    row = _WINDOW(**values)
    session.add(row)
    session.flush()
    return row.id


def window_set(session, window_id: str, values: dict) -> None:
    session.execute(sa.update(_WINDOW).where(_WINDOW.id == window_id)
                    .values(**values)
                    .execution_options(synchronize_session=False))


def lock_resource(session, model, resource_id: str) -> bool:
    """The resource row (``model``: a host, a floating IP), locked as the
    allocation path locks candidates: nothing is booked on it while the
    window is written. False if it is gone."""
    return session.scalar(
        sa.select(model.id).where(model.id == resource_id)
        .with_for_update()) is not None


def overlapping(session, sources: list, resource_id: str,
                start: datetime.datetime, end: datetime.datetime,
                now: datetime.datetime) -> list:
    """(reservation row dict, lease start, lease end) of the live
    reservations holding ``resource_id`` (whole or in part) over part of
    [start, end], through the ``sources`` (healing LostSource entries of
    the resource's type), their leases locked in id order."""
    found = {}
    for source in sources:
        alloc = source.allocation
        query = (sa.select(_RES.id, _RES.lease_id)
                 .join(alloc, alloc.reservation_id == _RES.id)
                 .join(_LEASE, _LEASE.id == _RES.lease_id)
                 .where(getattr(alloc, source.column) == resource_id,
                        alloc.start_date < end, alloc.end_date > start,
                        alloc.end_date > now,
                        _LEASE.status.in_(healing_api.LIVE_STATUSES)))
        found.update(dict(session.execute(query).all()))
    if not found:
        return []
    leases = {lease.id: lease for lease in session.scalars(
        sa.select(_LEASE).where(_LEASE.id.in_(sorted(set(found.values()))))
        .order_by(_LEASE.id).with_for_update()
        .execution_options(populate_existing=True))}
    rows = session.scalars(sa.select(_RES).where(
        _RES.id.in_(sorted(found))).order_by(_RES.lease_id, _RES.id))
    return [(row.to_dict(), leases[row.lease_id].start_date,
             leases[row.lease_id].end_date) for row in rows
            if row.lease_id in leases]


def flag_changed(session, reservation_ids: list) -> None:
    if reservation_ids:
        session.execute(sa.update(_RES).where(_RES.id.in_(reservation_ids))
                        .values(resources_changed=True)
                        .execution_options(synchronize_session=False))


def hold_insert(session, lease_values: dict, resource_type: str,
                hold) -> str:
    """The hold lease of a window and its reservation of
    ``resource_type``, whose detail and allocation ``hold(session,
    reservation id)`` writes (returning the detail's id)."""
    lease_id = lease_api.lease_insert(session, dict(lease_values,
                                                    status=HOLD_STATUS))
    reservation_id = lease_api.reservation_insert(
        session, lease_id, resource_type, 'pending')
    lease_api.reservation_set_resource(session, reservation_id,
                                       hold(session, reservation_id))
    return lease_id


def hold_move(session, lease_id: str, start: datetime.datetime,
              end: datetime.datetime) -> None:
    """The hold lease and its allocation over a new window."""
    lease_api.lease_set(session, lease_id, {'start_date': start,
                                            'end_date': end})
    ids = list(session.scalars(sa.select(_RES.id).where(
        _RES.lease_id == lease_id)))
    allocation_api.move_window(session, ids, start, end)


def hold_release(session, lease_id: str, release) -> None:
    """The hold's allocation dropped (``release(session, reservation
    ids)``, its type's): the resource is free again for the window (the
    hold lease stays, as a record)."""
    ids = list(session.scalars(sa.select(_RES.id).where(
        _RES.lease_id == lease_id)))
    if ids:
        release(session, ids)
    lease_api.lease_set(session, lease_id, {'status': 'TERMINATED'})
