"""The times at which what a reservation can get changes, for the slot
search (blazar_ext.manager.plan) and extension advice.

What is free over a window changes only where an allocation ends (a lease
may start then, or ``cleaning`` later for hosts) or starts (a lease may
end then, or ``cleaning`` earlier). These reads give those window edges in
order, a page at a time, so a search over a month of 100,000 allocations
reads the few edges it tries, never the whole month.
"""

import datetime
import heapq

import sqlalchemy as sa

from blazar_ext.db.api import host_filter
from blazar_ext.db.api import host_properties
from blazar_ext.db.models import epoch
from blazar_ext.db.models import floatingip as fip_models
from blazar_ext.db.models import host as host_models
from blazar_ext.db.models import instance as instance_models
from blazar_ext.db.models import lease as lease_models

HOST_TABLES = (lease_models.ComputeHostAllocation,
               instance_models.InstanceAllocation)
FLOATINGIP_TABLES = (fip_models.FloatingIPAllocation,)

# The allocation tables whose edges matter to a type; a type not named
# here (a third-party plugin) sees every table's.
TABLES_OF = {'physical:host': HOST_TABLES,
             'virtual:instance': HOST_TABLES,
             'flavor:instance': HOST_TABLES,
             'virtual:floatingip': FLOATINGIP_TABLES}
ALL_TABLES = HOST_TABLES + FLOATINGIP_TABLES

PAGE = 64

EpochMicroseconds = epoch.EpochMicroseconds


def tables_for(resource_types) -> tuple:
    """The allocation tables a request of these types depends on."""
    tables = []
    for resource_type in resource_types:
        for table in TABLES_OF.get(resource_type, ALL_TABLES):
            if table not in tables:
                tables.append(table)
    return tuple(tables)


def _page(session, tables: tuple, column: str, low: datetime.datetime,
          high: datetime.datetime, limit: int) -> list:
    """Distinct ``column`` values in (low, high], ascending: one query."""
    parts = [sa.select(getattr(table, column).label('at')).where(
        getattr(table, column) > low, getattr(table, column) <= high)
        for table in tables]
    union = sa.union(*parts).subquery()
    return list(session.scalars(
        sa.select(union.c.at).order_by(union.c.at).limit(limit)))


def _stream(session, tables: tuple, column: str, low: datetime.datetime,
            high: datetime.datetime, delta: datetime.timedelta):
    while True:
        page = _page(session, tables, column, low, high, PAGE)
        for at in page:
            yield at + delta
        if len(page) < PAGE:
            return
        low = page[-1]


def edges(session, tables: tuple, column: str, after: datetime.datetime,
          until: datetime.datetime, cleaning: datetime.timedelta,
          shift: int):
    """Yield, ascending and once each, the times in (after, until] where
    an allocation's ``column`` (``end_date`` or ``start_date``) falls, or
    falls ``cleaning`` away (``shift`` +1: later, -1: earlier).

    Lazily: one query per page of PAGE allocation times.
    """
    delta = cleaning * shift
    streams = [_stream(session, tables, column, after, until,
                       datetime.timedelta(0))]
    if delta:
        streams.append(_stream(session, tables, column, after - delta,
                               until - delta, delta))
    previous = None
    for at in heapq.merge(*streams):
        if at != previous:
            previous = at
            yield at


def next_busy(session, tables_and_ids: list, after: datetime.datetime,
              exclude_reservation_id: str) -> datetime.datetime | None:
    """The first allocation start at or after ``after`` on the given
    resources, other reservations' only: [(allocation table, resource
    column, [ids])], one query."""
    parts = [sa.select(sa.func.min(table.start_date).label('at')).where(
        getattr(table, column).in_(ids), table.start_date >= after,
        table.reservation_id != exclude_reservation_id)
        for table, column, ids in tables_and_ids if ids]
    if not parts:
        return None
    union = sa.union_all(*parts).subquery()
    return session.scalar(sa.select(sa.func.min(union.c.at)))


