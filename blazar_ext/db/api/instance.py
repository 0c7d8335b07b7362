"""virtual:instance reservations: detail rows, host capacity and load,
and the slots held.

A host's capacity per resource class is (total - reserved) x
allocation_ratio of its provider's inventory (VCPU, MEMORY_MB, DISK_GB),
stored beside the inventories (db/api/instance_capacity). Its load over a
window is the peak, over the window, of the instance allocations on it:
the sum at the moment the most overlap, not the sum of every allocation
that touches the window. Only hosts with allocations overlapping the
window have a load to compute; the others have their whole capacity.
"""

import datetime

import sqlalchemy as sa
from sqlalchemy.ext import compiler

from blazar_ext.db.api import allocation as allocation_api
from blazar_ext.db.api import reservation_detail
from blazar_ext.db.models import host as host_models
from blazar_ext.db.models import instance as models
from blazar_ext.db.models import lease as lease_models

# (resource class, size column of a request and of an allocation)
RESOURCES = (('VCPU', 'vcpus'), ('MEMORY_MB', 'memory_mb'),
             ('DISK_GB', 'disk_gb'))
# The size columns of a capacity, an allocation and a load, in order.
COLUMNS_LOAD = tuple(column for _name, column in RESOURCES)
COLUMNS = ('vcpus', 'memory_mb', 'disk_gb', 'amount', 'affinity',
           'resource_properties', 'flavor_id', 'server_group_id')


# Detail rows and the slots held (one row per host)

class InstanceDetails(reservation_detail.DetailTable):

    def from_row(self, row: dict) -> dict:
        return dict(row, resource_properties=row['resource_properties'] or '')


DETAILS = InstanceDetails(models.InstanceReservation,
                          models.InstanceAllocation, 'compute_host_id',
                          columns=COLUMNS)


# Capacity and load

class least(sa.sql.functions.GenericFunction):
    """The smallest of its arguments (MIN on SQLite, LEAST elsewhere)."""

    inherit_cache = True


@compiler.compiles(least)
def _least(element, compiler_, **kw):
    return 'LEAST(%s)' % compiler_.process(element.clauses, **kw)


@compiler.compiles(least, 'sqlite')
def _least_sqlite(element, compiler_, **kw):
    return 'MIN(%s)' % compiler_.process(element.clauses, **kw)


def _overlapping(alloc, start: datetime.datetime, end: datetime.datetime,
                 exclude_reservation_id: str | None) -> list:
    cond = [alloc.start_date < end, alloc.end_date > start]
    if exclude_reservation_id:
        cond.append(alloc.reservation_id != exclude_reservation_id)
    return cond


def _busy(start: datetime.datetime, end: datetime.datetime,
          exclude_reservation_id: str | None):
    """Ids of the hosts with an instance allocation overlapping the
    window, as a subquery: read from the window index alone, for a query
    that visits every host."""
    alloc = models.InstanceAllocation
    return sa.select(alloc.compute_host_id).where(
        *_overlapping(alloc, start, end, exclude_reservation_id))


def _loaded(start: datetime.datetime, end: datetime.datetime,
            exclude_reservation_id: str | None):
    """EXISTS an instance allocation on the host overlapping the window:
    one probe of the host-window index, for a query that visits a few
    hosts."""
    host = host_models.ComputeHost
    # Aliased: the outer query may read instance_allocations too.
    alloc = sa.orm.aliased(models.InstanceAllocation)
    return sa.exists(sa.select(sa.literal(1)).where(
        alloc.compute_host_id == host.id,
        *_overlapping(alloc, start, end, exclude_reservation_id))
        .correlate(host))


def _eligible(host_filter, start: datetime.datetime,
              end: datetime.datetime, few: bool = False) -> list:
    """WHERE terms on computehosts: in service, matching ``host_filter``,
    and no physical:host reservation holding it in the window.

    The last test reads the hosts held from the window index once, for a
    query that visits every host; ``few``: it probes the host-window
    index for each host instead, for a query that visits a handful.
    """
    host = host_models.ComputeHost
    held = lease_models.ComputeHostAllocation
    if few:
        free = ~sa.exists(sa.select(sa.literal(1)).where(
            held.compute_host_id == host.id, held.start_date < end,
            held.end_date > start))
    else:
        free = host.id.not_in(sa.select(held.compute_host_id).where(
            held.start_date < end, held.end_date > start))
    return [host.reservable == sa.true(), host.disabled == sa.false(),
            host_filter, free]


