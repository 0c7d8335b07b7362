"""The outbox: lifecycle events written in the transaction of the change
that causes them, and their delivery state.

``record`` is what a feature calls inside its writer transaction. It
writes the event and, in the same transaction, one delivery per
subscription that hears it, so that an event is either committed with
everything it must reach or not at all. The managers then claim
notifications and deliveries with guarded UPDATEs, as the event loop
claims lease events: of several managers one wins, and a claim left by
a manager that died is taken over once it is older than
[notifications] claim_timeout.
"""

import datetime
import threading

from oslo_config import cfg
from oslo_db import exception as db_exc
from oslo_serialization import jsonutils
from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from blazar_ext.db.api import retry as db_retry
from blazar_ext.db.models import lease as lease_models
from blazar_ext.db.models import outbox as models
from blazar_ext.db import session as db_session
from blazar_ext.notifications import catalog

CONF = cfg.CONF

# Notification states (outbox.notify_status).
NONE = 'NONE'
PENDING = 'PENDING'
IN_PROGRESS = 'IN_PROGRESS'
DONE = 'DONE'
# Delivery states (webhook_deliveries.status); PENDING and IN_PROGRESS too.
DELIVERED = 'DELIVERED'
DEAD = 'DEAD'
OPEN = (PENDING, IN_PROGRESS)

# What the events this thread recorded since the last take_unsent() left
# to send: {'notifications': bool, 'deliveries': bool}.
_UNSENT = threading.local()


_SCALARS = (str, int, float, type(None))
_PLAIN = frozenset((str, int, float, bool, type(None)))


