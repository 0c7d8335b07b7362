"""What a project or user holds, for the fair-use enforcement filters.

Called by the filters in the transaction of the lease change, so the
lease being made is counted with the others. Each is one statement, built
once with bound parameters: on the lease create path building and keying
a statement cost more than the database took to run it.
"""

import datetime
import functools

import sqlalchemy as sa

from blazar_ext.db.api import transaction
from blazar_ext.db.models import host as host_models
from blazar_ext.db.models import instance as instance_models
from blazar_ext.db.models import lease as lease_models
from blazar_ext import states

_PROJECT = sa.bindparam('project_id')
_START = sa.bindparam('start')
_END = sa.bindparam('end')


def _project_allocations(alloc, *columns) -> sa.Select:
    """The project's allocations in ``alloc`` overlapping [start, end],
    driven from its leases (leases are indexed by project): a project
    holds few allocations among the many of a busy window."""
    reservation = lease_models.Reservation
    lease = lease_models.Lease
    return (sa.select(*columns)
            .select_from(lease)
            .join(reservation, reservation.lease_id == lease.id)
            .join(alloc, alloc.reservation_id == reservation.id)
            .where(lease.project_id == _PROJECT,
                   alloc.start_date < _END, alloc.end_date > _START))


def _host_windows() -> sa.Select:
    """The project's host allocations overlapping [start, end], from its
    leases overlapping it (by the index on project and end date, 0027:
    most of a project's leases have ended). A host allocation's window
    is its lease's (copied, 0005, and moved with it), so the leases'
    test leaves out none."""
    alloc = lease_models.ComputeHostAllocation
    host = host_models.ComputeHost
    lease = lease_models.Lease
    return _project_allocations(
        alloc, alloc.start_date, alloc.end_date, alloc.compute_host_id,
        host.hypervisor_hostname, host.vcpus
    ).join(host, host.id == alloc.compute_host_id).where(
        lease.end_date > _START, lease.start_date < _END)


@functools.lru_cache(maxsize=None)
def _usage_statement(instances: bool):
    query = _host_windows()
    if instances:
        alloc = instance_models.InstanceAllocation
        query = sa.union_all(query, _project_allocations(
            alloc, alloc.start_date, alloc.end_date, sa.null(), sa.null(),
            alloc.slots * alloc.vcpus))
    return query


def usage_windows(session, project_id: str, start: datetime.datetime,
                  end: datetime.datetime, instances: bool = False) -> list:
    """(start, end, host id, hostname, vcpus) of the project's host
    allocations overlapping [start, end], and with ``instances`` its
    instance allocations' (start, end, None, None, vcpus), in one query."""
    return [tuple(row) for row in transaction.core_execute(
        session, _usage_statement(instances),
        {'project_id': project_id, 'start': start, 'end': end})]


@functools.lru_cache(maxsize=None)
def _stacking_statement():
    alloc = lease_models.ComputeHostAllocation
    reservation = lease_models.Reservation
    held = (sa.select(alloc.compute_host_id)
            .join(reservation, reservation.id == alloc.reservation_id)
            .where(reservation.lease_id == sa.bindparam('lease_id')))
    return _host_windows().where(alloc.compute_host_id.in_(held))


def stacking_windows(session, project_id: str, start: datetime.datetime,
                     end: datetime.datetime, lease_id: str) -> list:
    """(start, end, host id, hostname, vcpus) of the project's
    allocations overlapping [start, end] on the hosts lease ``lease_id``
    holds, in one query."""
    return [tuple(row) for row in transaction.core_execute(
        session, _stacking_statement(),
        {'project_id': project_id, 'start': start, 'end': end,
         'lease_id': lease_id})]


@functools.lru_cache(maxsize=None)
def _future_statement():
    lease = lease_models.Lease
    return (sa.select(sa.func.count()).select_from(lease)
            .where(lease.project_id == _PROJECT,
                   lease.user_id == sa.bindparam('user_id'),
                   lease.start_date > sa.bindparam('now'),
                   lease.status == states.Lease.PENDING))


def future_leases(session, project_id: str, user_id: str,
                  now: datetime.datetime) -> int:
    """How many leases of the user in the project have not started yet
    (by project first: leases.project_id is indexed)."""
    return transaction.core_execute(session, _future_statement(), {
        'project_id': project_id, 'user_id': user_id, 'now': now}
    ).scalar()
