"""Metadata definitions catalog.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22
"""

from alembic import op
import sqlalchemy as sa

revision = '0004'
down_revision = '0003'

_TABLE_OPTS = {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8mb4'}


def _timestamps() -> list:
    return [sa.Column('created_at', sa.DateTime),
            sa.Column('updated_at', sa.DateTime)]


def _namespace_fk() -> sa.Column:
    return sa.Column('namespace_id', sa.Integer,
                     sa.ForeignKey('metadef_namespaces.id',
                                   ondelete='CASCADE'), nullable=False)


def upgrade() -> None:
    op.create_table(
        'metadef_namespaces',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('namespace', sa.String(80), nullable=False, unique=True),
        sa.Column('display_name', sa.String(80)),
        sa.Column('description', sa.Text),
        sa.Column('visibility', sa.String(32), nullable=False,
                  server_default='private'),
        sa.Column('protected', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        sa.Column('owner', sa.String(255), nullable=False, index=True),
        *_timestamps(), **_TABLE_OPTS)
    op.create_table(
        'metadef_properties',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        _namespace_fk(),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('json_schema', sa.Text, nullable=False),
        *_timestamps(),
        sa.UniqueConstraint('namespace_id', 'name',
                            name='uniq_metadef_properties0namespace0name'),
        **_TABLE_OPTS)
    op.create_table(
        'metadef_objects',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        _namespace_fk(),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('description', sa.Text),
        sa.Column('required', sa.Text),
        sa.Column('json_schema', sa.Text, nullable=False),
        *_timestamps(),
        sa.UniqueConstraint('namespace_id', 'name',
                            name='uniq_metadef_objects0namespace0name'),
        **_TABLE_OPTS)
    op.create_table(
        'metadef_tags',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        _namespace_fk(),
        sa.Column('name', sa.String(255), nullable=False),
        *_timestamps(),
        sa.UniqueConstraint('namespace_id', 'name',
                            name='uniq_metadef_tags0namespace0name'),
        **_TABLE_OPTS)
    op.create_table(
        'metadef_resource_types',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('name', sa.String(80), nullable=False, unique=True),
        sa.Column('protected', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        *_timestamps(), **_TABLE_OPTS)
    op.create_table(
        'metadef_namespace_resource_types',
        sa.Column('resource_type_id', sa.Integer,
                  sa.ForeignKey('metadef_resource_types.id',
                                ondelete='CASCADE'), primary_key=True),
        sa.Column('namespace_id', sa.Integer,
                  sa.ForeignKey('metadef_namespaces.id', ondelete='CASCADE'),
                  primary_key=True),
        sa.Column('properties_target', sa.String(80)),
        sa.Column('prefix', sa.String(80)),
        *_timestamps(), **_TABLE_OPTS)