def primitive(value):
    """``jsonutils.to_primitive(value, convert_datetime=True)``, faster
    for what a lease is made of (dicts, lists, scalars, naive datetimes):
    to_primitive's generic tests were most of recording a lease's event.
    Anything else goes to to_primitive."""
    if isinstance(value, _SCALARS):  # bool is an int
        return value
    # Scalars of these exact types are their own primitive: kept without
    # a call, most of a lease's values are.
    if isinstance(value, dict):
        return {key if type(key) in _PLAIN else primitive(key):
                item if type(item) in _PLAIN else primitive(item)
                for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [item if type(item) in _PLAIN else primitive(item)
                for item in value]
    if (type(value) is datetime.datetime and value.tzinfo is None
            and value.year >= 1000):
        # The text of timeutils.PERFECT_TIME_FORMAT, which strftime
        # leaves unpadded before year 1000.
        return value.isoformat(timespec='microseconds')
    return jsonutils.to_primitive(value, convert_datetime=True)


def listeners(session, event_type: str, project_id: str | None,
              lead_time: int | None = None) -> list:
    """Ids of the subscriptions that hear ``event_type`` of
    ``project_id``'s resources (and, for ending_soon, at ``lead_time``);
    read once per transaction and event kind."""
    return _subscriptions(session, event_type, project_id, lead_time)[0]


def _subscriptions_of(project: bool) -> sa.Select:
    table = models.Subscription.__table__
    where = [table.c.project_id.is_(None)]
    if project:
        where.append(table.c.project_id == sa.bindparam('project_id'))
    return (sa.select(table.c.id, table.c.events, table.c.lead_times)
            .where(sa.or_(*where)).order_by(table.c.id))


# The subscriptions every project hears and, given one, the project's:
# built once, as every recorded event reads them.
_SUBSCRIPTIONS = {project: _subscriptions_of(project)
                  for project in (False, True)}


def _subscriptions(session, event_type: str, project_id: str | None,
                   lead_time: int | None) -> tuple:
    """(listeners, whether ``project_id``'s resources have any
    subscription at all), read once per transaction and event kind."""
    cache = session.info.setdefault('outbox_listeners', {})
    key = (event_type, project_id, lead_time)
    if key in cache:
        return cache[key]
    found, any_found = [], False
    for row in session.connection().execute(
            _SUBSCRIPTIONS[project_id is not None],
            {'project_id': project_id}):
        any_found = True
        if event_type not in jsonutils.loads(row.events):
            continue
        if (lead_time is not None and
                lead_time not in jsonutils.loads(row.lead_times)):
            continue
        found.append(row.id)
    cache[key] = found, any_found
    return cache[key]


def notifications_wanted() -> bool:
    """Whether oslo.messaging notifications go anywhere: a driver other
    than ``noop`` in [oslo_messaging_notifications]. With none (the
    default) an event is recorded as needing no notification, and the
    commits that would claim and finish it are not made. Until
    oslo.messaging has registered its options (no notifier set up in
    this process), assume they do."""
    try:
        drivers = CONF.oslo_messaging_notifications.driver
    except (cfg.NoSuchOptError, cfg.NoSuchGroupError):
        return True
    return any(driver != 'noop' for driver in drivers)


# Table statements (the session runs them without a flush), on its
# connection: past the ORM's execution path.
_INSERT_EVENT = sa.insert(models.OutboxEvent.__table__)
_INSERT_DELIVERY = sa.insert(models.Delivery.__table__)


def record(session, event_type: str, payload: dict,
           project_id: str | None = None, subject: str | None = None,
           dedup_key: str | None = None,
           lead_time: int | None = None) -> str:
    """Write one event and its deliveries in the caller's transaction;
    its id (the CloudEvents id).

    ``payload`` is the event's data (a lease: the whole lease);
    ``subject`` and ``project_id`` default to its ``id`` and
    ``project_id``. ``event_type`` must be in notifications.catalog.
    """
    kind = catalog.get(event_type)
    data = primitive(payload)
    if subject is None:
        subject = data['id']
    if project_id is None:
        project_id = data.get('project_id')
    now = timeutils.utcnow()
    event_id = uuidutils.generate_uuid()
    notify = bool(kind.notification) and notifications_wanted()
    # Parameters, not values(): the compiled INSERT is cached.
    seq = session.connection().execute(_INSERT_EVENT, {
        'id': event_id, 'event_type': event_type, 'subject': subject,
        'project_id': project_id, 'time': now,
        'payload': jsonutils.dumps(data), 'dedup_key': dedup_key,
        'notify_status': PENDING if notify else NONE,
        'created_at': now}).inserted_primary_key[0]
    subscriptions, subscribed = _subscriptions(session, event_type,
                                               project_id, lead_time)
    _note_unsent(notify, subscribed)
    if subscriptions:
        session.connection().execute(_INSERT_DELIVERY, [
            {'id': uuidutils.generate_uuid(), 'subscription_id': sid,
             'event_id': event_id, 'event_seq': seq,
             'event_type': event_type, 'subject': subject,
             'status': PENDING, 'attempts': 0, 'next_attempt_at': now,
             'created_at': now} for sid in subscriptions])
    return event_id


def _note_unsent(notifications: bool, deliveries: bool) -> None:
    _UNSENT.notifications = notifications or getattr(
        _UNSENT, 'notifications', False)
    _UNSENT.deliveries = deliveries or getattr(_UNSENT, 'deliveries', False)


def take_unsent() -> tuple:
    """(notifications, deliveries): whether the events this thread
    recorded since it last asked left a notification to send, and whether
    their project has a subscription (a delivery, or an ending_soon to
    schedule); asking clears both. A transaction rolled back leaves them
    set: one needless look, never a missed one."""
    unsent = (getattr(_UNSENT, 'notifications', False),
              getattr(_UNSENT, 'deliveries', False))
    _UNSENT.notifications = _UNSENT.deliveries = False
    return unsent


def record_once(context, event_type: str, payload: dict, dedup_key: str,
                **kwargs) -> str | None:
    """``record`` in a transaction of its own, unless an event with
    ``dedup_key`` exists (whichever manager comes first); its id or
    None."""
    try:
        with db_session.writer.using(context) as session:
            return record(session, event_type, payload,
                          dedup_key=dedup_key, **kwargs)
    except db_exc.DBDuplicateEntry:
        return None


# oslo.messaging notifications

def _stale(now: datetime.datetime, timeout: float) -> datetime.datetime:
    return now - datetime.timedelta(seconds=timeout)


@db_retry.on_deadlock
def notifications_claim(context, now: datetime.datetime,
                        claim_timeout: float, limit: int = 100,
                        recorded_before: datetime.datetime | None = None
                        ) -> list:
    """Claim pending notifications (and stale claims), oldest first,
    of events recorded before ``recorded_before`` if given:
    [{'seq', 'id', 'event_type', 'time', 'payload'}]."""
    table = models.OutboxEvent.__table__
    due = sa.or_(table.c.notify_status == PENDING,
                 sa.and_(table.c.notify_status == IN_PROGRESS,
                         table.c.notify_claimed_at <
                         _stale(now, claim_timeout)))
    if recorded_before is not None:
        due = sa.and_(due, table.c.time < recorded_before)
    # Found by a reader first: an idle poll takes no write lock (and
    # MySQL cannot UPDATE a table by a LIMITed subquery of itself).
    with db_session.reader.using(context) as session:
        rows = [dict(r._mapping) for r in session.execute(
            sa.select(table.c.seq, table.c.id, table.c.event_type,
                      table.c.time, table.c.payload)
            .where(due).order_by(table.c.seq).limit(limit))]
    if not rows:
        return []
    seqs = [row['seq'] for row in rows]
    token = uuidutils.generate_uuid()
    with db_session.writer.using(context) as session:
        # One guarded UPDATE for the batch: of several managers one
        # claims each; what this one won is read back by its token.
        session.execute(
            sa.update(table).where(table.c.seq.in_(seqs), due)
            .values(notify_status=IN_PROGRESS, notify_claimed_at=now,
                    notify_claim_token=token))
        won = set(session.scalars(sa.select(table.c.seq).where(
            table.c.seq.in_(seqs), table.c.notify_claim_token == token)))
    return [row for row in rows if row['seq'] in won]


@db_retry.on_deadlock
def notifications_done(context, seqs: list) -> None:
    if not seqs:
        return
    table = models.OutboxEvent.__table__
    with db_session.writer.using(context) as session:
        session.execute(sa.update(table).where(table.c.seq.in_(seqs))
                        .values(notify_status=DONE))


# Webhook deliveries

def _due(table, now: datetime.datetime, claim_timeout: float):
    return sa.or_(sa.and_(table.c.status == PENDING,
                          table.c.next_attempt_at <= now),
                  sa.and_(table.c.status == IN_PROGRESS,
                          table.c.claimed_at < _stale(now, claim_timeout)))


@db_retry.on_deadlock
def deliveries_claim(context, now: datetime.datetime, claim_timeout: float,
                     limit: int = 100) -> list:
    """Claim due deliveries, each the oldest open one of its
    (subscription, subject) queue, so a lease's events reach a receiver
    in order. Each with its subscription's url and secret and its event,
    and the claim's token."""
    d = models.Delivery.__table__
    earlier = d.alias('earlier')
    s = models.Subscription.__table__
    o = models.OutboxEvent.__table__
    head = ~sa.exists().where(earlier.c.subscription_id == d.c.subscription_id,
                              earlier.c.subject == d.c.subject,
                              earlier.c.event_seq < d.c.event_seq,
                              earlier.c.status.in_(OPEN))
    # Found by a reader first: an idle poll takes no write lock.
    with db_session.reader.using(context) as session:
        ids = list(session.scalars(
            sa.select(d.c.id).where(_due(d, now, claim_timeout), head)
            .order_by(d.c.event_seq).limit(limit)))
    if not ids:
        return []
    token = uuidutils.generate_uuid()
    with db_session.writer.using(context) as session:
        # Guarded again: of several managers, one claims each.
        session.execute(
            sa.update(d).where(d.c.id.in_(ids), _due(d, now, claim_timeout))
            .values(status=IN_PROGRESS, claimed_at=now, claim_token=token))
        return [dict(row._mapping) for row in session.execute(
            sa.select(d.c.id, d.c.subscription_id, d.c.event_id,
                      d.c.subject, d.c.attempts, d.c.claim_token,
                      s.c.url, s.c.secret, o.c.event_type, o.c.time,
                      o.c.payload, o.c.seq)
            .join(s, s.c.id == d.c.subscription_id)
            .join(o, o.c.id == d.c.event_id)
            .where(d.c.claim_token == token, d.c.status == IN_PROGRESS)
            .order_by(d.c.event_seq))]


def _finish_values(result: dict) -> dict:
    values = {'status': result['status'],
              'last_status_code': result['status_code'],
              'last_error': result['error']}
    if result['status'] == PENDING:
        values['next_attempt_at'] = result['next_attempt_at']
    return values


@db_retry.on_deadlock
def deliveries_finish(context, results: list) -> None:
    """Record attempts: each result is {'id', 'claim_token',
    'attempted_at', 'status_code', 'error', 'duration_ms', 'status'
    (DELIVERED, PENDING or DEAD), 'next_attempt_at'}. A claim another
    manager has taken over since is left to it."""
    if not results:
        return
    d = models.Delivery.__table__
    now = timeutils.utcnow()
    # One UPDATE per distinct outcome (a batch of successes is one).
    groups: dict = {}
    for result in results:
        values = _finish_values(result)
        key = (result['claim_token'], tuple(sorted(values.items())))
        groups.setdefault(key, []).append(result['id'])
    with db_session.writer.using(context) as session:
        for (token, values), ids in groups.items():
            values = dict(values)
            if values['status'] == DELIVERED:
                values['delivered_at'] = now
            session.execute(
                sa.update(d).where(d.c.id.in_(ids),
                                   d.c.claim_token == token,
                                   d.c.status == IN_PROGRESS)
                .values(attempts=d.c.attempts + 1, claim_token=None,
                        **values))
        session.execute(sa.insert(models.DeliveryAttempt), [
            {'delivery_id': r['id'], 'attempted_at': r['attempted_at'],
             'status_code': r['status_code'], 'error': r['error'],
             'duration_ms': r['duration_ms'],
             'created_at': r['attempted_at']} for r in results])


def deliveries_list(context, subscription_id: str,
                    limit: int = 1000) -> list:
    """A subscription's deliveries, newest event first, each with its
    attempts (oldest first)."""
    d = models.Delivery.__table__
    a = models.DeliveryAttempt.__table__
    with db_session.reader.using(context) as session:
        deliveries = [dict(r._mapping) for r in session.execute(
            sa.select(d).where(d.c.subscription_id == subscription_id)
            .order_by(d.c.event_seq.desc()).limit(limit))]
        attempts: dict = {x['id']: [] for x in deliveries}
        if deliveries:
            for row in session.execute(
                    sa.select(a).where(a.c.delivery_id.in_(list(attempts)))
                    .order_by(a.c.id)):
                attempts[row.delivery_id].append(dict(row._mapping))
    for delivery in deliveries:
        delivery['attempt_log'] = attempts[delivery['id']]
    return deliveries


# lease.ending_soon

def ending_soon_wanted(context, now: datetime.datetime) -> list:
    """(lease id, end date, lead time) for every active lease ending
    within the lead time of a subscription that hears it, not recorded
    yet."""
    s = models.Subscription.__table__
    lease = lease_models.Lease.__table__
    with db_session.reader.using(context) as session:
        projects_by_lead: dict = {}
        for row in session.execute(
                sa.select(s.c.project_id, s.c.events, s.c.lead_times)
                .where(s.c.events.like('%' + catalog.ENDING_SOON + '%'))):
            if catalog.ENDING_SOON not in jsonutils.loads(row.events):
                continue
            for lead in jsonutils.loads(row.lead_times):
                projects_by_lead.setdefault(lead, set()).add(row.project_id)
        wanted = []
        for lead, projects in sorted(projects_by_lead.items()):
            query = sa.select(lease.c.id, lease.c.end_date).where(
                lease.c.status == 'ACTIVE', lease.c.end_date > now,
                lease.c.end_date <= now + datetime.timedelta(seconds=lead))
            if None not in projects:
                query = query.where(lease.c.project_id.in_(sorted(projects)))
            wanted.extend((row.id, row.end_date, lead)
                          for row in session.execute(query))
        if not wanted:
            return []
        keys = {ending_soon_key(*w): w for w in wanted}
        o = models.OutboxEvent.__table__
        known = set(session.scalars(sa.select(o.c.dedup_key).where(
            o.c.dedup_key.in_(list(keys)))))
    return [w for key, w in keys.items() if key not in known]


def ending_soon_key(lease_id: str, end_date: datetime.datetime,
                    lead: int) -> str:
    return 'ending_soon:%s:%s:%d' % (lease_id, end_date.isoformat(), lead)
