"""physical:device: a device's optional resource provider (its traits),
and the traits a device reservation requires or forbids. A provider
deleted through Placement unlinks its device (SET NULL).

Revision ID: 0029
Revises: 0028
Create Date: 2026-11-26
"""

from alembic import op
import sqlalchemy as sa

revision = '0029'
down_revision = '0028'


def upgrade() -> None:
    with op.batch_alter_table('devices') as batch:
        batch.add_column(sa.Column('resource_provider_id', sa.Integer))
        batch.create_foreign_key('fk_devices_resource_provider_id',
                                 'resource_providers',
                                 ['resource_provider_id'], ['id'],
                                 ondelete='SET NULL')
        batch.create_index('uniq_devices0resource_provider_id',
                           ['resource_provider_id'], unique=True)
    with op.batch_alter_table('device_reservations') as batch:
        batch.add_column(sa.Column('traits', sa.Text))
