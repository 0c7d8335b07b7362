"""Leases, their reservations and events.

Lease rows are written by the manager only. The functions that create or
change a lease take an ``allocate`` callable from the manager's plugins,
which picks and holds resources inside the same transaction: if it fails,
nothing of the lease is left behind.
"""

import datetime

from oslo_db import api as oslo_db_api
import sqlalchemy as sa

from blazar_ext.db.api import allocation as allocation_api
from blazar_ext.db.models import floatingip as fip_models
from blazar_ext.db.models import lease as models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions

HOST_TYPE = 'physical:host'
FLOATINGIP_TYPE = 'virtual:floatingip'


def _retry(func):
    """Retry on deadlock and on a lost allocation race."""
    return oslo_db_api.wrap_db_retry(
        max_retries=10, retry_on_deadlock=True, retry_interval=0.05,
        max_retry_interval=0.5, inc_retry_interval=True,
        exception_checker=allocation_api.is_retryable)(func)


# Reading

def _rows(session, query) -> list:
    """Column dicts of a Core query: no ORM object per row, which cost
    most of a list of a thousand leases."""
    result = session.execute(query)
    keys = list(result.keys())
    return [dict(zip(keys, row)) for row in result.all()]


def _reservation_details(session, reservation_ids) -> dict:
    """{reservation_id: detail dict} for hosts and floating IPs."""
    details: dict = {}
    if not reservation_ids:
        return details
    host = models.ComputeHostReservation.__table__
    for row in session.execute(
            sa.select(host.c.reservation_id, host.c.count_range,
                      host.c.hypervisor_properties,
                      host.c.resource_properties, host.c.before_end,
                      host.c.traits)
            .where(host.c.reservation_id.in_(reservation_ids))):
        (reservation_id, count_range, hypervisor, resource, before_end,
         traits) = row
        low, _sep, high = (count_range or '').partition('-')
        details[reservation_id] = {
            'min': int(low) if low.isdigit() else None,
            'max': int(high) if high.isdigit() else None,
            'hypervisor_properties': hypervisor or '',
            'resource_properties': resource or '',
            'before_end': before_end or 'default',
            'traits': traits or '',
        }
    fip = fip_models.FloatingIPReservation.__table__
    rows = _rows(session, sa.select(fip).where(
        fip.c.reservation_id.in_(reservation_ids)))
    required: dict = {}
    if rows:
        req = fip_models.RequiredFloatingIP
        for fip_res_id, address in session.execute(
                sa.select(req.floatingip_reservation_id, req.address)
                .where(req.floatingip_reservation_id.in_(
                    [r['id'] for r in rows])).order_by(req.address)):
            required.setdefault(fip_res_id, []).append(address)
    for row in rows:
        details[row['reservation_id']] = {
            'network_id': row['network_id'], 'amount': row['amount'],
            'required_floatingips': required.get(row['id'], [])}
    return details


def _to_dicts(session, leases) -> list:
    """Lease dicts with reservations and events; ``leases`` are column
    dicts (see _rows) or models."""
    leases = [lease if isinstance(lease, dict) else lease.to_dict()
              for lease in leases]
    lease_ids = [lease['id'] for lease in leases]
    reservations: dict = {lid: [] for lid in lease_ids}
    events: dict = {lid: [] for lid in lease_ids}
    if lease_ids:
        table = models.Reservation.__table__
        res_rows = _rows(session, sa.select(table)
                         .where(table.c.lease_id.in_(lease_ids))
                         .order_by(table.c.created_at, table.c.id))
        details = _reservation_details(session, [r['id'] for r in res_rows])
        for values in res_rows:
            values.update(details.get(values['id'], {}))
            reservations[values['lease_id']].append(values)
        table = models.Event.__table__
        for values in _rows(session, sa.select(table)
                            .where(table.c.lease_id.in_(lease_ids))
                            .order_by(table.c.time, table.c.event_type)):
            events[values['lease_id']].append(values)
    for values in leases:
        values['reservations'] = reservations[values['id']]
        values['events'] = events[values['id']]
    return leases


