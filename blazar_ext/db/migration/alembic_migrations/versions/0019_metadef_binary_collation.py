"""Metadefs names compare as written on MySQL too.

As 0018 for Placement: under MySQL's default collation
(utf8mb4_general_ci) a namespace "os::test::foo" was refused while
"OS::Test::Foo" existed and GET found the other; properties, objects and
tags in another case were "already there"; resource_types=os::nova::server
listed the namespaces of OS::Nova::Server; owner=PROJ matched project
"proj". SQLite and PostgreSQL compare these byte for byte.

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-24
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0019'
down_revision = '0018'

# (table, column, length); every one NOT NULL.
COLUMNS = [
    ('metadef_namespaces', 'namespace', 80),
    ('metadef_namespaces', 'owner', 255),
    ('metadef_properties', 'name', 255),
    ('metadef_objects', 'name', 255),
    ('metadef_tags', 'name', 255),
    ('metadef_resource_types', 'name', 80),
]


def upgrade() -> None:
    if op.get_bind().dialect.name != 'mysql':
        return
    for table, column, length in COLUMNS:
        # Binary is finer than the case-folding collation: unique keys
        # hold.
        op.alter_column(table, column, existing_type=sa.String(length),
                        type_=mysql.VARCHAR(length, charset='utf8mb4',
                                            collation='utf8mb4_bin'),
                        existing_nullable=False)
