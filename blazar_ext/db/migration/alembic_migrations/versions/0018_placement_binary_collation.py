"""Placement names and ids compare as written on MySQL too.

MySQL's default collation (utf8mb4_general_ci) folds case: on MySQL and
MariaDB alone, GET /traits/hw_cpu_x86_avx found HW_CPU_X86_AVX,
DELETE /resource_classes/custom_foo deleted CUSTOM_FOO, a provider named
"CN1" conflicted with "cn1", GET /usages?project_id=proj counted project
"Proj", and consumer_type=UNKNOWN matched the consumers of unknown type.
SQLite and PostgreSQL compare these columns byte for byte; utf8mb4_bin
makes MySQL do the same (as the capability names of revision 0002).

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-24
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0018'
down_revision = '0017'

# (table, column, length, nullable)
COLUMNS = [
    ('resource_providers', 'uuid', 36, False),
    ('resource_providers', 'name', 200, False),
    ('resource_classes', 'name', 255, False),
    ('traits', 'name', 255, False),
    ('placement_aggregates', 'uuid', 36, False),
    ('consumers', 'uuid', 36, False),
    ('consumers', 'project_id', 255, False),
    ('consumers', 'user_id', 255, False),
    ('consumers', 'consumer_type', 255, True),
    ('allocations', 'consumer_id', 36, False),
]


def upgrade() -> None:
    if op.get_bind().dialect.name != 'mysql':
        return
    for table, column, length, nullable in COLUMNS:
        # Binary is finer than the case-folding collation: no two
        # values that were distinct become equal, unique keys hold.
        op.alter_column(table, column, existing_type=sa.String(length),
                        type_=mysql.VARCHAR(length, charset='utf8mb4',
                                            collation='utf8mb4_bin'),
                        existing_nullable=nullable)
