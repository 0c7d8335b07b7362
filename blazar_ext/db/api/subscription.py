"""Webhook subscriptions: one project's (or, with no project, every
project's) lifecycle events POSTed to a URL.

Subscriptions are not reservation state: the API writes them itself, as
Placement's handlers write theirs. Events and lead times are stored as
JSON lists; the secret is stored for signing and never read back out by
the API views.
"""

from oslo_serialization import jsonutils
import sqlalchemy as sa

from blazar_ext.db.models import outbox as models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions

FIELDS = ('url', 'events', 'lead_times', 'secret')


def _to_dict(row) -> dict:
    values = row.to_dict()
    values['events'] = jsonutils.loads(values['events'])
    values['lead_times'] = jsonutils.loads(values['lead_times'])
    return values


def _columns(values: dict) -> dict:
    columns = {k: values[k] for k in FIELDS if k in values}
    for key in ('events', 'lead_times'):
        if key in columns:
            columns[key] = jsonutils.dumps(columns[key])
    return columns


def _get_model(session, subscription_id: str):
    row = session.get(models.Subscription, subscription_id)
    if row is None:
        raise exceptions.SubscriptionNotFound(subscription=subscription_id)
    return row


def subscription_create(context, values: dict) -> dict:
    """``values``: url, events, lead_times, secret, project_id (None: every
    project), user_id."""
    with db_session.writer.using(context) as session:
        row = models.Subscription(project_id=values.get('project_id'),
                                  user_id=values.get('user_id'),
                                  **_columns(values))
        session.add(row)
        session.flush()
        return _to_dict(row)


def subscription_get(context, subscription_id: str) -> dict:
    with db_session.reader.using(context) as session:
        return _to_dict(_get_model(session, subscription_id))


def subscription_list(context, project_id: str | None = None,
                      all_projects: bool = False) -> list:
    """A project's subscriptions, or with ``all_projects`` every one."""
    query = sa.select(models.Subscription).order_by(
        models.Subscription.created_at, models.Subscription.id)
    if not all_projects:
        query = query.where(models.Subscription.project_id == project_id)
    with db_session.reader.using(context) as session:
        return [_to_dict(row) for row in session.scalars(query)]


def subscription_update(context, subscription_id: str,
                        values: dict) -> dict:
    with db_session.writer.using(context) as session:
        row = _get_model(session, subscription_id)
        for key, value in _columns(values).items():
            setattr(row, key, value)
        session.flush()
        return _to_dict(row)


def subscription_delete(context, subscription_id: str) -> None:
    """Delete it with its deliveries and their attempts (explicitly: no
    reliance on ON DELETE CASCADE)."""
    d = models.Delivery.__table__
    a = models.DeliveryAttempt.__table__
    with db_session.writer.using(context) as session:
        _get_model(session, subscription_id)
        session.execute(sa.delete(a).where(a.c.delivery_id.in_(
            sa.select(d.c.id).where(d.c.subscription_id == subscription_id))))
        session.execute(sa.delete(d).where(
            d.c.subscription_id == subscription_id))
        session.execute(sa.delete(models.Subscription).where(
            models.Subscription.id == subscription_id))