def _fits(caps, sizes: dict):
    """How many instances of ``sizes`` ({column: size}) the whole
    capacity ``caps`` (an InstanceCapacity entity) holds; integer
    division on every backend, the operands being integers."""
    counts = [getattr(caps, column) // size
              for column, size in sizes.items() if size > 0]
    return counts[0] if len(counts) == 1 else least(*counts)


def _with_allocations(session, host_filter, start: datetime.datetime,
                      end: datetime.datetime,
                      exclude_reservation_id: str | None, *where,
                      few: bool = False) -> list:
    """[(host id, {column: room}, {column: peak})] for the eligible hosts
    meeting ``where``, from one query: each host's capacity with its
    allocations overlapping the window."""
    host = host_models.ComputeHost
    caps = models.InstanceCapacity
    alloc = models.InstanceAllocation
    query = (sa.select(host.id, *[getattr(caps, c) for c in COLUMNS_LOAD],
                       alloc.start_date, alloc.end_date, alloc.slots,
                       *[getattr(alloc, c) for c in COLUMNS_LOAD])
             .join(caps, caps.resource_provider_id ==
                   host.resource_provider_id)
             .outerjoin(alloc, sa.and_(
                 alloc.compute_host_id == host.id,
                 *_overlapping(alloc, start, end, exclude_reservation_id)))
             .where(*_eligible(host_filter, start, end, few), *where)
             .order_by(host.id))
    capacity, allocations = {}, {}
    for row in session.execute(query):
        host_id = row[0]
        if host_id not in capacity:
            capacity[host_id] = dict(zip(COLUMNS_LOAD, row[1:4]))
            allocations[host_id] = []
        if row[4] is not None:
            allocations[host_id].append(row[4:])
    out = []
    for host_id, caps_of in capacity.items():
        peak = peak_load(allocations[host_id], start)
        out.append((host_id, {c: caps_of[c] - peak[c] for c in caps_of},
                    peak))
    return out


def peak_load(allocations: list, start: datetime.datetime) -> dict:
    """{column: peak} of the load of ``allocations`` ((start, end, slots,
    vcpus, memory_mb, disk_gb), all overlapping the window from
    ``start``): the largest sum of those running at one moment. That
    moment is one at which an allocation starts, or ``start``."""
    peak = dict.fromkeys(COLUMNS_LOAD, 0)
    for at in {max(a[0], start) for a in allocations}:
        running = [a for a in allocations if a[0] <= at < a[1]]
        for i, column in enumerate(COLUMNS_LOAD):
            peak[column] = max(peak[column],
                               sum(a[2] * a[3 + i] for a in running))
    return peak


def host_room(session, host_filter, start: datetime.datetime,
              end: datetime.datetime, among,
              exclude_reservation_id: str | None = None) -> list:
    """[(host id, {column: room}, {column: peak})] for the eligible hosts
    ``among`` (whatever their room): room is capacity minus peak load
    over the window, per resource. One query."""
    host = host_models.ComputeHost
    return _with_allocations(session, host_filter, start, end,
                             exclude_reservation_id,
                             host.id.in_(list(among)), few=True)


