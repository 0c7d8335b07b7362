"""Lease series and their occurrences (issue 30).

The series row keeps the rule and the request; each occurrence row links a
date to the ordinary lease booked for it (or says why there is none). The
manager writes them in the transaction that books the leases; reads come
from the API.
"""

import datetime

import sqlalchemy as sa

from blazar_ext.db.api import lease as lease_api
from blazar_ext.db.models import lease as lease_models
from blazar_ext.db.models import series as models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions

ACTIVE = 'ACTIVE'
DELETED = 'DELETED'

BOOKED = 'booked'
SKIPPED = 'skipped'
UNAVAILABLE = 'unavailable'
CANCELLED = 'cancelled'

_SERIES = models.LeaseSeries
_OCC = models.SeriesOccurrence
_LEASE = lease_models.Lease


# Reading

def _occurrences(session, series_ids: list) -> dict:
    """{series id: [occurrence dicts with the lease's status]}."""
    found: dict = {sid: [] for sid in series_ids}
    if not series_ids:
        return found
    query = (sa.select(_OCC.series_id, _OCC.lease_id, _OCC.start_date,
                       _OCC.end_date, _OCC.status,
                       _LEASE.status.label('lease_status'))
             .outerjoin(_LEASE, _LEASE.id == _OCC.lease_id)
             .where(_OCC.series_id.in_(series_ids))
             .order_by(_OCC.series_id, _OCC.start_date))
    for row in session.execute(query):
        found[row.series_id].append({
            'lease_id': row.lease_id, 'start_date': row.start_date,
            'end_date': row.end_date, 'status': row.status,
            'lease_status': row.lease_status})
    return found


def _with_occurrences(session, rows: list) -> list:
    series = [row.to_dict() for row in rows]
    occurrences = _occurrences(session, [s['id'] for s in series])
    for values in series:
        values['occurrences'] = occurrences[values['id']]
    return series


def series_get(context, series_id: str) -> dict:
    """One series with its occurrences; LeaseSeriesNotFound."""
    with db_session.reader.using(context) as session:
        row = session.get(_SERIES, series_id)
        if row is None:
            raise exceptions.LeaseSeriesNotFound(series=series_id)
        return _with_occurrences(session, [row])[0]


def series_read(session, series_id: str) -> dict:
    """One series with its occurrences, in the caller's transaction (as
    written by it: series_set bypasses the identity map)."""
    row = session.scalars(
        sa.select(_SERIES).where(_SERIES.id == series_id)
        .execution_options(populate_existing=True)).one()
    return _with_occurrences(session, [row])[0]


def series_list(context, project_id: str | None = None) -> list:
    """The series (of one project, if given), oldest first."""
    query = sa.select(_SERIES).order_by(_SERIES.created_at, _SERIES.id)
    if project_id is not None:
        query = query.where(_SERIES.project_id == project_id)
    with db_session.reader.using(context) as session:
        return _with_occurrences(session, list(session.scalars(query)))


def series_of_lease(session, lease_id: str) -> str | None:
    """The id of the series ``lease_id`` is an occurrence of, if any."""
    return session.scalar(sa.select(_OCC.series_id).where(
        _OCC.lease_id == lease_id))


# Writing: the manager's transaction.

def series_insert(session, values: dict) -> str:
    row = _SERIES(**values)
    session.add(row)
    session.flush()
    return row.id


def series_lock(session, series_id: str) -> dict:
    """The series row, locked; LeaseSeriesNotFound."""
    row = session.scalars(
        sa.select(_SERIES).where(_SERIES.id == series_id).with_for_update()
        .execution_options(populate_existing=True)).first()
    if row is None:
        raise exceptions.LeaseSeriesNotFound(series=series_id)
    return row.to_dict()


def series_set(session, series_id: str, values: dict) -> None:
    session.execute(sa.update(_SERIES).where(_SERIES.id == series_id)
                    .values(**values)
                    .execution_options(synchronize_session=False))


def occurrences_add(session, series_id: str, rows: list) -> None:
    """Record occurrences [{start_date, end_date, status, lease_id}]; a
    date recorded already is an IntegrityError (the caller's transaction
    rolls back)."""
    if rows:
        session.execute(sa.insert(_OCC), [dict(r, series_id=series_id,
                                               id=models.base.new_uuid())
                                          for r in rows])


def recorded_dates(session, series_id: str) -> set:
    """The start dates of the series' occurrences recorded so far."""
    return set(session.scalars(sa.select(_OCC.start_date).where(
        _OCC.series_id == series_id)))


def future_occurrences(session, series_id: str,
                       now: datetime.datetime) -> list:
    """Occurrences of the series starting after ``now`` (any status),
    with their lease's status."""
    query = (sa.select(_OCC.id, _OCC.series_id, _OCC.lease_id,
                       _OCC.start_date,
                       _OCC.end_date, _OCC.status,
                       _LEASE.status.label('lease_status'))
             .outerjoin(_LEASE, _LEASE.id == _OCC.lease_id)
             .where(_OCC.series_id == series_id, _OCC.start_date > now)
             .order_by(_OCC.start_date))
    return [dict(row._mapping) for row in session.execute(query)]


def occurrence_set(session, occurrence_id: str, values: dict) -> None:
    session.execute(sa.update(_OCC).where(_OCC.id == occurrence_id)
                    .values(**values)
                    .execution_options(synchronize_session=False))


# Extension by the manager: one manager at a time per series.

def series_to_extend(context, horizon: datetime.datetime,
                     limit: int = 100) -> list:
    """Ids of active series booked short of ``horizon``."""
    with db_session.reader.using(context) as session:
        return list(session.scalars(
            sa.select(_SERIES.id)
            .where(_SERIES.status == ACTIVE, _SERIES.booked_until < horizon)
            .order_by(_SERIES.booked_until).limit(limit)))


def series_claim(context, series_id: str, now: datetime.datetime,
                 until: datetime.datetime) -> bool:
    """Take the series for extension until ``until``; True if this
    manager won (one guarded UPDATE, as event claims)."""
    with db_session.writer.using(context) as session:
        result = session.execute(
            sa.update(_SERIES)
            .where(_SERIES.id == series_id, _SERIES.status == ACTIVE,
                   sa.or_(_SERIES.claimed_until.is_(None),
                          _SERIES.claimed_until < now))
            .values(claimed_until=until)
            .execution_options(synchronize_session=False))
        return result.rowcount == 1


def series_release(context, series_id: str) -> None:
    with db_session.writer.using(context) as session:
        series_set(session, series_id, {'claimed_until': None})


retry = lease_api.retry