def floatingip_busy(session, network_id: str, low: datetime.datetime,
                    high: datetime.datetime) -> dict:
    """{floating IP id: [(busy start, busy end)]} of the reservable
    floating IPs of a network, with their allocations overlapping
    [low, high): one query."""
    fip = fip_models.FloatingIP
    alloc = fip_models.FloatingIPAllocation
    rows = session.execute(
        sa.select(fip.id, alloc.start_date, alloc.end_date)
        .outerjoin(alloc, sa.and_(alloc.floatingip_id == fip.id,
                                  alloc.start_date < high,
                                  alloc.end_date > low))
        .where(fip.floating_network_id == network_id,
               fip.reservable == sa.true()))
    busy: dict = {}
    for fip_id, start, end in rows:
        intervals = busy.setdefault(fip_id, [])
        if start is not None:
            intervals.append((start, end))
    return busy


def host_busy_rows(session, host_filter, low: datetime.datetime,
                   high: datetime.datetime,
                   cleaning: datetime.timedelta) -> list:
    """``iter_host_busy_rows`` as a list."""
    return list(iter_host_busy_rows(session, host_filter, low, high,
                                    cleaning))


def iter_host_busy_rows(session, host_filter, low: datetime.datetime,
                        high: datetime.datetime,
                        cleaning: datetime.timedelta):
    """(host id, busy start, busy end) of every reservable, enabled host
    matching ``host_filter``, ordered by host then start, the dates as
    microseconds since the epoch (blazar_ext.query.slot_plan); busy: each
    host or instance allocation overlapping [low, high) widened by
    ``cleaning`` as the allocator sees it (None, None for a host with
    none). One query per allocation table, each an indexed join; the
    dates come as integers (stored for host allocations, converted by
    the database for instance slots), which Python reads several times
    faster than it parses dates.

    Without instance slots in the window (an indexed probe), the rows
    stream from the cursor as the caller reads them, in the session's
    transaction: tens of thousands of rows never held at once do not
    set off the garbage collector's full passes, which cost as much as
    the read at 10,000 hosts.
    """
    queries = [_host_busy_query(table, host_filter, low - cleaning,
                                high + cleaning, outer=n == 0)
               for n, table in enumerate(HOST_TABLES)]
    if not _any_overlap(session, HOST_TABLES[1], low - cleaning,
                        high + cleaning):
        # The second join filters every host again for nothing.
        yield from _plain_rows(session, queries[0])
        return
    # Every host once with its host allocations, then the hosts that
    # have instance slots, merged in Python's order of the host ids.
    rows = list(_plain_rows(session, queries[0]))
    rows += _plain_rows(session, queries[1])
    yield from sorted(rows,
                      key=lambda r: (r[0], -1 if r[1] is None else r[1]))


def _host_busy_query(table, host_filter, low: datetime.datetime,
                     high: datetime.datetime, outer: bool):
    host = host_models.ComputeHost
    overlap = sa.and_(table.compute_host_id == host.id,
                      table.start_date < high, table.end_date > low)
    query = sa.select(host.id, *_microseconds(table))
    query = (query.outerjoin(table, overlap) if outer
             else query.join(table, overlap))
    return query.where(
        host.reservable == sa.true(), host.disabled == sa.false(),
        host_filter).order_by(host.id, table.start_date)


def _microseconds(table) -> tuple:
    # Host allocations store their dates in microseconds too (revision
    # 0030); instance slots' dates are converted per read.
    if table is lease_models.ComputeHostAllocation:
        return table.start_us, table.end_us
    return (EpochMicroseconds(table.start_date),
            EpochMicroseconds(table.end_date))


def _any_overlap(session, table, low: datetime.datetime,
                 high: datetime.datetime) -> bool:
    return session.scalar(sa.select(sa.literal(1)).where(
        table.start_date < high, table.end_date > low).limit(1)) is not None


def _plain_rows(session, query):
    # The driver's tuples, one at a time: these columns need no result
    # processing, and building a Row for each of tens of thousands costs
    # a third of the read.
    result = session.connection().execute(query)
    try:
        yield from result.cursor
    finally:
        result.close()


def host_pool_filter(context, session, hypervisor_properties: str,
                     resource_properties: str, requirement,
                     private_visible: bool):
    """The condition over ComputeHost a physical:host request compiles
    to, as the availability route builds it; Invalid names a bad or
    hidden property or an unknown trait."""
    return host_filter.build(
        session, host_properties.HostQuery(hypervisor_properties,
                                           resource_properties),
        requirement, private_visible=private_visible)
