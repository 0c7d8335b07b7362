"""Leases, their reservations and events (the rows common to every type).

Lease rows are written by the manager only: it opens the writer
transaction, calls the writing functions here with its session and, in the
same transaction, the resource plugins for their details and allocations.
Nothing here calls back up. Reads return reservations without their type's
detail; blazar_ext.plugins.loader adds it.
"""

import datetime

import sqlalchemy as sa

from blazar_ext.db.api import allocation as allocation_api
from blazar_ext.db.api import retry as db_retry
from blazar_ext.db import driver_read
from blazar_ext.db.models import lease as models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions
from blazar_ext import states


def retry(func):
    """Retry on deadlock and on a lost allocation race."""
    return db_retry.policy(allocation_api.is_retryable)(func)


# Reading

def _rows(session, query, params: dict | None = None) -> list:
    """Column dicts of a Core query: no ORM object per row, which cost
    most of a list of a thousand leases. Read on the driver's cursor
    (db.driver_read): neither the ORM's execution path nor Core's has
    anything to do for a statement built once."""
    return driver_read.dicts(session.connection(), query, params)


_LEASES = models.Lease.__table__
_RESERVATIONS = models.Reservation.__table__
_EVENTS = models.Event.__table__
_CHILD_ORDER = {
    _RESERVATIONS: (_RESERVATIONS.c.created_at, _RESERVATIONS.c.id),
    _EVENTS: (_EVENTS.c.time, _EVENTS.c.event_type),
}


def _children_query(table, lease_ids) -> sa.Select:
    """Reservations or events (``table``) of leases ``lease_ids`` (a
    query of ids or an expanding bound parameter), in their order."""
    return (sa.select(table).where(table.c.lease_id.in_(lease_ids))
            .order_by(*_CHILD_ORDER[table]))


# Built once: building a statement cost as much as running it on a short
# read (SQLite). ``lease_ids`` expands to one bound parameter per id.
_LEASE_BY_ID = sa.select(_LEASES).where(_LEASES.c.id == sa.bindparam('id'))
_CHILDREN_OF = {
    table: _children_query(table, sa.bindparam('lease_ids', expanding=True))
    for table in _CHILD_ORDER}
# One lease's (a show, a manager's read): an expanding parameter is
# rewritten into the SQL on each execution, an equality is not.
_CHILDREN_OF_ONE = {
    table: (sa.select(table).where(table.c.lease_id == sa.bindparam('id'))
            .order_by(*_CHILD_ORDER[table]))
    for table in _CHILD_ORDER}


def _to_dicts(session, leases, children=None, params=None) -> list:
    """Lease dicts with reservations and events; ``leases`` are column
    dicts (see _rows) or models. ``children``, {table: statement} of a
    listing (with bound ``params``), selects their reservations and
    events by the listing's own filter instead of a list of ids."""
    leases = [lease if isinstance(lease, dict) else lease.to_dict()
              for lease in leases]
    lease_ids = [lease['id'] for lease in leases]
    reservations: dict = {lid: [] for lid in lease_ids}
    events: dict = {lid: [] for lid in lease_ids}
    if lease_ids:
        for values in _children(session, _RESERVATIONS, lease_ids,
                                children, params):
            reservations[values['lease_id']].append(values)
        for values in _children(session, _EVENTS, lease_ids, children,
                                params):
            events[values['lease_id']].append(values)
    for values in leases:
        values['reservations'] = reservations[values['id']]
        values['events'] = events[values['id']]
    return leases


# Leases read by id (a series' occurrences) are read this many at a time,
# their children selected by an expanding parameter of their ids.
_IDS_AT_MOST = 100


def _children(session, table, lease_ids: list, children: dict | None,
              params: dict | None) -> list:
    """Rows of ``table`` (reservations or events) of these leases."""
    if children is not None:
        # A listing's prebuilt statement: SQLAlchemy rewrites an
        # expanding parameter into the SQL on every execution.
        return _rows(session, children[table], params)
    if len(lease_ids) == 1:
        return _rows(session, _CHILDREN_OF_ONE[table], {'id': lease_ids[0]})
    return _rows(session, _CHILDREN_OF[table], {'lease_ids': lease_ids})


