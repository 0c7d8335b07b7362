"""Picking free hosts and floating IPs for a window, and holding them.

Selection is one SQL statement per request: the candidates that match the
filters and have no allocation overlapping the window, ordered by id and
limited. Candidates are locked (SELECT ... FOR UPDATE) and, once locked,
checked again with a locking read, because a concurrent transaction may have
committed an allocation on them between our snapshot and our lock. A lost
race raises AllocationRace, and the caller's transaction is retried.
"""

import datetime
import threading

from oslo_utils import uuidutils
import sqlalchemy as sa

from blazar_ext.db.models import floatingip as fip_models
from blazar_ext.db.models import host as host_models
from blazar_ext.db.models import instance as instance_models
from blazar_ext.db.models import lease as lease_models
from blazar_ext.db import session as db_session
from blazar_ext import identity_cache

# Within one manager process, allocating transactions take turns: SQLite
# has no row locks, and on the other databases this only saves the
# database from deadlocks between our own threads. Across processes the
# row locks below do the work.
PROCESS_LOCK = threading.RLock()


class AllocationRace(Exception):
    """A chosen resource was taken by a concurrent transaction; retry."""


def is_retryable(exc: Exception) -> bool:
    """exception_checker for oslo.db's wrap_db_retry."""
    return isinstance(exc, AllocationRace)


def _host_overlap(start: datetime.datetime, end: datetime.datetime,
                  exclude_reservation_id: str | None):
    alloc = lease_models.ComputeHostAllocation
    cond = [alloc.start_date < end, alloc.end_date > start]
    if exclude_reservation_id:
        cond.append(alloc.reservation_id != exclude_reservation_id)
    return cond


def read(context, pick):
    """``pick(session)`` in a reader transaction: previews of what an
    allocation would choose, without holding anything."""
    with db_session.reader.using(context) as session:
        return pick(session)


def host_candidates(session, host_filter, start: datetime.datetime,
                    end: datetime.datetime, limit: int,
                    exclude_reservation_id: str | None = None,
                    among=None, exclude_hosts=None,
                    lock: bool = True) -> list:
    """Ids of up to ``limit`` free matching hosts, locked, in one query.

    ``start`` and ``end`` already include the cleaning time. ``lock=False``
    only looks (a preview): nothing is locked or rechecked.
    """
    statement = _candidates_statement(
        host_filter, bool(exclude_reservation_id), among is not None,
        bool(exclude_hosts), lock)
    params = {'start': start, 'end': end, 'limit': limit}
    if exclude_reservation_id:
        params['exclude_reservation_id'] = exclude_reservation_id
    if among is not None:
        params['among'] = list(among)
    if exclude_hosts:
        params['exclude_hosts'] = list(exclude_hosts)
    # A column query: the session's pending objects flushed, as the ORM
    # would, then run on its connection past the ORM's execution path.
    session.flush()
    ids = list(session.connection().execute(statement, params).scalars())
    if not lock:
        return ids
    if session.get_bind().dialect.name != 'sqlite':
        # SQLite: the writer transaction took the database's write lock
        # before it read (db.session._Writer), so no other writer can
        # have committed since; there is nothing to check again.
        _recheck_hosts(session, ids, start, end, exclude_reservation_id)
    return ids


# The candidates query of a host filter, per variant: a host filter is
# kept by db.api.host_filter and comes back for the same request, and its
# query with it, its window and limit bound at each run. Building the
# query, and SQLAlchemy's cache key of a new one, cost about as much as
# running it on SQLite (a lease create, 1,000 hosts).
_CANDIDATES = identity_cache.IdentityCache(256)


def _candidates_statement(host_filter, exclude_reservation: bool,
                          among: bool, exclude_hosts: bool,
                          lock: bool) -> sa.Select:
    return _CANDIDATES.get(
        host_filter, lambda: _candidates_query(
            host_filter, exclude_reservation, among, exclude_hosts, lock),
        exclude_reservation, among, exclude_hosts, lock)


def _candidates_query(host_filter, exclude_reservation: bool, among: bool,
                      exclude_hosts: bool, lock: bool) -> sa.Select:
    host = host_models.ComputeHost
    alloc = lease_models.ComputeHostAllocation
    start = sa.bindparam('start', type_=alloc.start_date.type)
    end = sa.bindparam('end', type_=alloc.end_date.type)
    overlap = [alloc.start_date < end, alloc.end_date > start]
    if exclude_reservation:
        overlap.append(alloc.reservation_id
                       != sa.bindparam('exclude_reservation_id'))
    busy = sa.exists(sa.select(sa.literal(1)).where(
        alloc.compute_host_id == host.id, *overlap))
    # Instance slots on a host and the whole host exclude each other.
    slots = instance_models.InstanceAllocation
    shared = sa.exists(sa.select(sa.literal(1)).where(
        slots.compute_host_id == host.id, slots.start_date < end,
        slots.end_date > start))
    query = sa.select(host.id).where(
        host.reservable == sa.true(), host.disabled == sa.false(),
        host_filter, ~busy, ~shared)
    if among:
        query = query.where(host.id.in_(
            sa.bindparam('among', expanding=True)))
    if exclude_hosts:
        query = query.where(host.id.not_in(
            sa.bindparam('exclude_hosts', expanding=True)))
    query = query.order_by(host.id).limit(
        sa.bindparam('limit', type_=sa.Integer))
    if lock:
        query = query.with_for_update()
    return query


