"""Lease extensions: floating IPs and allocation windows.

Host allocations get a copy of their lease's window (start_date, end_date)
so the host selection query checks overlaps without joining leases.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-22
"""

from alembic import op
import sqlalchemy as sa

revision = '0005'
down_revision = '0004'

_TABLE_ARGS = {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8mb4'}


def _timestamps() -> list:
    return [sa.Column('created_at', sa.DateTime),
            sa.Column('updated_at', sa.DateTime)]


def upgrade() -> None:
    with op.batch_alter_table('computehost_allocations') as batch:
        batch.add_column(sa.Column('start_date', sa.DateTime))
        batch.add_column(sa.Column('end_date', sa.DateTime))
    # Existing allocations take their lease's window.
    op.execute(
        'UPDATE computehost_allocations SET '
        'start_date = (SELECT l.start_date FROM leases l JOIN reservations r '
        'ON r.lease_id = l.id '
        'WHERE r.id = computehost_allocations.reservation_id), '
        'end_date = (SELECT l.end_date FROM leases l JOIN reservations r '
        'ON r.lease_id = l.id '
        'WHERE r.id = computehost_allocations.reservation_id)')
    op.create_index('ix_computehost_allocations_host_window',
                    'computehost_allocations',
                    ['compute_host_id', 'start_date', 'end_date'])

    op.create_table(
        'floatingips',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('floating_network_id', sa.String(255), nullable=False),
        sa.Column('subnet_id', sa.String(255)),
        sa.Column('floating_ip_address', sa.String(255), nullable=False),
        sa.Column('reservable', sa.Boolean, nullable=False,
                  server_default=sa.true()),
        *_timestamps(),
        sa.UniqueConstraint('floating_network_id', 'floating_ip_address',
                            name='uniq_floatingips0network0address'),
        **_TABLE_ARGS)
    op.create_table(
        'floatingip_reservations',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('reservation_id', sa.String(36),
                  sa.ForeignKey('reservations.id', ondelete='CASCADE'),
                  nullable=False, index=True),
        sa.Column('network_id', sa.String(255), nullable=False),
        sa.Column('amount', sa.Integer, nullable=False),
        *_timestamps(),
        **_TABLE_ARGS)
    op.create_table(
        'required_floatingips',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('floatingip_reservation_id', sa.String(36),
                  sa.ForeignKey('floatingip_reservations.id',
                                ondelete='CASCADE'),
                  nullable=False, index=True),
        sa.Column('address', sa.String(255), nullable=False),
        *_timestamps(),
        **_TABLE_ARGS)
    op.create_table(
        'floatingip_allocations',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('floatingip_id', sa.String(36),
                  sa.ForeignKey('floatingips.id'), nullable=False),
        sa.Column('reservation_id', sa.String(36),
                  sa.ForeignKey('reservations.id', ondelete='CASCADE'),
                  nullable=False, index=True),
        sa.Column('start_date', sa.DateTime),
        sa.Column('end_date', sa.DateTime),
        *_timestamps(),
        **_TABLE_ARGS)
    op.create_index('ix_floatingip_allocations_fip_window',
                    'floatingip_allocations',
                    ['floatingip_id', 'start_date', 'end_date'])