def _get_row(session, lease_id: str) -> dict:
    """The lease's columns, without the ORM; LeaseNotFound."""
    rows = _rows(session, _LEASE_BY_ID, {'id': lease_id})
    if not rows:
        raise exceptions.LeaseNotFound(lease=lease_id)
    return rows[0]


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
        return _to_dicts(session, [_get_row(session, lease_id)])[0]


def _list_statements(project: bool, degraded: bool) -> tuple:
    """The leases of a listing filtered by project and/or degraded (bound
    parameters of those names), oldest first, and {table: statement} of
    their reservations and events (the same filter)."""
    where = []
    if project:
        where.append(_LEASES.c.project_id == sa.bindparam('project_id'))
    if degraded:
        where.append(_LEASES.c.degraded == sa.bindparam('degraded'))
    selected = sa.select(_LEASES.c.id).where(*where)
    return (sa.select(_LEASES).where(*where).order_by(_LEASES.c.created_at,
                                                      _LEASES.c.id),
            {table: _children_query(table, selected)
             for table in _CHILD_ORDER})


# Built once for each of the four filters a listing can have.
_LISTS = {(project, degraded): _list_statements(project, degraded)
          for project in (False, True) for degraded in (False, True)}


def lease_list(context, project_id: str | None = None,
               degraded: bool | None = None) -> list:
    """Leases (of one project, if given; degraded or not, if given),
    oldest first, in four queries."""
    query, children = _LISTS[project_id is not None, degraded is not None]
    params = {name: value for name, value in (
        ('project_id', project_id), ('degraded', degraded))
        if value is not None}
    with db_session.reader.using(context) as session:
        _one_snapshot(session)
        return _to_dicts(session, _rows(session, query, params), children,
                         params)


# Writing: the manager opens the writer transaction and calls these with
# its session, between its calls to the resource plugins.

# Inserted as table rows, not ORM objects: the unit of work of an object
# flushed at once cost more than its statement. The columns' defaults (id,
# created_at, flags) apply as for an object. Table statements, which the
# session runs without a flush anyway: run on its connection, past the
# ORM's execution path.
_INSERT_LEASE = sa.insert(_LEASES)
_INSERT_RESERVATION = sa.insert(_RESERVATIONS)
_INSERT_EVENT = sa.insert(_EVENTS)


# A column whose value the database gives (a server default): not known
# before the row is read back.
_FROM_DATABASE = object()


def _row(table, values: dict) -> dict:
    """The row an INSERT of ``values`` writes: every column, in the
    table's order (as a read of the row gives them), a missing one its
    Python default, computed here as SQLAlchemy would at the insert
    (``new_uuid``, ``timeutils.utcnow()``, False), or None without one;
    _FROM_DATABASE for a server default alone."""
    row = {}
    for column in table.columns:
        name = column.key
        default = column.default
        if name in values:
            row[name] = values[name]
        elif default is not None and default.is_scalar:
            row[name] = default.arg
        elif default is not None and default.is_callable:
            row[name] = default.arg(None)
        elif default is None and column.server_default is None:
            row[name] = None
        else:
            row[name] = _FROM_DATABASE
    return row


def _insertable(row: dict) -> dict:
    """``row`` without the columns whose value the database gives."""
    return {name: value for name, value in row.items()
            if value is not _FROM_DATABASE}


def _insert_row(session, statement, table, values: dict,
                rows: list | None) -> dict:
    """Insert ``values`` into ``table`` with its defaults computed here;
    the row (appended to ``rows`` if given)."""
    row = _row(table, values)
    session.connection().execute(statement, _insertable(row))
    if rows is not None:
        rows.append(row)
    return row


def lease_insert(session, values: dict, rows: list | None = None) -> str:
    """Insert a lease row; its id. ``rows``, if given, gets the row
    written (see built_lease)."""
    return _insert_row(session, _INSERT_LEASE, _LEASES, values, rows)['id']


