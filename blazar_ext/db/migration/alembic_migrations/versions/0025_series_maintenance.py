"""Lease series (recurring leases) and maintenance windows.

A series is stored once, with its rule, time zone and request; each
occurrence is an ordinary lease, linked through lease_series_occurrences,
unique per series and date so that no occurrence is booked twice. A
maintenance window holds its host through a lease of its own.

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-26
"""

from alembic import op
import sqlalchemy as sa

revision = '0025'
down_revision = '0024'


# As every table: InnoDB and utf8mb4 on MySQL whatever the server's
# defaults (a foreign key to leases needs the same character set).
_TABLE_ARGS = {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8mb4'}


def _timestamps() -> list:
    return [sa.Column('created_at', sa.DateTime),
            sa.Column('updated_at', sa.DateTime)]


def upgrade() -> None:
    op.create_table(
        'lease_series',
        *_timestamps(),
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('name', sa.String(80), nullable=False),
        sa.Column('user_id', sa.String(255)),
        sa.Column('project_id', sa.String(255), index=True),
        sa.Column('recurrence', sa.String(255), nullable=False),
        sa.Column('timezone', sa.String(64), nullable=False),
        sa.Column('local_start', sa.DateTime, nullable=False),
        sa.Column('local_end', sa.DateTime, nullable=False),
        sa.Column('request', sa.Text, nullable=False),
        sa.Column('booking', sa.String(16), nullable=False),
        sa.Column('status', sa.String(16), nullable=False),
        sa.Column('booked_until', sa.DateTime, nullable=False),
        sa.Column('claimed_until', sa.DateTime), **_TABLE_ARGS)
    op.create_table(
        'lease_series_occurrences',
        *_timestamps(),
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('series_id', sa.String(36),
                  sa.ForeignKey('lease_series.id', ondelete='CASCADE'),
                  nullable=False, index=True),
        sa.Column('lease_id', sa.String(36),
                  sa.ForeignKey('leases.id', ondelete='SET NULL'),
                  index=True),
        sa.Column('start_date', sa.DateTime, nullable=False),
        sa.Column('end_date', sa.DateTime, nullable=False),
        sa.Column('status', sa.String(16), nullable=False),
        sa.UniqueConstraint('series_id', 'start_date',
                            name='uniq_lease_series_occurrences0date'),
        **_TABLE_ARGS)
    op.create_table(
        'maintenance_windows',
        *_timestamps(),
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('compute_host_id', sa.String(36),
                  sa.ForeignKey('computehosts.id', ondelete='CASCADE'),
                  nullable=False, index=True),
        sa.Column('start_date', sa.DateTime, nullable=False),
        sa.Column('end_date', sa.DateTime, nullable=False),
        sa.Column('reason', sa.String(255)),
        sa.Column('status', sa.String(16), nullable=False),
        sa.Column('hold_lease_id', sa.String(36),
                  sa.ForeignKey('leases.id', ondelete='SET NULL')),
        sa.Column('user_id', sa.String(255)),
        sa.Column('project_id', sa.String(255)),
        sa.Column('claimed_until', sa.DateTime),
        sa.Index('ix_maintenance_windows_status_start', 'status',
                 'start_date'), **_TABLE_ARGS)