def _recheck_hosts(session, ids, start, end, exclude_reservation_id) -> None:
    if not ids:
        return
    alloc = lease_models.ComputeHostAllocation
    taken = session.scalars(
        sa.select(alloc.compute_host_id).where(
            alloc.compute_host_id.in_(ids),
            *_host_overlap(start, end, exclude_reservation_id))
        .with_for_update(read=True)).first()
    if taken is not None:
        raise AllocationRace()
    slots = instance_models.InstanceAllocation
    if session.scalars(sa.select(slots.id).where(
            slots.compute_host_id.in_(ids), slots.start_date < end,
            slots.end_date > start).with_for_update(read=True)).first():
        raise AllocationRace()


def host_allocations_of(session, reservation_id: str) -> list:
    """Host ids allocated to one reservation."""
    alloc = lease_models.ComputeHostAllocation
    return list(session.scalars(
        sa.select(alloc.compute_host_id)
        .where(alloc.reservation_id == reservation_id)
        .order_by(alloc.compute_host_id)))


_INSERT_HOST_ALLOCATION = sa.insert(
    lease_models.ComputeHostAllocation.__table__)


def allocate_hosts(session, reservation_id: str, host_ids,
                   start: datetime.datetime, end: datetime.datetime) -> None:
    """Hold hosts for a reservation over [start, end] (the lease window),
    in one statement: rows, not ORM objects (whose flush also read back
    the generated start_us and end_us, which nothing uses)."""
    if host_ids:
        session.connection().execute(_INSERT_HOST_ALLOCATION, [
            {'id': uuidutils.generate_uuid(), 'compute_host_id': host_id,
             'reservation_id': reservation_id, 'start_date': start,
             'end_date': end} for host_id in host_ids])


def release_hosts(session, reservation_id: str, host_ids=None) -> None:
    """Drop a reservation's host allocations (all, or those listed)."""
    alloc = lease_models.ComputeHostAllocation
    stmt = sa.delete(alloc).where(alloc.reservation_id == reservation_id)
    if host_ids is not None:
        stmt = stmt.where(alloc.compute_host_id.in_(list(host_ids)))
    session.execute(stmt)


def move_window(session, reservation_ids, start: datetime.datetime,
                end: datetime.datetime) -> None:
    """Copy a lease's new window onto its allocations."""
    if not reservation_ids:
        return
    for model in (lease_models.ComputeHostAllocation,
                  fip_models.FloatingIPAllocation):
        session.execute(sa.update(model).where(
            model.reservation_id.in_(list(reservation_ids)))
            .values(start_date=start, end_date=end))


def floatingip_candidates(session, network_id: str, required: list,
                          start: datetime.datetime, end: datetime.datetime,
                          limit: int,
                          exclude_reservation_id: str | None = None,
                          lock: bool = True) -> list:
    """(id, address) of up to ``limit`` free floating IPs, required first.

    ``lock=False`` only looks (what enforcement is shown before anything
    is written): no row locks, no race check.
    """
    fip = fip_models.FloatingIP
    alloc = fip_models.FloatingIPAllocation
    cond = [alloc.floatingip_id == fip.id, alloc.start_date < end,
            alloc.end_date > start]
    if exclude_reservation_id:
        cond.append(alloc.reservation_id != exclude_reservation_id)
    busy = sa.exists(sa.select(sa.literal(1)).where(*cond))
    wanted = (fip.floating_ip_address.in_(required) if required
              else sa.false())
    query = (sa.select(fip.id, fip.floating_ip_address)
             .where(fip.floating_network_id == network_id,
                    fip.reservable == sa.true(), ~busy)
             .order_by(sa.case((wanted, 0), else_=1), fip.id)
             .limit(limit))
    if lock:
        query = query.with_for_update()
    rows = [tuple(r) for r in session.execute(query)]
    if rows and lock:
        taken = session.scalars(
            sa.select(alloc.floatingip_id).where(
                alloc.floatingip_id.in_([r[0] for r in rows]),
                *cond[1:]).with_for_update(read=True)).first()
        if taken is not None:
            raise AllocationRace()
    return rows


def allocate_floatingips(session, reservation_id: str, fip_ids,
                         start: datetime.datetime,
                         end: datetime.datetime) -> None:
    for fip_id in fip_ids:
        session.add(fip_models.FloatingIPAllocation(
            floatingip_id=fip_id, reservation_id=reservation_id,
            start_date=start, end_date=end))
    session.flush()


def floatingip_allocations_of(session, reservation_id: str) -> list:
    alloc = fip_models.FloatingIPAllocation
    return list(session.scalars(
        sa.select(alloc.floatingip_id)
        .where(alloc.reservation_id == reservation_id)))


