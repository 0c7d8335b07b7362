"""Lifecycle notifications: the outbox, webhook subscriptions and their
deliveries.

Every event is written to ``outbox`` in the transaction of the change
that causes it; the managers claim and deliver each one once as an
oslo.messaging notification and once to each subscription that hears it
(one ``webhook_deliveries`` row per subscription, with its attempts).

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-26
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0023'
down_revision = '0022'

_TABLE_ARGS = {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8mb4'}
LONG_TEXT = sa.Text().with_variant(mysql.LONGTEXT(), 'mysql', 'mariadb')


def _timestamps() -> list:
    return [sa.Column('created_at', sa.DateTime),
            sa.Column('updated_at', sa.DateTime)]


def upgrade() -> None:
    op.create_table(
        'outbox',
        sa.Column('seq', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('id', sa.String(36), nullable=False, unique=True),
        sa.Column('event_type', sa.String(64), nullable=False),
        sa.Column('subject', sa.String(255), nullable=False, index=True),
        sa.Column('project_id', sa.String(255)),
        sa.Column('time', sa.DateTime, nullable=False),
        sa.Column('payload', LONG_TEXT, nullable=False),
        sa.Column('dedup_key', sa.String(255), unique=True),
        sa.Column('notify_status', sa.String(16), nullable=False),
        sa.Column('notify_claimed_at', sa.DateTime),
        *_timestamps(),
        sa.Index('ix_outbox_notify_status_seq', 'notify_status', 'seq'),
        **_TABLE_ARGS)
    op.create_table(
        'subscriptions',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('project_id', sa.String(255), index=True),
        sa.Column('user_id', sa.String(255)),
        sa.Column('url', sa.String(2048), nullable=False),
        sa.Column('events', sa.Text, nullable=False),
        sa.Column('lead_times', sa.Text, nullable=False),
        sa.Column('secret', sa.String(255), nullable=False),
        *_timestamps(),
        **_TABLE_ARGS)
    op.create_table(
        'webhook_deliveries',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('subscription_id', sa.String(36),
                  sa.ForeignKey('subscriptions.id', ondelete='CASCADE'),
                  nullable=False),
        sa.Column('event_id', sa.String(36), nullable=False),
        sa.Column('event_seq', sa.Integer, nullable=False),
        sa.Column('event_type', sa.String(64), nullable=False),
        sa.Column('subject', sa.String(255), nullable=False),
        sa.Column('status', sa.String(16), nullable=False),
        sa.Column('attempts', sa.Integer, nullable=False),
        sa.Column('next_attempt_at', sa.DateTime, nullable=False),
        sa.Column('claimed_at', sa.DateTime),
        sa.Column('claim_token', sa.String(36), index=True),
        sa.Column('last_status_code', sa.Integer),
        sa.Column('last_error', sa.String(255)),
        sa.Column('delivered_at', sa.DateTime),
        *_timestamps(),
        sa.UniqueConstraint('subscription_id', 'event_id',
                            name='uniq_webhook_deliveries_subscription_event'),
        sa.Index('ix_webhook_deliveries_status_next', 'status',
                 'next_attempt_at'),
        sa.Index('ix_webhook_deliveries_queue', 'subscription_id',
                 'subject', 'event_seq'),
        **_TABLE_ARGS)
    op.create_table(
        'webhook_delivery_attempts',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('delivery_id', sa.String(36),
                  sa.ForeignKey('webhook_deliveries.id', ondelete='CASCADE'),
                  nullable=False, index=True),
        sa.Column('attempted_at', sa.DateTime, nullable=False),
        sa.Column('status_code', sa.Integer),
        sa.Column('error', sa.String(255)),
        sa.Column('duration_ms', sa.Integer),
        *_timestamps(),
        **_TABLE_ARGS)


def downgrade() -> None:
    for table in ('webhook_delivery_attempts', 'webhook_deliveries',
                  'subscriptions', 'outbox'):
        op.drop_table(table)
