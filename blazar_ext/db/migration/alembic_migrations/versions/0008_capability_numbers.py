"""Extra capability values as numbers beside their text, indexed.

Each capability value that is a number in the property language's sense
(an optional '-', digits, optionally '.' and digits; at most 32
characters) gets that number in ``capability_number``; other values get
NULL. An index on (capability_id, capability_number) lets numeric
comparisons scan a range instead of casting every value.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23
"""

from alembic import op
import sqlalchemy as sa

revision = '0008'
down_revision = '0007'

TABLE = 'computehost_extra_capabilities'
NUMBER = sa.Numeric(65, 30)
MAX_NUMBER_LENGTH = 32


def _is_number(value) -> sa.ColumnElement:
    # The property language's definition at this revision, in functions
    # SQLite, MySQL/MariaDB and PostgreSQL share; it guards the CAST,
    # which fails on PostgreSQL for any other text.
    stripped = value
    for character in '0123456789.-':
        stripped = sa.func.replace(stripped, character, '')
    length = sa.func.length(value)
    return sa.and_(
        length >= 1, length <= MAX_NUMBER_LENGTH,
        sa.func.length(stripped) == 0,
        value.not_like('_%-%'), value.not_like('%-'),
        value.not_like('%.%.%'), value.not_like('.%'),
        value.not_like('-.%'), value.not_like('%.'))


def upgrade() -> None:
    with op.batch_alter_table(TABLE) as batch:
        batch.add_column(sa.Column('capability_number', NUMBER))
    table = sa.table(TABLE, sa.column('capability_value', sa.Text),
                     sa.column('capability_number', NUMBER))
    value = table.c.capability_value
    # One statement: the CASE keeps the CAST behind its guard on every
    # database, whatever order the WHERE is evaluated in.
    op.execute(table.update().where(_is_number(value)).values(
        capability_number=sa.case((_is_number(value), sa.cast(value, NUMBER)),
                                  else_=sa.null())))
    op.create_index('ix_computehost_extra_capabilities_capability_number',
                    TABLE, ['capability_id', 'capability_number'])
