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


def _allocations(session, alloc, resource_column, start, end) -> list:
    """Tuples (resource_id, start, end, *LEASE_COLUMNS) of the allocations
    overlapping [start, end), dates as 'YYYY-MM-DD HH:MM', in one query.

    Tuples, not dicts, and dates read as the driver gives them (SQLite's
    text is not parsed into datetimes to be formatted again): a busy
    window has tens of thousands, and this is most of the route's time.
    """
    lease = lease_models.Lease
    res = lease_models.Reservation
    # Core rows through the connection: no ORM loading per row.
    rows = session.connection().execute(
        sa.select(resource_column,
                  sa.type_coerce(alloc.start_date, sa.String),
                  sa.type_coerce(alloc.end_date, sa.String),
                  *[getattr(lease, c) for c in LEASE_COLUMNS])
        .join(res, res.id == alloc.reservation_id)
        .join(lease, lease.id == res.lease_id)
        .where(alloc.start_date < end, alloc.end_date > start)
        .order_by(resource_column, alloc.start_date))
    return [(row[0], _minute_text(row[1]), _minute_text(row[2]), *row[3:])
            for row in rows]


def host_calendar(context, start: datetime.datetime,
                  end: datetime.datetime) -> dict:
    """{'resources': [host], 'allocations': [...]} for [start, end)."""
    host = host_models.ComputeHost
    with db_session.reader.using(context) as session:
        hosts = [{'id': h_id, 'name': name, 'reservable': reservable,
                  'disabled': disabled, 'reservable_reason': reason}
                 for h_id, name, reservable, disabled, reason
                 in session.execute(
                     sa.select(host.id, host.hypervisor_hostname,
                               host.reservable, host.disabled,
                               host.reservable_reason)
                     .order_by(host.hypervisor_hostname))]
        alloc = lease_models.ComputeHostAllocation
        return {'resources': hosts, 'allocations': _allocations(
            session, alloc, alloc.compute_host_id, start, end)}


def floatingip_calendar(context, start: datetime.datetime,
                        end: datetime.datetime) -> dict:
    """{'resources': [floating IP], 'allocations': [...]} for the window."""
    fip = fip_models.FloatingIP
    with db_session.reader.using(context) as session:
        fips = [{'id': f_id, 'name': address, 'network_id': network,
                 'reservable': reservable, 'disabled': False}
                for f_id, address, network, reservable in session.execute(
                    sa.select(fip.id, fip.floating_ip_address,
                              fip.floating_network_id, fip.reservable)
                    .order_by(fip.floating_network_id,
                              fip.floating_ip_address))]
        alloc = fip_models.FloatingIPAllocation
        return {'resources': fips, 'allocations': _allocations(
            session, alloc, alloc.floatingip_id, start, end)}
