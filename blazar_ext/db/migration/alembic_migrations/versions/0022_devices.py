"""physical:device: devices, their capability values, reservations and
allocations.

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-26
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0022'
down_revision = '0021'

# Names compared byte for byte, as hosts' capability names are.
EXACT = sa.String(255).with_variant(
    mysql.VARCHAR(255, charset='utf8mb4', collation='utf8mb4_bin'),
    'mysql', 'mariadb')


def _timestamps() -> list:
    return [sa.Column('created_at', sa.DateTime),
            sa.Column('updated_at', sa.DateTime)]


def _reservation_id(unique: bool = False) -> sa.Column:
    return sa.Column('reservation_id', sa.String(36),
                     sa.ForeignKey('reservations.id', ondelete='CASCADE'),
                     nullable=False, unique=unique or None,
                     index=not unique or None)


def upgrade() -> None:
    op.create_table(
        'devices',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('name', EXACT, nullable=False, unique=True),
        sa.Column('device_type', sa.String(255), nullable=False),
        sa.Column('vendor', sa.String(255)),
        sa.Column('model', sa.String(255)),
        sa.Column('reservable', sa.Boolean, nullable=False,
                  server_default=sa.true()),
        sa.Column('reservable_reason', sa.String(255)),
        sa.Column('reservable_by', sa.String(64)),
        *_timestamps(),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_table(
        'device_extra_capabilities',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('device_id', sa.String(36),
                  sa.ForeignKey('devices.id', ondelete='CASCADE'),
                  nullable=False),
        sa.Column('capability_id', sa.String(36),
                  sa.ForeignKey('extra_capabilities.id'), nullable=False),
        sa.Column('capability_value', sa.Text, nullable=False),
        sa.Column('capability_number', sa.Numeric(65, 30)),
        *_timestamps(),
        sa.UniqueConstraint(
            'device_id', 'capability_id',
            name='uniq_device_extra_capabilities0device0capability'),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('ix_device_extra_capabilities_capability_value',
                    'device_extra_capabilities',
                    ['capability_id', 'capability_value'],
                    mysql_length={'capability_value': 255})
    op.create_index('ix_device_extra_capabilities_capability_number',
                    'device_extra_capabilities',
                    ['capability_id', 'capability_number'])
    op.create_table(
        'device_reservations',
        sa.Column('id', sa.String(36), primary_key=True),
        _reservation_id(unique=True),
        sa.Column('min', sa.Integer, nullable=False),
        sa.Column('max', sa.Integer, nullable=False),
        sa.Column('resource_properties', sa.Text),
        *_timestamps(),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_table(
        'device_allocations',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('device_id', sa.String(36), sa.ForeignKey('devices.id'),
                  nullable=False),
        _reservation_id(),
        sa.Column('start_date', sa.DateTime, nullable=False),
        sa.Column('end_date', sa.DateTime, nullable=False),
        *_timestamps(),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('ix_device_allocations_device_window',
                    'device_allocations',
                    ['device_id', 'start_date', 'end_date'])