def reservation_insert(session, lease_id: str, resource_type: str,
                       status: str, rows: list | None = None) -> str:
    """Insert a reservation row (its detail is the plugin's); its id.
    ``rows`` as for lease_insert."""
    return _insert_row(session, _INSERT_RESERVATION, _RESERVATIONS, {
        'lease_id': lease_id, 'resource_type': resource_type,
        'status': status}, rows)['id']


_SET_RESOURCE = (sa.update(_RESERVATIONS)
                 .where(_RESERVATIONS.c.id == sa.bindparam('reservation'))
                 .values(resource_id=sa.bindparam('resource'),
                         updated_at=sa.bindparam('updated_at')))
# The value updated_at's onupdate would give (the statement sets it).
_UPDATED_AT = _RESERVATIONS.c.updated_at.onupdate.arg


def reservation_set_resource(session, reservation_id: str,
                             resource_id: str | None,
                             rows: list | None = None) -> None:
    """Point a reservation at its detail row (Blazar's resource_id).
    The row's, not an ORM object's: the reservation was inserted so.
    The reservation's row in ``rows``, if there, gets the new values."""
    updated_at = _UPDATED_AT(None)
    session.connection().execute(_SET_RESOURCE, {
        'reservation': reservation_id, 'resource': resource_id,
        'updated_at': updated_at})
    for row in rows or ():
        if row['id'] == reservation_id:
            row.update(resource_id=resource_id, updated_at=updated_at)


def lease_read(session, lease_id: str, lock: bool = False) -> dict:
    """The lease as a dict, without details (read fresh, optionally
    locked); LeaseNotFound."""
    session.expire_all()
    if lock:
        return _to_dicts(session, [_get_model(session, lease_id,
                                              lock=True)])[0]
    # Columns, not an ORM object: the same values, without the
    # entity's loading.
    return _to_dicts(session, [_get_row(session, lease_id)])[0]


_LEASES_BY_IDS = sa.select(_LEASES).where(
    _LEASES.c.id.in_(sa.bindparam('ids', expanding=True)))


def leases_read(session, lease_ids: list) -> list:
    """The leases ``lease_ids`` with reservations and events, in that
    order, in three queries (a lease series' occurrences)."""
    rows = {}
    for start in range(0, len(lease_ids), _IDS_AT_MOST):
        for row in _rows(session, _LEASES_BY_IDS,
                         {'ids': lease_ids[start:start + _IDS_AT_MOST]}):
            rows[row['id']] = row
    leases = [rows[lease_id] for lease_id in lease_ids]
    # Reservations and events selected by id, _IDS_AT_MOST at a time.
    return [lease for start in range(0, len(leases), _IDS_AT_MOST)
            for lease in _to_dicts(session,
                                   leases[start:start + _IDS_AT_MOST])]


def lease_set(session, lease_id: str, values: dict) -> None:
    """Change lease columns (the lease was read with lock=True)."""
    if values:
        session.execute(sa.update(models.Lease).where(
            models.Lease.id == lease_id).values(**values)
            .execution_options(synchronize_session=False))


def events_insert(session, lease_id: str, events: list,
                  rows: list | None = None) -> None:
    """The UNDONE events of a lease just inserted, in one statement (no
    row to lock or replace yet, unlike set_events). ``rows`` as for
    lease_insert."""
    if events:
        written = [_row(_EVENTS, dict(event, lease_id=lease_id,
                                      status=states.Event.UNDONE))
                   for event in events]
        session.connection().execute(_INSERT_EVENT, [
            _insertable(row) for row in written])
        if rows is not None:
            rows.extend(written)


