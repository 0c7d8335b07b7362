"""Reservations holding resources that are out of service.

A host or floating IP taken out of service (``reservable`` false) keeps
its allocations until healing moves them: each reservation gets a
replacement satisfying the same request for the rest of its window, or is
flagged ``missing_resources`` (its lease ``degraded``) where none fits.
Finding them is one query per resource type; moving them happens in one
writer transaction under the lease row locks, so two managers never heal
the same reservation twice.
"""

import collections
import datetime

import sqlalchemy as sa

from blazar_ext.db.api import allocation as allocation_api
from blazar_ext.db.api import lease as lease_api
from blazar_ext.db.models import host as host_models
from blazar_ext.db.models import instance as instance_models
from blazar_ext.db.models import lease as models
from blazar_ext.db import session as db_session

# Leases whose reservations still hold resources.
LIVE_STATUSES = ('PENDING', 'STARTING', 'ACTIVE', 'UPDATING')


class LostSource(collections.namedtuple(
        'LostSource', 'resource_type allocation resource column')):
    """Where reservations hold resources that can go out of service: the
    lost resource's type, the allocation model, the resource model (with
    a ``reservable`` column) and the allocation's column naming the
    resource. Resource-type plugins declare theirs (``lost_sources``)."""


def _lost_queries(sources, now: datetime.datetime, lost=None,
                  lease_ids=None) -> list:
    """SELECT (resource_type, reservation_id, lease_id, resource_id) of
    the allocations on resources out of service, window not over, one per
    source. ``lost`` {resource type: ids}: only those (None: all)."""
    queries = []
    for source in dict.fromkeys(sources):
        alloc, resource = source.allocation, source.resource
        only = None if lost is None else lost.get(source.resource_type, ())
        if only is not None and not only:
            continue
        resource_id = getattr(alloc, source.column)
        query = (
            sa.select(models.Reservation.resource_type, alloc.reservation_id,
                      models.Reservation.lease_id, resource_id)
            .join(resource, resource.id == resource_id)
            .join(models.Reservation,
                  models.Reservation.id == alloc.reservation_id)
            .join(models.Lease, models.Lease.id == models.Reservation.lease_id)
            .where(resource.reservable == sa.false(), alloc.end_date > now,
                   models.Lease.status.in_(LIVE_STATUSES)))
        if only is not None:
            query = query.where(resource_id.in_(list(only)))
        if lease_ids is not None:
            query = query.where(models.Lease.id.in_(list(lease_ids)))
        queries.append(query)
    return queries


def leases_to_heal(context, now: datetime.datetime, sources: list,
                   lost: dict | None = None,
                   retry_missing: bool = False) -> list:
    """Ids of the live leases with an allocation on a resource out of
    service (of ``lost`` {resource type: ids} when given), through the
    ``sources`` (LostSource) of the enabled types, plus, with
    ``retry_missing``, those with a reservation missing resources."""
    found = set()
    with db_session.reader.using(context) as session:
        for query in _lost_queries(sources, now, lost):
            found.update(row[2] for row in session.execute(query))
        if retry_missing:
            found.update(session.scalars(
                sa.select(models.Reservation.lease_id)
                .join(models.Lease,
                      models.Lease.id == models.Reservation.lease_id)
                .where(models.Reservation.missing_resources == sa.true(),
                       models.Lease.status.in_(LIVE_STATUSES))))
    return sorted(found)


