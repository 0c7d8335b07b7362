"""Normalize extra capabilities into the extra_capabilities table.

Every distinct capability name of a host becomes one extra_capabilities row
(resource_type physical:host, public, as every capability was before private
ones existed); each host row then points at it by capability_id, and the
name column goes away. Existing values are kept, row for row.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

import uuid

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0002'
down_revision = '0001'

HOST_RESOURCE_TYPE = 'physical:host'

# Case-sensitive on MySQL too, so "GPU" and "gpu" stay two capabilities.
CAPABILITY_NAME = sa.String(255).with_variant(
    mysql.VARCHAR(255, charset='utf8mb4', collation='utf8mb4_bin'),
    'mysql', 'mariadb')


def upgrade() -> None:
    op.create_table(
        'extra_capabilities',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('resource_type', sa.String(255), nullable=False),
        sa.Column('capability_name', CAPABILITY_NAME, nullable=False),
        sa.Column('private', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.UniqueConstraint('resource_type', 'capability_name',
                            name='uniq_extra_capabilities0type0name'),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')

    with op.batch_alter_table('computehost_extra_capabilities') as batch:
        batch.add_column(sa.Column('capability_id', sa.String(36)))

    _move_names_to_capabilities()

    with op.batch_alter_table('computehost_extra_capabilities') as batch:
        batch.alter_column('capability_id', existing_type=sa.String(36),
                           nullable=False)
        batch.create_foreign_key(
            'fk_computehost_extra_capabilities_capability_id',
            'extra_capabilities', ['capability_id'], ['id'])
        batch.drop_column('capability_name')
        batch.create_unique_constraint(
            'uniq_computehost_extra_capabilities0host0capability',
            ['computehost_id', 'capability_id'])
        batch.create_index(
            'ix_computehost_extra_capabilities_capability_value',
            ['capability_id', 'capability_value'],
            mysql_length={'capability_value': 255})


def _move_names_to_capabilities() -> None:
    bind = op.get_bind()
    rows = sa.table('computehost_extra_capabilities',
                    sa.column('capability_name', sa.String),
                    sa.column('capability_id', sa.String))
    capabilities = sa.table('extra_capabilities',
                            sa.column('id', sa.String),
                            sa.column('resource_type', sa.String),
                            sa.column('capability_name', sa.String),
                            sa.column('private', sa.Boolean))
    # Distinct in Python: SQL DISTINCT would fold case under MySQL's
    # default collation.
    names = {name for (name,) in bind.execute(
        sa.select(rows.c.capability_name))}
    legacy_name = rows.c.capability_name
    if bind.dialect.name in ('mysql', 'mariadb'):
        legacy_name = legacy_name.collate('utf8mb4_bin')
    for name in sorted(names):
        capability_id = str(uuid.uuid4())
        bind.execute(capabilities.insert().values(
            id=capability_id, resource_type=HOST_RESOURCE_TYPE,
            capability_name=name, private=False))
        bind.execute(rows.update()
                     .where(legacy_name == name)
                     .values(capability_id=capability_id))
