"""virtual:instance reservations: detail rows, host capacity and load,
and the slots held.

A host's capacity per resource class is (total - reserved) x
allocation_ratio of its provider's inventory (VCPU, MEMORY_MB, DISK_GB).
Its load over a window is the peak, over the window, of the instance
allocations on it: the sum at the moment the most overlap, not the sum of
every allocation that touches the window.
"""

import datetime

import sqlalchemy as sa

from blazar_ext.db.api import allocation as allocation_api
from blazar_ext.db.models import host as host_models
from blazar_ext.db.models import instance as models
from blazar_ext.db.models import lease as lease_models
from blazar_ext.db.models import placement as placement_models

# (resource class, size column of a request and of an allocation)
RESOURCES = (('VCPU', 'vcpus'), ('MEMORY_MB', 'memory_mb'),
             ('DISK_GB', 'disk_gb'))
COLUMNS = ('vcpus', 'memory_mb', 'disk_gb', 'amount', 'affinity',
           'resource_properties', 'flavor_id', 'server_group_id')


# Detail rows

def _values(spec: dict) -> dict:
    return {name: spec.get(name) for name in COLUMNS}


def add(session, reservation_id: str, spec: dict) -> str:
    detail = models.InstanceReservation(reservation_id=reservation_id,
                                        **_values(spec))
    session.add(detail)
    session.flush()
    return detail.id


def update(session, reservation_id: str, spec: dict) -> None:
    detail = models.InstanceReservation
    session.execute(sa.update(detail).where(
        detail.reservation_id == reservation_id).values(**_values(spec)))


def details(session, reservation_ids: list) -> dict:
    """{reservation_id: detail dict}, one Core query."""
    table = models.InstanceReservation.__table__
    out = {}
    for row in session.execute(
            sa.select(table.c.reservation_id,
                      *[table.c[name] for name in COLUMNS])
            .where(table.c.reservation_id.in_(reservation_ids))):
        values = dict(row._mapping)
        values['resource_properties'] = values['resource_properties'] or ''
        out[values.pop('reservation_id')] = values
    return out


def delete(session, reservation_ids: list) -> None:
    for model in (models.InstanceReservation, models.InstanceAllocation):
        session.execute(sa.delete(model).where(
            model.reservation_id.in_(reservation_ids)))


# Capacity and load

def _capacities():
    """Per provider: the usable amount of each resource class."""
    inv = placement_models.Inventory
    rc = placement_models.ResourceClass
    usable = (inv.total - inv.reserved) * inv.allocation_ratio
    columns = [sa.func.sum(sa.case((rc.name == name, usable), else_=0))
               .label('cap_' + column) for name, column in RESOURCES]
    return (sa.select(inv.resource_provider_id, *columns)
            .join(rc, rc.id == inv.resource_class_id)
            .where(rc.name.in_([name for name, _c in RESOURCES]))
            .group_by(inv.resource_provider_id).subquery('caps'))


def _peaks(start: datetime.datetime, end: datetime.datetime,
           exclude_reservation_id: str | None):
    """Per host: the peak load of each resource over [start, end].

    The sum of the allocations overlapping [start, end] is largest at one
    of the moments an allocation starts (or at ``start``): one self-join
    evaluates the load at each such moment, and the peak is the largest.
    """
    alloc = models.InstanceAllocation
    cond = [alloc.start_date < end, alloc.end_date > start]
    if exclude_reservation_id:
        cond.append(alloc.reservation_id != exclude_reservation_id)
    moment = sa.case((alloc.start_date > start, alloc.start_date),
                     else_=start)
    moments = (sa.select(alloc.compute_host_id.label('host_id'),
                         moment.label('at'))
               .where(*cond).distinct().subquery('moments'))
    other = sa.orm.aliased(alloc)
    other_cond = [other.start_date < end, other.end_date > start]
    if exclude_reservation_id:
        other_cond.append(other.reservation_id != exclude_reservation_id)
    loads = (sa.select(moments.c.host_id, *[
        sa.func.sum(other.slots * getattr(other, column)).label(column)
        for _name, column in RESOURCES])
        .join(other, sa.and_(other.compute_host_id == moments.c.host_id,
                             other.start_date <= moments.c.at,
                             other.end_date > moments.c.at, *other_cond))
        .group_by(moments.c.host_id, moments.c.at).subquery('loads'))
    return (sa.select(loads.c.host_id, *[
        sa.func.max(loads.c[column]).label('peak_' + column)
        for _name, column in RESOURCES])
        .group_by(loads.c.host_id).subquery('peaks'))