@lease_api.retry
def heal_leases(context, lease_ids, now: datetime.datetime, heal,
                sources: list, record=None) -> list:
    """Move or flag every reservation of ``lease_ids`` that holds a
    resource out of service or is flagged missing resources.

    ``heal(session, resource_type, items)`` is the resource type's: for
    each (reservation, lost_ids, start, end) of ``items`` it holds
    replacements for the ``lost_ids`` over [start, end] and releases those
    it replaced, returning one {lost id: new id or None} per item, in
    order. ``sources``: the LostSource entries of the enabled types.
    Returns one outcome per lease touched: {'lease_id',
    'replaced': [{'reservation_id', 'resource_type', 'from', 'to'}],
    'missing' and 'newly_missing': [reservation ids], 'degraded',
    'was_degraded'}. ``record(session, outcomes)``, if given, runs last in
    the transaction (the outbox events of the outcomes).
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
        for query in _lost_queries(sources, now, lease_ids=list(by_id)):
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
        results = _heal_by_type(session, rows, lost, by_id, now, heal)
        outcomes = {}
        for row in rows:
            lease = by_id[row.lease_id]
            outcome = outcomes.setdefault(lease.id, {
                'lease_id': lease.id, 'replaced': [], 'missing': [],
                'newly_missing': [], 'was_degraded': bool(lease.degraded)})
            _record(row, sorted(lost.get(row.id, [])),
                    results.get(row.id, {}), outcome)
        session.flush()
        missing = set(session.scalars(
            sa.select(models.Reservation.lease_id).where(
                models.Reservation.lease_id.in_(list(outcomes)),
                models.Reservation.missing_resources == sa.true())))
        for lease_id, outcome in outcomes.items():
            by_id[lease_id].degraded = lease_id in missing
            outcome['degraded'] = lease_id in missing
        session.flush()
        # Compiled requests are good for this transaction only.
        session.info.pop('heal_host_filters', None)
        result = [outcomes[k] for k in sorted(outcomes)]
        if record is not None:
            record(session, result)
        return result


def _heal_by_type(session, rows, lost: dict, by_id: dict,
                  now: datetime.datetime, heal) -> dict:
    """{reservation id: {lost id: new id or None}}, each resource type's
    reservations handed to ``heal`` together."""
    items: dict = {}
    for row in rows:
        if not lost.get(row.id):
            continue
        lease = by_id[row.lease_id]
        # Active: from now on; future: its whole window.
        start = max(lease.start_date, now.replace(microsecond=0))
        items.setdefault(row.resource_type, []).append(
            (row.to_dict(),  # the heal hook adds the type's detail
             sorted(lost[row.id]), start, lease.end_date))
    results = {}
    for resource_type, batch in items.items():
        for item, result in zip(batch, heal(session, resource_type, batch)):
            results[item[0]['id']] = result
    session.flush()
    return results


def _record(row, lost: list, result: dict, outcome: dict) -> None:
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


# Replacement hosts, many at once.

# SQLite allows 500 terms in a compound SELECT.
_WINDOWS_PER_QUERY = 200


def first_free_hosts(session, host_filter, windows: list) -> dict:
    """{key: a host in service matching ``host_filter`` and free over
    [low, high], or None} for each (key, low, high) of ``windows``.

    One statement per 200 windows: the windows as a derived table, each
    with a correlated subquery taking the first free host (no ORDER BY,
    so the database stops at the first one it meets). The windows are
    not checked against each other: the caller does, for overlapping
    windows may be given the same host.
    """
    host = host_models.ComputeHost
    alloc = models.ComputeHostAllocation
    found = {}
    for n in range(0, len(windows), _WINDOWS_PER_QUERY):
        chunk = windows[n:n + _WINDOWS_PER_QUERY]
        selects = [sa.select(sa.literal(str(key), sa.String).label('k'),
                             sa.literal(low, sa.DateTime).label('low'),
                             sa.literal(high, sa.DateTime).label('high'))
                   for key, low, high in chunk]
        w = (sa.union_all(*selects) if len(selects) > 1
             else selects[0]).subquery('w')
        # Correlated to both the host and the window (two levels up).
        busy = sa.exists(sa.select(sa.literal(1)).where(
            alloc.compute_host_id == host.id, alloc.start_date < w.c.high,
            alloc.end_date > w.c.low).correlate_except(alloc))
        pick = (sa.select(host.id)
                .where(host.reservable == sa.true(),
                       host.disabled == sa.false(), host_filter, ~busy)
                .limit(1).correlate(w).scalar_subquery())
        keys = {str(key): key for key, _low, _high in chunk}
        for key, host_id in session.execute(sa.select(w.c.k, pick)):
            found[keys[key]] = host_id
    return found


def hold_hosts(session, picks: list) -> None:
    """Lock the hosts of ``picks`` [(host id, low, high)] and make sure
    nothing committed meanwhile overlaps: AllocationRace otherwise (the
    transaction is retried), as the allocation path does."""
    if not picks:
        return
    host = host_models.ComputeHost
    alloc = models.ComputeHostAllocation
    session.execute(sa.select(host.id).where(
        host.id.in_(sorted({h for h, _low, _high in picks})))
        .order_by(host.id).with_for_update())
    for n in range(0, len(picks), _WINDOWS_PER_QUERY):
        overlap = sa.or_(*[
            sa.and_(alloc.compute_host_id == h, alloc.start_date < high,
                    alloc.end_date > low)
            for h, low, high in picks[n:n + _WINDOWS_PER_QUERY]])
        if session.scalars(sa.select(alloc.compute_host_id).where(overlap)
                           .limit(1).with_for_update(read=True)).first():
            raise allocation_api.AllocationRace()


def move_host_allocations(session, moves: list) -> None:
    """Each (reservation id, lost host, new host, start, end) of
    ``moves``: the lost host's allocation released, the new one held."""
    if not moves:
        return
    alloc = models.ComputeHostAllocation
    by_lost: dict = {}
    for reservation_id, old, _new, _start, _end in moves:
        by_lost.setdefault(old, []).append(reservation_id)
    for old, reservation_ids in by_lost.items():
        session.execute(sa.delete(alloc).where(
            alloc.compute_host_id == old,
            alloc.reservation_id.in_(reservation_ids)))
    session.execute(sa.insert(alloc), [
        {'compute_host_id': new, 'reservation_id': reservation_id,
         'start_date': start, 'end_date': end}
        for reservation_id, _old, new, start, end in moves])


def move_instance_slots(session, reservation_id: str, lost: list,
                        added: dict, size: dict, start: datetime.datetime,
                        end: datetime.datetime) -> None:
    """A virtual:instance reservation leaves the ``lost`` hosts: their
    allocations go, and ``added`` {host: slots} is held over [start, end]
    (on a host it already holds, its row grows)."""
    alloc = instance_models.InstanceAllocation
    session.execute(sa.delete(alloc).where(
        alloc.reservation_id == reservation_id,
        alloc.compute_host_id.in_(list(lost))))
    held = dict(session.execute(
        sa.select(alloc.compute_host_id, alloc.id).where(
            alloc.reservation_id == reservation_id)).all())
    for host_id, slots in sorted(added.items()):
        if host_id in held:
            session.execute(sa.update(alloc).where(
                alloc.id == held[host_id]).values(slots=alloc.slots + slots))
        else:
            session.add(alloc(
                compute_host_id=host_id, reservation_id=reservation_id,
                slots=slots, vcpus=size['vcpus'],
                memory_mb=size['memory_mb'], disk_gb=size['disk_gb'],
                start_date=start, end_date=end))
    session.flush()
