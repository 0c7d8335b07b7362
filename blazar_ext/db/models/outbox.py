"""The outbox of lifecycle events, webhook subscriptions and their
deliveries (revision 0023)."""

import sqlalchemy as sa
from sqlalchemy.dialects import mysql

from blazar_ext.db.models import base

# A lease with its details can pass MySQL's TEXT (64 KiB).
LONG_TEXT = sa.Text().with_variant(mysql.LONGTEXT(), 'mysql', 'mariadb')


class OutboxEvent(base.BASE):
    """One event, written in the transaction of the change causing it."""

    __tablename__ = 'outbox'
    __table_args__ = (
        sa.Index('ix_outbox_notify_status_seq', 'notify_status', 'seq'),
    )

    # Insertion order: the order of events per lease.
    seq = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    # The CloudEvents id, the receivers' idempotency key.
    id = sa.Column(sa.String(36), nullable=False, unique=True,
                   default=base.new_uuid)
    event_type = sa.Column(sa.String(64), nullable=False)
    # What it is about (a lease id): deliveries keep its order.
    subject = sa.Column(sa.String(255), nullable=False, index=True)
    project_id = sa.Column(sa.String(255))
    time = sa.Column(sa.DateTime, nullable=False)
    payload = sa.Column(LONG_TEXT, nullable=False)
    # Unique when set: an event recorded by whichever manager comes first
    # (lease.ending_soon per lease, end date and lead time).
    dedup_key = sa.Column(sa.String(255), unique=True)
    # The oslo.messaging notification: NONE, PENDING, IN_PROGRESS, DONE.
    notify_status = sa.Column(sa.String(16), nullable=False)
    notify_claimed_at = sa.Column(sa.DateTime)
    # The claim that won it (revision 0028): one UPDATE claims a batch.
    notify_claim_token = sa.Column(sa.String(36))


class Subscription(base.BASE):
    __tablename__ = 'subscriptions'

    id = sa.Column(sa.String(36), primary_key=True, default=base.new_uuid)
    # None for a subscription to every project (admins only).
    project_id = sa.Column(sa.String(255), index=True)
    user_id = sa.Column(sa.String(255))
    url = sa.Column(sa.String(2048), nullable=False)
    # JSON lists: event names, lead times in seconds.
    events = sa.Column(sa.Text, nullable=False)
    lead_times = sa.Column(sa.Text, nullable=False)
    secret = sa.Column(sa.String(255), nullable=False)


class Delivery(base.BASE):
    """One event to one subscription: claimed, attempted, then DELIVERED
    or DEAD."""

    __tablename__ = 'webhook_deliveries'
    __table_args__ = (
        sa.UniqueConstraint('subscription_id', 'event_id',
                            name='uniq_webhook_deliveries_subscription_event'),
        sa.Index('ix_webhook_deliveries_status_next', 'status',
                 'next_attempt_at'),
        # The head of each (subscription, subject) queue.
        sa.Index('ix_webhook_deliveries_queue', 'subscription_id',
                 'subject', 'event_seq'),
    )

    id = sa.Column(sa.String(36), primary_key=True, default=base.new_uuid)
    subscription_id = sa.Column(
        sa.String(36), sa.ForeignKey('subscriptions.id', ondelete='CASCADE'),
        nullable=False)
    event_id = sa.Column(sa.String(36), nullable=False)
    event_seq = sa.Column(sa.Integer, nullable=False)
    event_type = sa.Column(sa.String(64), nullable=False)
    subject = sa.Column(sa.String(255), nullable=False)
    # PENDING, IN_PROGRESS, DELIVERED, DEAD.
    status = sa.Column(sa.String(16), nullable=False)
    attempts = sa.Column(sa.Integer, nullable=False, default=0)
    next_attempt_at = sa.Column(sa.DateTime, nullable=False)
    claimed_at = sa.Column(sa.DateTime)
    claim_token = sa.Column(sa.String(36), index=True)
    last_status_code = sa.Column(sa.Integer)
    last_error = sa.Column(sa.String(255))
    delivered_at = sa.Column(sa.DateTime)


class DeliveryAttempt(base.BASE):
    __tablename__ = 'webhook_delivery_attempts'

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    delivery_id = sa.Column(
        sa.String(36),
        sa.ForeignKey('webhook_deliveries.id', ondelete='CASCADE'),
        nullable=False, index=True)
    attempted_at = sa.Column(sa.DateTime, nullable=False)
    status_code = sa.Column(sa.Integer)
    error = sa.Column(sa.String(255))
    duration_ms = sa.Column(sa.Integer)