def _get_model(session, lease_id: str, lock: bool = False):
    query = sa.select(models.Lease).where(models.Lease.id == lease_id)
    if lock:
        query = query.with_for_update()
    lease = session.scalars(query).first()
    if lease is None:
        raise exceptions.LeaseNotFound(lease=lease_id)
    return lease


def _one_snapshot(session) -> None:
    """Make the reads that follow see one snapshot of the database.

    A lease is read in several queries. PostgreSQL's default READ
    COMMITTED gives each query a snapshot of its own, so a lease deleted
    in between came back without its reservations (a 400 for an update
    racing a delete instead of a 404). MySQL's REPEATABLE READ already
    reads one snapshot; SQLite serializes.
    """
    if session.bind.dialect.name == 'postgresql':
        session.connection(
            execution_options={'isolation_level': 'REPEATABLE READ'})


def lease_get(context, lease_id: str) -> dict:
    """One lease with its reservations and events; LeaseNotFound."""
    with db_session.reader.using(context) as session:
        _one_snapshot(session)
        return _to_dicts(session, [_get_model(session, lease_id)])[0]


def lease_list(context, project_id: str | None = None,
               degraded: bool | None = None) -> list:
    """Leases (of one project, if given; degraded or not, if given),
    oldest first, in four queries."""
    table = models.Lease.__table__
    query = sa.select(table).order_by(table.c.created_at, table.c.id)
    if project_id is not None:
        query = query.where(table.c.project_id == project_id)
    if degraded is not None:
        query = query.where(table.c.degraded == degraded)
    with db_session.reader.using(context) as session:
        _one_snapshot(session)
        return _to_dicts(session, _rows(session, query))


# Writing

def _add_reservation(session, lease_id: str, spec: dict,
                     status: str) -> str:
    reservation = models.Reservation(
        lease_id=lease_id, resource_type=spec['resource_type'],
        status=status)
    session.add(reservation)
    session.flush()
    reservation.resource_id = _add_detail(session, reservation.id, spec)
    return reservation.id


def _add_detail(session, reservation_id: str, spec: dict) -> str:
    if spec['resource_type'] == HOST_TYPE:
        detail = models.ComputeHostReservation(
            reservation_id=reservation_id,
            count_range='%d-%d' % (spec['min'], spec['max']),
            hypervisor_properties=spec.get('hypervisor_properties', ''),
            resource_properties=spec.get('resource_properties', ''),
            before_end=spec.get('before_end', 'default'),
            traits=spec.get('traits') or None)
        session.add(detail)
        session.flush()
        return detail.id
    detail = fip_models.FloatingIPReservation(
        reservation_id=reservation_id, network_id=spec['network_id'],
        amount=spec['amount'])
    session.add(detail)
    session.flush()
    for address in spec.get('required_floatingips', []):
        session.add(fip_models.RequiredFloatingIP(
            floatingip_reservation_id=detail.id, address=address))
    session.flush()
    return detail.id


def _update_detail(session, reservation_id: str, spec: dict) -> None:
    if spec['resource_type'] == HOST_TYPE:
        session.execute(sa.update(models.ComputeHostReservation).where(
            models.ComputeHostReservation.reservation_id == reservation_id)
            .values(count_range='%d-%d' % (spec['min'], spec['max']),
                    hypervisor_properties=spec.get(
                        'hypervisor_properties', ''),
                    resource_properties=spec.get('resource_properties', ''),
                    before_end=spec.get('before_end', 'default'),
                    traits=spec.get('traits') or None))
        return
    detail = session.scalars(sa.select(fip_models.FloatingIPReservation)
                             .where(fip_models.FloatingIPReservation
                                    .reservation_id == reservation_id)).one()
    detail.network_id = spec['network_id']
    detail.amount = spec['amount']
    session.execute(sa.delete(fip_models.RequiredFloatingIP).where(
        fip_models.RequiredFloatingIP.floatingip_reservation_id ==
        detail.id))
    for address in spec.get('required_floatingips', []):
        session.add(fip_models.RequiredFloatingIP(
            floatingip_reservation_id=detail.id, address=address))
    session.flush()