def roomiest(session, host_filter, start: datetime.datetime,
             end: datetime.datetime, sizes: dict, limit: int,
             exclude_reservation_id: str | None = None,
             exclude_hosts=()) -> list:
    """As host_room, for hosts enough to hold ``limit`` instances of
    ``sizes`` ({column: size}) however packing spreads them: at least the
    ``limit`` eligible hosts with room for the most instances (at least
    one), most first then by id. Packing never uses a host past those.

    Two queries, and per-host work only where a host's load may matter:
    the hosts without instance load in the window have their whole
    capacity, so the database ranks them on it alone; of the loaded
    hosts, only those whose whole capacity could rank among the first
    ``limit`` of them have their load read.
    """
    host = host_models.ComputeHost
    caps = models.InstanceCapacity
    where = [host.id.not_in(list(exclude_hosts))] if exclude_hosts else []
    busy = _busy(start, end, exclude_reservation_id)
    fits = _fits(caps, sizes)
    idle = (sa.select(host.id, *[getattr(caps, c) for c in COLUMNS_LOAD])
            .join(caps, caps.resource_provider_id ==
                  host.resource_provider_id)
            .where(*_eligible(host_filter, start, end), *where,
                   host.id.not_in(busy), fits >= 1)
            .order_by(fits.desc(), host.id).limit(limit))
    found = [(row[0], dict(zip(COLUMNS_LOAD, row[1:])),
              dict.fromkeys(COLUMNS_LOAD, 0))
             for row in session.execute(idle)]
    if len(found) < limit:
        return found + _with_allocations(
            session, host_filter, start, end, exclude_reservation_id,
            *where, host.id.in_(busy), fits >= 1)
    # A loaded host holds no more than its whole capacity would: unless
    # that ranks before the last idle host found, the host cannot rank
    # among the first ``limit``. Those that can are found through
    # indexes: the hosts whose capacity holds more than the last idle
    # host's (by provider), and those holding as much with a smaller id
    # (by id). Only these few have their load read.
    last_id, last_room = found[-1][0], found[-1][1]
    last = min(last_room[column] // size
               for column, size in sizes.items() if size > 0)
    other = sa.orm.aliased(caps)
    roomier = sa.select(other.resource_provider_id).where(
        _fits(other, sizes) > last)
    return found + _with_allocations(
        session, host_filter, start, end, exclude_reservation_id, *where,
        sa.or_(host.resource_provider_id.in_(roomier), host.id < last_id),
        fits >= last, _loaded(start, end, exclude_reservation_id),
        few=True)


def free_room(session, host_filter, start: datetime.datetime,
              end: datetime.datetime,
              exclude_reservation_id: str | None = None) -> tuple:
    """(how many hosts are eligible, {column: room left on them in all})
    for the message of a refusal: the idle hosts' capacities summed by
    the database, the loaded hosts' room from their allocations."""
    host = host_models.ComputeHost
    caps = models.InstanceCapacity
    busy = _busy(start, end, exclude_reservation_id)
    idle = session.execute(
        sa.select(sa.func.count(), *[
            sa.func.coalesce(sa.func.sum(getattr(caps, c)), 0)
            for c in COLUMNS_LOAD])
        .select_from(host)
        .join(caps, caps.resource_provider_id == host.resource_provider_id)
        .where(*_eligible(host_filter, start, end),
               host.id.not_in(busy))).one()
    loaded = _with_allocations(session, host_filter, start, end,
                               exclude_reservation_id, host.id.in_(busy))
    free = {c: int(idle[1 + i]) + sum(max(room[c], 0)
                                      for _h, room, _p in loaded)
            for i, c in enumerate(COLUMNS_LOAD)}
    return idle[0] + len(loaded), free


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
        alloc.compute_host_id, alloc.start_date, alloc.end_date,
        alloc.slots, *[getattr(alloc, c) for c in COLUMNS_LOAD])
        .where(alloc.compute_host_id.in_(list(room)),
               *_overlapping(alloc, start, end, exclude_reservation_id))
        .with_for_update(read=True)).all()
    by_host: dict = {}
    for row in rows:
        by_host.setdefault(row[0], []).append(row[1:])
    for host_id, expected in room.items():
        peak = peak_load(by_host.get(host_id, []), start)
        if any(peak[c] > expected[c] for c in COLUMNS_LOAD):
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
    DETAILS.release(session, [reservation_id])
    for host_id, count in sorted(slots.items()):
        session.add(models.InstanceAllocation(
            compute_host_id=host_id, reservation_id=reservation_id,
            slots=count, vcpus=spec['vcpus'], memory_mb=spec['memory_mb'],
            disk_gb=spec['disk_gb'], start_date=start, end_date=end))
    session.flush()