def built_lease(session, lease_rows: list, reservation_rows: list,
                event_rows: list) -> dict | None:
    """The lease lease_read would give of the rows this transaction has
    just inserted (one lease, its reservations and events; see
    lease_insert's ``rows``), without reading them back; None where a
    read could give another value, for the caller to read it:

    * MySQL and MariaDB: a DATETIME keeps no fraction of a second
      (created_at, updated_at), and a string too long may be cut;
    * a value the database gives (a server default);
    * reservations made in the same microsecond, which the read orders
      by id in the database's collation.

    SQLite and PostgreSQL give back the values written: naive datetimes
    to the microsecond, strings and booleans as they were.
    """
    if session.bind.dialect.name not in ('sqlite', 'postgresql'):
        return None
    if len(lease_rows) != 1:
        return None
    for row in (*lease_rows, *reservation_rows, *event_rows):
        if any(value is _FROM_DATABASE for value in row.values()):
            return None
    stamps = [row['created_at'] for row in reservation_rows]
    if any(not isinstance(stamp, datetime.datetime) for stamp in stamps) or (
            any(a >= b for a, b in zip(stamps, stamps[1:]))):
        return None
    # The read's order: reservations by (created_at, id), events by
    # (time, event_type); each event of a lease has its own type.
    lease = dict(lease_rows[0])
    lease['reservations'] = [dict(row) for row in reservation_rows]
    times = [row['time'] for row in event_rows]
    if len(set(times)) != len(times) and not _first_letters_differ(
            [row['event_type'] for row in event_rows]):
        return None
    lease['events'] = sorted(
        (dict(row) for row in event_rows),
        key=lambda row: (row['time'], row['event_type']))
    return lease


def _first_letters_differ(types: list) -> bool:
    """Whether event types ordered by the database's collation surely
    come in Python's order: lowercase ASCII first letters, all
    different (start_lease, before_end_lease, end_lease)."""
    firsts = [kind[:1] for kind in types]
    return (len(set(firsts)) == len(firsts) and
            all(first.isascii() and first.islower() for first in firsts))


def set_events(session, lease_id: str, events: list,
               rearm: tuple = ()) -> None:
    """Replace the lease's UNDONE events of the given types; a DONE event
    of a type in ``rearm`` moved to another time is UNDONE again.

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
            session.add(models.Event(lease_id=lease_id,
                                     status=states.Event.UNDONE, **event))
        elif existing.status == states.Event.UNDONE:
            existing.time = event['time']
        elif (existing.status == states.Event.DONE and
                event['event_type'] in rearm and
                existing.time != event['time']):
            existing.time = event['time']
            existing.status = states.Event.UNDONE
        elif (existing.status == states.Event.IN_PROGRESS and
                existing.time != event['time']):
            raise exceptions.Conflict(
                reason='lease %s is being started or ended right now; '
                       'try again' % lease_id)
    session.flush()


def lease_remove(session, lease_id: str, reservation_ids: list) -> None:
    """Delete a lease, its reservation rows and events; the plugins have
    deleted their details first. Explicit deletes: the service must not
    depend on ON DELETE CASCADE being enforced (SQLite enforces it only
    when asked)."""
    if reservation_ids:
        session.execute(sa.delete(models.Reservation).where(
            models.Reservation.id.in_(reservation_ids)))
    session.execute(sa.delete(models.Event).where(
        models.Event.lease_id == lease_id))
    session.execute(sa.delete(models.Lease).where(
        models.Lease.id == lease_id))


def lease_set_status(context, lease_id: str, status: str,
                     reservation_status: str | None = None) -> dict:
    """Set a lease's (and optionally its reservations') status; the lease
    without details."""
    with db_session.writer.using(context) as session:
        _get_model(session, lease_id, lock=True)
        session.execute(sa.update(models.Lease).where(
            models.Lease.id == lease_id).values(status=status)
            .execution_options(synchronize_session=False))
        if reservation_status is not None:
            session.execute(sa.update(models.Reservation).where(
                models.Reservation.lease_id == lease_id)
                .values(status=reservation_status)
                .execution_options(synchronize_session=False))
        session.flush()
        return lease_read(session, lease_id)


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
                    sa.or_(event.status == states.Event.UNDONE,
                           sa.and_(event.status == states.Event.IN_PROGRESS,
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
                   sa.or_(event.status == states.Event.UNDONE,
                          sa.and_(event.status == states.Event.IN_PROGRESS,
                                  event.updated_at < stale)))
            .values(status=states.Event.IN_PROGRESS, updated_at=now)
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
