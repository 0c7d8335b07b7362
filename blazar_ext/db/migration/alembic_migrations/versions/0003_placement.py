"""Placement-compatible inventory: providers, classes, inventories,
allocations, traits and aggregates.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

from alembic import op
import sqlalchemy as sa

revision = '0003'
down_revision = '0002'

_TABLE_KW = {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8mb4'}


def _timestamps() -> list:
    return [sa.Column('created_at', sa.DateTime),
            sa.Column('updated_at', sa.DateTime)]


def upgrade() -> None:
    op.create_table(
        'resource_providers',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(200), nullable=False),
        sa.Column('generation', sa.Integer, nullable=False),
        sa.Column('root_provider_id', sa.Integer,
                  sa.ForeignKey('resource_providers.id')),
        sa.Column('parent_provider_id', sa.Integer,
                  sa.ForeignKey('resource_providers.id')),
        *_timestamps(),
        sa.UniqueConstraint('uuid', name='uniq_resource_providers0uuid'),
        sa.UniqueConstraint('name', name='uniq_resource_providers0name'),
        **_TABLE_KW)
    op.create_index('ix_resource_providers_root_provider_id',
                    'resource_providers', ['root_provider_id'])
    op.create_index('ix_resource_providers_parent_provider_id',
                    'resource_providers', ['parent_provider_id'])
    op.create_table(
        'resource_classes',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('name', sa.String(255), nullable=False),
        *_timestamps(),
        sa.UniqueConstraint('name', name='uniq_resource_classes0name'),
        **_TABLE_KW)
    op.create_table(
        'inventories',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('resource_provider_id', sa.Integer,
                  sa.ForeignKey('resource_providers.id'), nullable=False),
        sa.Column('resource_class_id', sa.Integer,
                  sa.ForeignKey('resource_classes.id'), nullable=False),
        sa.Column('total', sa.Integer, nullable=False),
        sa.Column('reserved', sa.Integer, nullable=False),
        sa.Column('min_unit', sa.Integer, nullable=False),
        sa.Column('max_unit', sa.Integer, nullable=False),
        sa.Column('step_size', sa.Integer, nullable=False),
        sa.Column('allocation_ratio', sa.Float, nullable=False),
        *_timestamps(),
        sa.UniqueConstraint('resource_provider_id', 'resource_class_id',
                            name='uniq_inventories0provider0class'),
        **_TABLE_KW)
    op.create_index('ix_inventories_resource_class_id', 'inventories',
                    ['resource_class_id'])
    op.create_table(
        'consumers',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('project_id', sa.String(255), nullable=False),
        sa.Column('user_id', sa.String(255), nullable=False),
        sa.Column('consumer_type', sa.String(255)),
        sa.Column('generation', sa.Integer, nullable=False),
        *_timestamps(),
        sa.UniqueConstraint('uuid', name='uniq_consumers0uuid'),
        **_TABLE_KW)
    op.create_index('ix_consumers_project_id_user_id', 'consumers',
                    ['project_id', 'user_id'])
    op.create_table(
        'allocations',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('resource_provider_id', sa.Integer,
                  sa.ForeignKey('resource_providers.id'), nullable=False),
        sa.Column('consumer_id', sa.String(36), nullable=False),
        sa.Column('resource_class_id', sa.Integer,
                  sa.ForeignKey('resource_classes.id'), nullable=False),
        sa.Column('used', sa.Integer, nullable=False),
        *_timestamps(),
        **_TABLE_KW)
    op.create_index('ix_allocations_provider_class', 'allocations',
                    ['resource_provider_id', 'resource_class_id'])
    op.create_index('ix_allocations_consumer_id', 'allocations',
                    ['consumer_id'])
    op.create_table(
        'traits',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('name', sa.String(255), nullable=False),
        *_timestamps(),
        sa.UniqueConstraint('name', name='uniq_traits0name'),
        **_TABLE_KW)
    op.create_table(
        'resource_provider_traits',
        sa.Column('resource_provider_id', sa.Integer,
                  sa.ForeignKey('resource_providers.id'), primary_key=True),
        sa.Column('trait_id', sa.Integer, sa.ForeignKey('traits.id'),
                  primary_key=True),
        *_timestamps(),
        **_TABLE_KW)
    op.create_index('ix_resource_provider_traits_trait_id',
                    'resource_provider_traits', ['trait_id'])
    op.create_table(
        'placement_aggregates',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        *_timestamps(),
        sa.UniqueConstraint('uuid', name='uniq_placement_aggregates0uuid'),
        **_TABLE_KW)
    op.create_table(
        'resource_provider_aggregates',
        sa.Column('resource_provider_id', sa.Integer,
                  sa.ForeignKey('resource_providers.id'), primary_key=True),
        sa.Column('aggregate_id', sa.Integer,
                  sa.ForeignKey('placement_aggregates.id'),
                  primary_key=True),
        *_timestamps(),
        **_TABLE_KW)
    op.create_index('ix_resource_provider_aggregates_aggregate_id',
                    'resource_provider_aggregates', ['aggregate_id'])