def _set_events(session, lease_id: str, events: list) -> None:
    """Replace the lease's UNDONE events of the given types.

    The rows are locked: an event a manager has claimed cannot be moved
    (Conflict), and a manager cannot claim one being moved (event_claim
    waits for the lock, then sees the new time). Otherwise an end event
    claimed at the old end ended a lease whose end had just been extended.
    """
    for event in events:
        existing = session.scalars(sa.select(models.Event).where(
            models.Event.lease_id == lease_id,
            models.Event.event_type == event['event_type'])
            .with_for_update()
            # Fresh values, not those the lease was read with.
            .execution_options(populate_existing=True)).first()
        if existing is None:
            session.add(models.Event(lease_id=lease_id, status='UNDONE',
                                     **event))
        elif existing.status == 'UNDONE':
            existing.time = event['time']
        elif (existing.status == 'IN_PROGRESS' and
                existing.time != event['time']):
            raise exceptions.Conflict(
                reason='lease %s is being started or ended right now; '
                       'try again' % lease_id)
    session.flush()


@_retry
def lease_create(context, values: dict, reservations: list, events: list,
                 allocate) -> dict:
    """Insert a lease, its reservations and events, and allocate.

    ``allocate(session, reservation_id, spec, start, end)`` holds resources
    for one reservation or raises (NotEnoughResources): the whole
    transaction then rolls back.
    """
    with allocation_api.PROCESS_LOCK:
        with db_session.writer.using(context) as session:
            lease = models.Lease(**values)
            session.add(lease)
            session.flush()
            for spec in reservations:
                reservation_id = _add_reservation(session, lease.id, spec,
                                                  'pending')
                allocate(session, reservation_id, spec,
                         values['start_date'], values['end_date'])
            _set_events(session, lease.id, events)
            return _to_dicts(session, [lease])[0]


def lease_create_error(context, values: dict, reservations: list) -> dict:
    """Record a lease that was refused (status ERROR, nothing held)."""
    with db_session.writer.using(context) as session:
        lease = models.Lease(**dict(values, status='ERROR'))
        session.add(lease)
        session.flush()
        for spec in reservations:
            _add_reservation(session, lease.id, spec, 'error')
        return _to_dicts(session, [lease])[0]


@_retry
def lease_update(context, lease_id: str, check, values: dict,
                 reservations: dict, events: list, reallocate) -> dict:
    """Change a lease under a row lock, reallocating as needed.

    ``check(lease_dict)`` runs first on the locked lease and may raise to
    refuse. ``reservations`` maps reservation ids to their new specs;
    ``reallocate(session, reservation_id, spec, start, end)`` holds the
    resources the new spec and window need or raises, rolling everything
    back.
    """
    with allocation_api.PROCESS_LOCK:
        with db_session.writer.using(context) as session:
            lease = _get_model(session, lease_id, lock=True)
            current = _to_dicts(session, [lease])[0]
            check(current)
            for key, value in values.items():
                setattr(lease, key, value)
            session.flush()
            reservation_ids = [r['id'] for r in current['reservations']]
            allocation_api.move_window(session, reservation_ids,
                                       lease.start_date, lease.end_date)
            for reservation_id, spec in reservations.items():
                _update_detail(session, reservation_id, spec)
                reallocate(session, reservation_id, spec, lease.start_date,
                           lease.end_date)
            _set_events(session, lease.id, events)
            session.expire_all()
            return _to_dicts(session, [_get_model(session, lease_id)])[0]


@_retry
def lease_delete(context, lease_id: str, check=None) -> dict:
    """Delete a lease, its reservations, allocations and events.

    ``check(lease_dict)`` runs on the locked lease before anything goes.
    Returns the lease as it was.
    """
    with db_session.writer.using(context) as session:
        lease = _get_model(session, lease_id, lock=True)
        current = _to_dicts(session, [lease])[0]
        if check is not None:
            check(current)
        reservation_ids = [r['id'] for r in current['reservations']]
        _delete_children(session, lease_id, reservation_ids)
        session.delete(lease)
        return current


