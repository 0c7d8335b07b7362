"""Hosts in and out of service; health checks claimed per host.

A host taken out of service keeps why and by whom (the operator or a
health source, so a health source never brings back a host the operator
took out). Managers claim each host before checking its health, so one
manager at a time checks it. Degraded leases and reservations missing
resources are found through an index.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23
"""

from alembic import op
import sqlalchemy as sa

revision = '0007'
down_revision = '0006'


def upgrade() -> None:
    with op.batch_alter_table('computehosts') as batch:
        batch.add_column(sa.Column('reservable_reason', sa.String(255)))
        batch.add_column(sa.Column('reservable_by', sa.String(64)))
        batch.add_column(sa.Column('health_checked_at', sa.DateTime))
        batch.add_column(sa.Column('health_checker', sa.String(255)))
    with op.batch_alter_table('leases') as batch:
        batch.create_index('ix_leases_degraded', ['degraded'])
    with op.batch_alter_table('reservations') as batch:
        batch.create_index('ix_reservations_missing_resources',
                           ['missing_resources'])
