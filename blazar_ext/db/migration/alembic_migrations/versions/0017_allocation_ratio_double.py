"""Inventory allocation ratios in double precision on MySQL too.

SQLAlchemy's Float is MySQL's FLOAT, single precision: a ratio of 0.7
was stored as 0.699999988, so the capacity test in SQL found
(10 - 0) x 0.7 below 7 and allocation candidates left out a provider
that an allocation could still use; and the API answered 0.123457 for a
ratio written 0.123456789. SQLite's REAL and PostgreSQL's FLOAT are
double precision already: only MySQL changes.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-24
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0017'
down_revision = '0016'


def upgrade() -> None:
    if op.get_bind().dialect.name != 'mysql':
        return
    # Through text: MySQL writes a FLOAT with the digits it shows (0.7),
    # which then parse into the nearest double; FLOAT straight to DOUBLE
    # would keep the single-precision value (0.699999988079071).
    op.alter_column('inventories', 'allocation_ratio',
                    existing_type=sa.Float, type_=sa.String(32),
                    existing_nullable=False)
    op.alter_column('inventories', 'allocation_ratio',
                    existing_type=sa.String(32),
                    type_=mysql.DOUBLE(asdecimal=False),
                    existing_nullable=False)
