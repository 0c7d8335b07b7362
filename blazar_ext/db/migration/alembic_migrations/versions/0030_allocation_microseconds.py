"""Host allocation dates also as epoch microseconds (start_us, end_us),
stored generated columns the database keeps equal to start_date and
end_date under every write, also in the host-window index: the slot
search reads every host's busy times as stored integers (index-only on
MariaDB and PostgreSQL; SQLite visits the row for a generated column).

Existing rows get their values as the columns are added (SQLite
recreates the table, which computes them; MariaDB and PostgreSQL compute
them for each row on ALTER TABLE ... ADD ... STORED).

Revision ID: 0030
Revises: 0029
Create Date: 2026-11-26
"""

from alembic import op
import sqlalchemy as sa

revision = '0030'
down_revision = '0029'

TABLE = 'computehost_allocations'
INDEX = 'ix_computehost_allocations_host_window'

# The expression of blazar_ext.db.models.epoch, as written at this
# revision, per dialect.
_EXPRESSIONS = {
    'sqlite': ("(CAST(round((julianday(substr({0}, 1, 19)) - 2440587.5)"
               " * 86400.0) AS INTEGER) * 1000000"
               " + CAST(substr({0}, 21, 6) AS INTEGER))"),
    'postgresql': 'CAST(EXTRACT(EPOCH FROM {0}) * 1000000 AS BIGINT)',
    'mysql': "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', {0})",
}


def _column(name: str, source: str, dialect: str) -> sa.Column:
    return sa.Column(name, sa.BigInteger, sa.Computed(
        sa.text(_EXPRESSIONS[dialect].format(source)), persisted=True))


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == 'mariadb':
        dialect = 'mysql'
    # SQLite cannot add a STORED column to a table; the batch recreates
    # the table with them (and copies every row, computing them).
    with op.batch_alter_table(TABLE, recreate='auto') as batch:
        batch.drop_index(INDEX)
        batch.add_column(_column('start_us', 'start_date', dialect))
        batch.add_column(_column('end_us', 'end_date', dialect))
    with op.batch_alter_table(TABLE) as batch:
        batch.create_index(INDEX, ['compute_host_id', 'start_date',
                                   'end_date', 'start_us', 'end_us'])
