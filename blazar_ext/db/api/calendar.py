"""What the calendar draws: resources, and the allocations overlapping a
window with their leases. Two queries per resource type, whatever the
number of resources or leases."""

import datetime

import sqlalchemy as sa

from blazar_ext.db.models import floatingip as fip_models
from blazar_ext.db.models import host as host_models
from blazar_ext.db.models import lease as lease_models
from blazar_ext.db import session as db_session

# What the calendar shows of a lease, after the allocation's own columns.
LEASE_COLUMNS = ('id', 'name', 'status', 'degraded', 'project_id')


def _minute_text(value) -> str:
    """'YYYY-MM-DD HH:MM' of a date column read without conversion: text
    as SQLite stores it, a datetime from the MySQL and PostgreSQL
    drivers."""
    if isinstance(value, str):
        return value[:16]
    return value.isoformat(' ', 'minutes')


def _allocations(session, alloc, resource_column, start, end,
                 resource_ids=None) -> list:
    """Tuples (resource_id, start, end, *LEASE_COLUMNS) of the allocations
    overlapping [start, end) (of ``resource_ids`` only, if given), dates as
    'YYYY-MM-DD HH:MM', in one query.

    Tuples, not dicts, and dates read as the driver gives them (SQLite's
    text is not parsed into datetimes to be formatted again): a busy
    window has tens of thousands, and this is most of the route's time.
    """
    lease = lease_models.Lease
    res = lease_models.Reservation
    # Core rows through the connection: no ORM loading per row.
    query = (
        sa.select(resource_column,
                  sa.type_coerce(alloc.start_date, sa.String),
                  sa.type_coerce(alloc.end_date, sa.String),
                  *[getattr(lease, c) for c in LEASE_COLUMNS])
        .join(res, res.id == alloc.reservation_id)
        .join(lease, lease.id == res.lease_id)
        .where(alloc.start_date < end, alloc.end_date > start)
        .order_by(resource_column, alloc.start_date))
    if resource_ids is not None:
        query = query.where(resource_column.in_(resource_ids))
    rows = session.connection().execute(query)
    return [(row[0], _minute_text(row[1]), _minute_text(row[2]), *row[3:])
            for row in rows]


def _page(session, query, name_column, limit: int | None,
          marker: str | None) -> list:
    """Rows of ``query`` ordered by name, ``limit`` of them after the
    name ``marker``: the calendar's first screenful comes first."""
    if marker is not None:
        query = query.where(name_column > marker)
    query = query.order_by(name_column)
    if limit is not None:
        query = query.limit(limit)
    return list(session.execute(query))


def _count(session, model) -> int:
    return session.scalar(sa.select(sa.func.count()).select_from(model))


def host_calendar(context, start: datetime.datetime, end: datetime.datetime,
                  limit: int | None = None,
                  marker: str | None = None) -> dict:
    """{'resources': [host], 'resource_count': n, 'allocations': [...]}
    for [start, end); with ``limit`` or ``marker``, one page of hosts by
    name and their allocations only."""
    host = host_models.ComputeHost
    alloc = lease_models.ComputeHostAllocation
    with db_session.reader.using(context) as session:
        rows = _page(session, sa.select(
            host.id, host.hypervisor_hostname, host.reservable,
            host.disabled, host.reservable_reason),
            host.hypervisor_hostname, limit, marker)
        paged = limit is not None or marker is not None
        return {
            'resources': [{'id': h_id, 'name': name,
                           'reservable': reservable, 'disabled': disabled,
                           'reservable_reason': reason}
                          for h_id, name, reservable, disabled, reason
                          in rows],
            'resource_count': _count(session, host),
            'allocations': _allocations(
                session, alloc, alloc.compute_host_id, start, end,
                [r[0] for r in rows] if paged else None)}


def floatingip_calendar(context, start: datetime.datetime,
                        end: datetime.datetime, limit: int | None = None,
                        marker: str | None = None) -> dict:
    """The same for floating IPs, by address."""
    fip = fip_models.FloatingIP
    alloc = fip_models.FloatingIPAllocation
    with db_session.reader.using(context) as session:
        rows = _page(session, sa.select(
            fip.id, fip.floating_ip_address, fip.floating_network_id,
            fip.reservable), fip.floating_ip_address, limit, marker)
        paged = limit is not None or marker is not None
        return {
            'resources': [{'id': f_id, 'name': address,
                           'network_id': network, 'reservable': reservable,
                           'disabled': False}
                          for f_id, address, network, reservable in rows],
            'resource_count': _count(session, fip),
            'allocations': _allocations(
                session, alloc, alloc.floatingip_id, start, end,
                [r[0] for r in rows] if paged else None)}
