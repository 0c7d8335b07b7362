"""Reservations holding resources that are out of service.

A host or floating IP taken out of service (``reservable`` false) keeps
its allocations until healing moves them: each reservation gets a
replacement satisfying the same request for the rest of its window, or is
flagged ``missing_resources`` (its lease ``degraded``) where none fits.
Finding them is one query per resource type; moving them happens in one
writer transaction under the lease row locks, so two managers never heal
the same reservation twice.
"""

import datetime

from oslo_db import api as oslo_db_api
import sqlalchemy as sa

from blazar_ext.db.api import allocation as allocation_api
from blazar_ext.db.api import lease as lease_api
from blazar_ext.db.models import floatingip as fip_models
from blazar_ext.db.models import host as host_models
from blazar_ext.db.models import lease as models
from blazar_ext.db import session as db_session

# Leases whose reservations still hold resources.
LIVE_STATUSES = ('PENDING', 'STARTING', 'ACTIVE', 'UPDATING')

HOST_TYPE = 'physical:host'
FLOATINGIP_TYPE = 'virtual:floatingip'


def _lost_queries(now: datetime.datetime, host_ids=None, fip_ids=None,
                  lease_ids=None) -> list:
    """SELECT (resource_type, reservation_id, lease_id, resource_id) of
    the allocations on resources out of service, window not over."""
    queries = []
    for resource_type, alloc, resource, column, only in (
            (HOST_TYPE, models.ComputeHostAllocation,
             host_models.ComputeHost, 'compute_host_id', host_ids),
            (FLOATINGIP_TYPE, fip_models.FloatingIPAllocation,
             fip_models.FloatingIP, 'floatingip_id', fip_ids)):
        resource_id = getattr(alloc, column)
        query = (
            sa.select(sa.literal(resource_type), alloc.reservation_id,
                      models.Reservation.lease_id, resource_id)
            .join(resource, resource.id == resource_id)
            .join(models.Reservation,
                  models.Reservation.id == alloc.reservation_id)
            .join(models.Lease, models.Lease.id == models.Reservation.lease_id)
            .where(resource.reservable == sa.false(), alloc.end_date > now,
                   models.Lease.status.in_(LIVE_STATUSES)))
        if only is not None:
            if not only:
                continue
            query = query.where(resource_id.in_(list(only)))
        if lease_ids is not None:
            query = query.where(models.Lease.id.in_(list(lease_ids)))
        queries.append(query)
    return queries


def leases_to_heal(context, now: datetime.datetime, host_ids=None,
                   fip_ids=None, retry_missing: bool = False) -> list:
    """Ids of the live leases with an allocation on a resource out of
    service (of ``host_ids``/``fip_ids`` when given), plus, with
    ``retry_missing``, those with a reservation missing resources."""
    found = set()
    with db_session.reader.using(context) as session:
        for query in _lost_queries(now, host_ids, fip_ids):
            found.update(row[2] for row in session.execute(query))
        if retry_missing:
            found.update(session.scalars(
                sa.select(models.Reservation.lease_id)
                .join(models.Lease,
                      models.Lease.id == models.Reservation.lease_id)
                .where(models.Reservation.missing_resources == sa.true(),
                       models.Lease.status.in_(LIVE_STATUSES))))
    return sorted(found)


def leases_get(context, lease_ids) -> list:
    """The leases of ``lease_ids`` that exist, with reservations and
    events, in four queries (for the notifications)."""
    with db_session.reader.using(context) as session:
        return lease_api._to_dicts(session, list(session.scalars(
            sa.select(models.Lease).where(
                models.Lease.id.in_(list(lease_ids)))
            .order_by(models.Lease.id))))


def degraded_lease_ids(context) -> list:
    with db_session.reader.using(context) as session:
        return list(session.scalars(sa.select(models.Lease.id).where(
            models.Lease.degraded == sa.true())))


@oslo_db_api.wrap_db_retry(
    max_retries=10, retry_on_deadlock=True, retry_interval=0.05,
    max_retry_interval=0.5, inc_retry_interval=True,
    exception_checker=allocation_api.is_retryable)
def heal_leases(context, lease_ids, now: datetime.datetime, heal) -> list:
    """Move or flag every reservation of ``lease_ids`` that holds a
    resource out of service or is flagged missing resources.

    ``heal(session, reservation, lost_ids, start, end)`` is the resource
    type's: it holds replacements for the ``lost_ids`` over [start, end]
    and releases those it replaced, returning {lost id: new id or None}.
    Returns one outcome per lease touched: {'lease_id', 'replaced':
    [{'reservation_id', 'resource_type', 'from', 'to'}], 'missing' and
    'newly_missing': [reservation ids], 'degraded', 'was_degraded'}.
    """
    if not lease_ids:
        return []
    with allocation_api.PROCESS_LOCK, \
            db_session.writer.using(context) as session:
        # Row locks in id order: the lease's writers (update, delete,
        # events, another manager's healing) wait for us, and we for them.
        leases = list(session.scalars(
            sa.select(models.Lease)
            .where(models.Lease.id.in_(sorted(lease_ids)),
                   models.Lease.status.in_(LIVE_STATUSES))
            .order_by(models.Lease.id).with_for_update()
            .execution_options(populate_existing=True)))
        if not leases:
            return []
        by_id = {lease.id: lease for lease in leases}
        lost: dict = {}
        for query in _lost_queries(now, lease_ids=list(by_id)):
            for resource_type, res_id, _lease_id, resource_id in \
                    session.execute(query):
                lost.setdefault(res_id, []).append(resource_id)
        rows = list(session.scalars(
            sa.select(models.Reservation)
            .where(models.Reservation.lease_id.in_(list(by_id)),
                   sa.or_(models.Reservation.id.in_(list(lost)),
                          models.Reservation.missing_resources ==
                          sa.true()))
            .order_by(models.Reservation.lease_id, models.Reservation.id)))
        details = lease_api._reservation_details(session,
                                                 [r.id for r in rows])
        outcomes = {}
        for row in rows:
            lease = by_id[row.lease_id]
            outcome = outcomes.setdefault(lease.id, {
                'lease_id': lease.id, 'replaced': [], 'missing': [],
                'newly_missing': [], 'was_degraded': bool(lease.degraded)})
            _heal_one(session, row, details.get(row.id, {}),
                      sorted(lost.get(row.id, [])), lease, now, heal,
                      outcome)
        for lease_id, outcome in outcomes.items():
            lease = by_id[lease_id]
            lease.degraded = bool(session.scalar(
                sa.select(sa.func.count(models.Reservation.id)).where(
                    models.Reservation.lease_id == lease_id,
                    models.Reservation.missing_resources == sa.true())))
            outcome['degraded'] = lease.degraded
        session.flush()
        session.info.pop('heal_host_filters', None)
        return [outcomes[k] for k in sorted(outcomes)]


def _heal_one(session, row, detail: dict, lost: list, lease,
              now: datetime.datetime, heal, outcome: dict) -> None:
    result = {}
    if lost:
        reservation = dict(row.to_dict(), **detail)
        # Active: from now on; future: its whole window.
        start = max(lease.start_date, now.replace(microsecond=0))
        result = heal(session, reservation, lost, start, lease.end_date)
    missing = any(result.get(old) is None for old in lost)
    for old in lost:
        if result.get(old) is not None:
            outcome['replaced'].append({
                'reservation_id': row.id, 'resource_type': row.resource_type,
                'from': old, 'to': result[old]})
            row.resources_changed = True
    if missing:
        outcome['missing'].append(row.id)
        if not row.missing_resources:
            outcome['newly_missing'].append(row.id)
    row.missing_resources = missing