def host_room(session, host_filter, start: datetime.datetime,
              end: datetime.datetime,
              exclude_reservation_id: str | None = None,
              among=None) -> list:
    """[(host id, {column: room}, {column: peak})] for the in-service
    hosts matching ``host_filter`` that no physical:host reservation holds
    in the window: room is capacity minus peak load per resource. One
    query."""
    host = host_models.ComputeHost
    caps = _capacities()
    peaks = _peaks(start, end, exclude_reservation_id)
    held = lease_models.ComputeHostAllocation
    whole_host = sa.exists(sa.select(sa.literal(1)).where(
        held.compute_host_id == host.id, held.start_date < end,
        held.end_date > start))
    query = (sa.select(host.id, *[
        caps.c['cap_' + column] for _name, column in RESOURCES], *[
        sa.func.coalesce(peaks.c['peak_' + column], 0)
        for _name, column in RESOURCES])
        .join(caps, caps.c.resource_provider_id == host.resource_provider_id)
        .outerjoin(peaks, peaks.c.host_id == host.id)
        .where(host.reservable == sa.true(), host.disabled == sa.false(),
               host_filter, ~whole_host)
        .order_by(host.id))
    if among is not None:
        query = query.where(host.id.in_(list(among)))
    out = []
    for row in session.execute(query):
        caps_of = {c: float(row[i + 1] or 0)
                   for i, (_n, c) in enumerate(RESOURCES)}
        peak_of = {c: float(row[i + 1 + len(RESOURCES)] or 0)
                   for i, (_n, c) in enumerate(RESOURCES)}
        out.append((row[0], {c: caps_of[c] - peak_of[c] for c in caps_of},
                    peak_of))
    return out


def lock_and_recheck(session, room: dict, start: datetime.datetime,
                     end: datetime.datetime, exclude_reservation_id: str
                     ) -> None:
    """Lock the chosen hosts' rows and read their allocations again with
    locking reads; AllocationRace (retried) if any host's peak load grew
    since it was read ({host: {column: peak seen}}): another manager took
    room meanwhile."""
    if not room:
        return
    host = host_models.ComputeHost
    list(session.scalars(sa.select(host.id).where(
        host.id.in_(list(room))).order_by(host.id).with_for_update()))
    held = lease_models.ComputeHostAllocation
    if session.scalars(sa.select(held.id).where(
            held.compute_host_id.in_(list(room)), held.start_date < end,
            held.end_date > start).with_for_update(read=True)).first():
        raise allocation_api.AllocationRace()
    alloc = models.InstanceAllocation
    rows = session.execute(sa.select(
        alloc.compute_host_id, alloc.slots, alloc.start_date,
        alloc.end_date, *[getattr(alloc, c) for _n, c in RESOURCES])
        .where(alloc.compute_host_id.in_(list(room)),
               alloc.start_date < end, alloc.end_date > start,
               alloc.reservation_id != exclude_reservation_id)
        .with_for_update(read=True)).all()
    by_host: dict = {}
    for row in rows:
        by_host.setdefault(row[0], []).append(row)
    for host_id, expected in room.items():
        allocations = by_host.get(host_id, [])
        moments = {max(r[2], start) for r in allocations}
        for _name, column in RESOURCES:
            peak = max([sum(r.slots * getattr(r, column)
                            for r in allocations
                            if r[2] <= at < r[3]) for at in moments] or [0])
            if peak > expected[column]:
                raise allocation_api.AllocationRace()


def allocations_of(session, reservation_id: str) -> dict:
    """{host id: slots} a reservation holds."""
    alloc = models.InstanceAllocation
    return dict(session.execute(
        sa.select(alloc.compute_host_id, alloc.slots)
        .where(alloc.reservation_id == reservation_id)).all())


def hold(session, reservation_id: str, slots: dict, spec: dict,
         start: datetime.datetime, end: datetime.datetime) -> None:
    """Replace a reservation's allocations with ``slots`` {host: n}."""
    release(session, [reservation_id])
    for host_id, count in sorted(slots.items()):
        session.add(models.InstanceAllocation(
            compute_host_id=host_id, reservation_id=reservation_id,
            slots=count, vcpus=spec['vcpus'], memory_mb=spec['memory_mb'],
            disk_gb=spec['disk_gb'], start_date=start, end_date=end))
    session.flush()


def release(session, reservation_ids: list) -> None:
    alloc = models.InstanceAllocation
    session.execute(sa.delete(alloc).where(
        alloc.reservation_id.in_(reservation_ids)))