def floatingip_allocation_list(context, reservation_id: str) -> list:
    """The ids of the floating IPs a reservation holds, in a transaction
    of its own (for readers outside the manager's transactions)."""
    with db_session.reader.using(context) as session:
        return floatingip_allocations_of(session, reservation_id)


def release_floatingips(session, reservation_id: str,
                        fip_ids=None) -> None:
    """Drop a reservation's floating IP allocations (all, or those
    listed)."""
    alloc = fip_models.FloatingIPAllocation
    stmt = sa.delete(alloc).where(alloc.reservation_id == reservation_id)
    if fip_ids is not None:
        stmt = stmt.where(alloc.floatingip_id.in_(list(fip_ids)))
    session.execute(stmt)


def host_allocation_list(context, lease_id: str | None = None,
                         reservation_id: str | None = None,
                         host_id: str | None = None,
                         project_id: str | None = None) -> dict:
    """{host_id: [{'id': reservation_id, 'lease_id': ...}]} for the
    os-hosts allocation routes, in one query."""
    alloc = lease_models.ComputeHostAllocation
    res = lease_models.Reservation
    lease = lease_models.Lease
    query = (sa.select(alloc.compute_host_id, res.id, res.lease_id)
             .join(res, res.id == alloc.reservation_id)
             .join(lease, lease.id == res.lease_id)
             .order_by(alloc.compute_host_id, alloc.start_date))
    if lease_id:
        query = query.where(res.lease_id == lease_id)
    if reservation_id:
        query = query.where(res.id == reservation_id)
    if host_id is not None:
        query = query.where(alloc.compute_host_id == host_id)
    if project_id is not None:
        query = query.where(lease.project_id == project_id)
    out: dict = {}
    with db_session.reader.using(context) as session:
        for h_id, r_id, l_id in session.execute(query):
            out.setdefault(h_id, []).append({'id': r_id, 'lease_id': l_id})
    return out


def _windows(session, alloc, resource_column, resources: list,
             lease_id: str | None, reservation_id: str | None,
             ending_after: datetime.datetime | None) -> dict:
    """{resource id: [{id, lease_id, start_date, end_date}]} with every
    resource of ``resources`` as a key; the dates are the lease's."""
    res = lease_models.Reservation
    lease = lease_models.Lease
    query = (sa.select(resource_column, res.id, res.lease_id,
                       lease.start_date, lease.end_date)
             .join(res, res.id == alloc.reservation_id)
             .join(lease, lease.id == res.lease_id)
             .where(resource_column.in_(resources))
             .order_by(resource_column, lease.start_date, res.id))
    if lease_id:
        query = query.where(res.lease_id == lease_id)
    if reservation_id:
        query = query.where(res.id == reservation_id)
    if ending_after is not None:
        query = query.where(lease.end_date >= ending_after)
    out: dict = {r: [] for r in resources}
    for r_id, res_id, l_id, start, end in session.execute(query):
        held = out[r_id]
        # A reservation may hold a resource in several allocation rows.
        if not held or held[-1]['id'] != res_id:
            held.append({'id': res_id, 'lease_id': l_id,
                         'start_date': start, 'end_date': end})
    return out


def host_allocation_windows(context, lease_id: str | None = None,
                            reservation_id: str | None = None,
                            host_id=None,
                            ending_after: datetime.datetime | None = None
                            ) -> dict:
    """Every host (or ``host_id``) with the reservations holding it, as
    Blazar's allocation routes list them; idle hosts map to []."""
    alloc = lease_models.ComputeHostAllocation
    host = host_models.ComputeHost
    with db_session.reader.using(context) as session:
        hosts = ([host_id] if host_id is not None else list(
            session.scalars(sa.select(host.id).order_by(host.id))))
        return _windows(session, alloc, alloc.compute_host_id, hosts,
                        lease_id, reservation_id, ending_after)


def floatingip_allocation_windows(context, lease_id: str | None = None,
                                  reservation_id: str | None = None,
                                  fip_id: str | None = None,
                                  ending_after: datetime.datetime | None
                                  = None) -> dict:
    """As host_allocation_windows, for floating IPs."""
    alloc = fip_models.FloatingIPAllocation
    fip = fip_models.FloatingIP
    with db_session.reader.using(context) as session:
        fips = ([fip_id] if fip_id is not None else list(
            session.scalars(sa.select(fip.id).order_by(fip.created_at,
                                                       fip.id))))
        return _windows(session, alloc, alloc.floatingip_id, fips,
                        lease_id, reservation_id, ending_after)


def host_has_allocations_after(session, host_id: str,
                               now: datetime.datetime) -> bool:
    """True while the host has a current or future allocation."""
    alloc = lease_models.ComputeHostAllocation
    return session.scalars(
        sa.select(alloc.id).where(alloc.compute_host_id == host_id,
                                  alloc.end_date > now).limit(1)
        .with_for_update(read=True)).first() is not None


def floatingip_has_allocations_after(session, fip_id: str,
                                     now: datetime.datetime) -> bool:
    alloc = fip_models.FloatingIPAllocation
    return session.scalars(
        sa.select(alloc.id).where(alloc.floatingip_id == fip_id,
                                  alloc.end_date > now).limit(1)).first() \
        is not None
