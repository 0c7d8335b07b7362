"""Provider traits indexed by trait, then provider.

Queries narrowed by a required trait (GET /resource_providers and
/allocation_candidates with ``required``) now start from that trait's
rows. With the provider id in the index, those rows come in provider id
order straight from it: no sort, and a ``limit`` stops early. It
replaces the index on trait_id alone, which it covers (MySQL's foreign
key on trait_id uses it too).

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-24
"""

from alembic import op

revision = '0020'
down_revision = '0019'


def upgrade() -> None:
    op.create_index('ix_resource_provider_traits_trait_provider',
                    'resource_provider_traits',
                    ['trait_id', 'resource_provider_id'])
    op.drop_index('ix_resource_provider_traits_trait_id',
                  table_name='resource_provider_traits')


def downgrade() -> None:
    op.create_index('ix_resource_provider_traits_trait_id',
                    'resource_provider_traits', ['trait_id'])
    op.drop_index('ix_resource_provider_traits_trait_provider',
                  table_name='resource_provider_traits')
