"""Initial schema: hosts with legacy extra capabilities, leases, events.

Extra capabilities have their legacy shape here (the capability name stored on
every row), as in upstream Blazar; revision 0002 normalizes them.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from alembic import op
import sqlalchemy as sa

revision = '0001'
down_revision = None


def _timestamps() -> list:
    return [sa.Column('created_at', sa.DateTime),
            sa.Column('updated_at', sa.DateTime)]


def upgrade() -> None:
    op.create_table(
        'computehosts',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('vcpus', sa.Integer, nullable=False),
        sa.Column('cpu_info', sa.Text, nullable=False),
        sa.Column('hypervisor_type', sa.String(255), nullable=False),
        sa.Column('hypervisor_version', sa.Integer, nullable=False),
        sa.Column('hypervisor_hostname', sa.String(255), nullable=False,
                  unique=True),
        sa.Column('service_name', sa.String(255)),
        sa.Column('memory_mb', sa.Integer, nullable=False),
        sa.Column('local_gb', sa.Integer, nullable=False),
        sa.Column('status', sa.String(13)),
        sa.Column('availability_zone', sa.String(255)),
        sa.Column('trust_id', sa.String(36)),
        sa.Column('reservable', sa.Boolean, nullable=False,
                  server_default=sa.true()),
        sa.Column('disabled', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        *_timestamps(),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_table(
        'computehost_extra_capabilities',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('computehost_id', sa.Integer,
                  sa.ForeignKey('computehosts.id', ondelete='CASCADE'),
                  nullable=False),
        sa.Column('capability_name', sa.String(64), nullable=False),
        sa.Column('capability_value', sa.Text, nullable=False),
        *_timestamps(),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_table(
        'leases',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('name', sa.String(80), nullable=False),
        sa.Column('user_id', sa.String(255)),
        sa.Column('project_id', sa.String(255), index=True),
        sa.Column('start_date', sa.DateTime, nullable=False),
        sa.Column('end_date', sa.DateTime, nullable=False),
        sa.Column('trust_id', sa.String(36)),
        sa.Column('status', sa.String(255)),
        sa.Column('degraded', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        *_timestamps(),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_table(
        'reservations',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('lease_id', sa.String(36),
                  sa.ForeignKey('leases.id', ondelete='CASCADE'),
                  nullable=False, index=True),
        sa.Column('resource_id', sa.String(36)),
        sa.Column('resource_type', sa.String(66), nullable=False),
        sa.Column('status', sa.String(13), nullable=False),
        sa.Column('missing_resources', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        sa.Column('resources_changed', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        *_timestamps(),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_table(
        'computehost_reservations',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('reservation_id', sa.String(36),
                  sa.ForeignKey('reservations.id', ondelete='CASCADE'),
                  nullable=False, index=True),
        sa.Column('aggregate_id', sa.Integer),
        sa.Column('resource_properties', sa.Text),
        sa.Column('count_range', sa.String(36)),
        sa.Column('hypervisor_properties', sa.Text),
        sa.Column('before_end', sa.String(36)),
        *_timestamps(),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_table(
        'computehost_allocations',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('compute_host_id', sa.Integer,
                  sa.ForeignKey('computehosts.id'), nullable=False,
                  index=True),
        sa.Column('reservation_id', sa.String(36),
                  sa.ForeignKey('reservations.id', ondelete='CASCADE'),
                  nullable=False, index=True),
        *_timestamps(),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_table(
        'events',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('lease_id', sa.String(36),
                  sa.ForeignKey('leases.id', ondelete='CASCADE'),
                  nullable=False, index=True),
        sa.Column('event_type', sa.String(66), nullable=False),
        sa.Column('time', sa.DateTime, nullable=False),
        sa.Column('status', sa.String(13), nullable=False),
        *_timestamps(),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('ix_events_status_time', 'events', ['status', 'time'])
