"""What a project or user holds, for the fair-use enforcement filters.

Called by the filters in the transaction of the lease change, so the
lease being made is counted with the others.
"""

import datetime

import sqlalchemy as sa

from blazar_ext.db.models import host as host_models
from blazar_ext.db.models import instance as instance_models
from blazar_ext.db.models import lease as lease_models
from blazar_ext import states


def _project_allocations(alloc, project_id: str, start, end,
                         *columns) -> sa.Select:
    """The project's allocations in ``alloc`` overlapping [start, end],
    driven from its leases (leases.project_id is indexed): a project holds
    few allocations among the many of a busy window."""
    reservation = lease_models.Reservation
    lease = lease_models.Lease
    return (sa.select(*columns)
            .select_from(lease)
            .join(reservation, reservation.lease_id == lease.id)
            .join(alloc, alloc.reservation_id == reservation.id)
            .where(lease.project_id == project_id,
                   alloc.start_date < end, alloc.end_date > start))


def host_windows(session, project_id: str, start: datetime.datetime,
                 end: datetime.datetime, host_ids=None) -> list:
    """(start, end, host id, hostname, vcpus) of the project's host
    allocations overlapping [start, end] (on ``host_ids`` if given)."""
    alloc = lease_models.ComputeHostAllocation
    host = host_models.ComputeHost
    query = _project_allocations(
        alloc, project_id, start, end, alloc.start_date, alloc.end_date,
        alloc.compute_host_id, host.hypervisor_hostname, host.vcpus
    ).join(host, host.id == alloc.compute_host_id)
    if host_ids is not None:
        query = query.where(alloc.compute_host_id.in_(list(host_ids)))
    return [tuple(row) for row in session.execute(query)]


def instance_windows(session, project_id: str, start: datetime.datetime,
                     end: datetime.datetime) -> list:
    """(start, end, vcpus) of the project's instance allocations
    overlapping [start, end]."""
    alloc = instance_models.InstanceAllocation
    return [tuple(row) for row in session.execute(_project_allocations(
        alloc, project_id, start, end, alloc.start_date, alloc.end_date,
        alloc.slots * alloc.vcpus))]


def future_leases(session, project_id: str, user_id: str,
                  now: datetime.datetime) -> int:
    """How many leases of the user in the project have not started yet
    (by project first: leases.project_id is indexed)."""
    lease = lease_models.Lease
    return session.scalar(
        sa.select(sa.func.count()).select_from(lease)
        .where(lease.project_id == project_id, lease.user_id == user_id,
               lease.start_date > now,
               lease.status == states.Lease.PENDING))


def lease_host_ids(session, lease_id: str) -> list:
    """The hosts the lease holds."""
    alloc = lease_models.ComputeHostAllocation
    reservation = lease_models.Reservation
    return list(session.scalars(
        sa.select(alloc.compute_host_id).distinct()
        .join(reservation, reservation.id == alloc.reservation_id)
        .where(reservation.lease_id == lease_id)))