def _delete_children(session, lease_id: str, reservation_ids: list) -> None:
    # Explicit deletes: the service must not depend on ON DELETE CASCADE
    # being enforced (SQLite enforces it only when asked).
    if reservation_ids:
        fip_res = sa.select(fip_models.FloatingIPReservation.id).where(
            fip_models.FloatingIPReservation.reservation_id.in_(
                reservation_ids))
        session.execute(sa.delete(fip_models.RequiredFloatingIP).where(
            fip_models.RequiredFloatingIP.floatingip_reservation_id.in_(
                fip_res)))
        for model in (fip_models.FloatingIPReservation,
                      fip_models.FloatingIPAllocation,
                      models.ComputeHostReservation,
                      models.ComputeHostAllocation):
            session.execute(sa.delete(model).where(
                model.reservation_id.in_(reservation_ids)))
        session.execute(sa.delete(models.Reservation).where(
            models.Reservation.id.in_(reservation_ids)))
    session.execute(sa.delete(models.Event).where(
        models.Event.lease_id == lease_id))


def lease_set_status(context, lease_id: str, status: str,
                     reservation_status: str | None = None,
                     release: bool = False) -> dict:
    """Set a lease's (and optionally its reservations') status.

    ``release`` drops the lease's allocations (the lease is over).
    """
    with db_session.writer.using(context) as session:
        lease = _get_model(session, lease_id, lock=True)
        lease.status = status
        reservation_ids = list(session.scalars(
            sa.select(models.Reservation.id).where(
                models.Reservation.lease_id == lease_id)))
        if reservation_status is not None and reservation_ids:
            session.execute(sa.update(models.Reservation).where(
                models.Reservation.id.in_(reservation_ids))
                .values(status=reservation_status))
        if release:
            for reservation_id in reservation_ids:
                allocation_api.release_hosts(session, reservation_id)
                allocation_api.release_floatingips(session, reservation_id)
        session.flush()
        session.expire_all()
        return _to_dicts(session, [_get_model(session, lease_id)])[0]


# Events

def events_due(context, now: datetime.datetime,
               claim_timeout: datetime.timedelta, limit: int = 100) -> list:
    """Events to run now: UNDONE and due, or IN_PROGRESS for too long
    (their manager died). Oldest first."""
    event = models.Event
    stale = now - claim_timeout
    query = (sa.select(event.id, event.lease_id, event.event_type,
                       event.time, event.status)
             .where(event.time <= now,
                    sa.or_(event.status == 'UNDONE',
                           sa.and_(event.status == 'IN_PROGRESS',
                                   event.updated_at < stale)))
             .order_by(event.time, event.event_type).limit(limit))
    with db_session.reader.using(context) as session:
        return [dict(row._mapping) for row in session.execute(query)]


def event_claim(context, event_id: str, now: datetime.datetime,
                claim_timeout: datetime.timedelta) -> bool:
    """Take an event for this manager; True if we won the claim.

    One UPDATE guarded by the status: of several managers, exactly one
    sees rowcount 1. Guarded by the time too: an update may have moved
    the event since it was found due.
    """
    event = models.Event
    stale = now - claim_timeout
    with db_session.writer.using(context) as session:
        result = session.execute(
            sa.update(event)
            .where(event.id == event_id, event.time <= now,
                   sa.or_(event.status == 'UNDONE',
                          sa.and_(event.status == 'IN_PROGRESS',
                                  event.updated_at < stale)))
            .values(status='IN_PROGRESS', updated_at=now)
            .execution_options(synchronize_session=False))
        return result.rowcount == 1


def event_set_status(context, event_id: str, status: str) -> None:
    with db_session.writer.using(context) as session:
        session.execute(
            sa.update(models.Event).where(models.Event.id == event_id)
            .values(status=status)
            .execution_options(synchronize_session=False))


def event_status(context, lease_id: str, event_type: str) -> str | None:
    with db_session.reader.using(context) as session:
        return session.scalars(sa.select(models.Event.status).where(
            models.Event.lease_id == lease_id,
            models.Event.event_type == event_type)).first()
