"""virtual:instance reservations: their size, and the host slots they hold.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-23
"""

from alembic import op
import sqlalchemy as sa

revision = '0009'
down_revision = '0008'


def _timestamps() -> list:
    return [sa.Column('created_at', sa.DateTime),
            sa.Column('updated_at', sa.DateTime)]


def upgrade() -> None:
    op.create_table(
        'instance_reservations',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('reservation_id', sa.String(36),
                  sa.ForeignKey('reservations.id', ondelete='CASCADE'),
                  nullable=False, unique=True),
        sa.Column('vcpus', sa.Integer, nullable=False),
        sa.Column('memory_mb', sa.Integer, nullable=False),
        sa.Column('disk_gb', sa.Integer, nullable=False),
        sa.Column('amount', sa.Integer, nullable=False),
        sa.Column('affinity', sa.Boolean, nullable=True),
        sa.Column('resource_properties', sa.Text),
        *_timestamps(),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_table(
        'instance_allocations',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('compute_host_id', sa.Integer,
                  sa.ForeignKey('computehosts.id'), nullable=False),
        sa.Column('reservation_id', sa.String(36),
                  sa.ForeignKey('reservations.id', ondelete='CASCADE'),
                  nullable=False, index=True),
        sa.Column('slots', sa.Integer, nullable=False),
        sa.Column('vcpus', sa.Integer, nullable=False),
        sa.Column('memory_mb', sa.Integer, nullable=False),
        sa.Column('disk_gb', sa.Integer, nullable=False),
        sa.Column('start_date', sa.DateTime, nullable=False),
        sa.Column('end_date', sa.DateTime, nullable=False),
        *_timestamps(),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('ix_instance_allocations_host_window',
                    'instance_allocations',
                    ['compute_host_id', 'start_date', 'end_date'])
