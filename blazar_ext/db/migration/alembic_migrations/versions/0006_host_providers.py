"""Hosts and resource providers as one inventory; traits in reservations.

Each host points at its resource provider (created with the host), and a
physical:host reservation may carry a traits requirement in Placement's
``required`` syntax.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23
"""

from alembic import op
import sqlalchemy as sa

revision = '0006'
down_revision = '0005'


def upgrade() -> None:
    with op.batch_alter_table('computehosts') as batch:
        batch.add_column(sa.Column('resource_provider_id', sa.Integer))
        batch.create_foreign_key(
            'fk_computehosts_resource_provider_id', 'resource_providers',
            ['resource_provider_id'], ['id'])
        batch.create_index('uniq_computehosts0resource_provider_id',
                           ['resource_provider_id'], unique=True)
    with op.batch_alter_table('computehost_reservations') as batch:
        batch.add_column(sa.Column('traits', sa.Text))
