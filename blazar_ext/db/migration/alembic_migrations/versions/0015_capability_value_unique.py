"""One row per distinct capability value: a unique constraint.

Two writers adding the same new value at once could each insert a row
for it (revision 0012 recounted without a constraint). The table is
rebuilt from the value rows, which drops any duplicate and corrects the
counts, with a SHA-256 digest of each value and a unique constraint on
(capability_id, value_digest); writers now upsert against it
(blazar_ext.db.api.capability.count_values). Values are grouped exactly
(in Python), so on MySQL 'Alpha' and 'alpha' are two values, as the
hosts have them.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-24
"""

import collections
import hashlib

from alembic import op
import sqlalchemy as sa

revision = '0015'
down_revision = '0014'

TABLE = 'extra_capability_values'
BATCH = 5000


def _digest(value: str) -> str:
    # As db/api/capability.value_digest (a migration does not import the
    # code it may outlive).
    return hashlib.sha256(value.encode('utf-8')).hexdigest()


def upgrade() -> None:
    op.drop_table(TABLE)
    summary = op.create_table(
        TABLE,
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('capability_id', sa.String(36),
                  sa.ForeignKey('extra_capabilities.id',
                                ondelete='CASCADE'),
                  nullable=False),
        sa.Column('capability_value', sa.Text, nullable=False),
        sa.Column('value_digest', sa.String(64), nullable=False),
        sa.Column('resources', sa.Integer, nullable=False),
        sa.UniqueConstraint(
            'capability_id', 'value_digest',
            name='uniq_extra_capability_values0capability_id0value_digest'),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    # Hosts are the one resource type with capability values.
    values = sa.table('computehost_extra_capabilities',
                      sa.column('capability_id', sa.String),
                      sa.column('capability_value', sa.Text))
    counts = collections.Counter(map(tuple, op.get_bind().execute(
        sa.select(values.c.capability_id, values.c.capability_value)
        .execution_options(yield_per=BATCH))))
    rows = [{'capability_id': capability_id, 'capability_value': value,
             'value_digest': _digest(value), 'resources': count}
            for (capability_id, value), count in counts.items()]
    for start in range(0, len(rows), BATCH):
        op.bulk_insert(summary, rows[start:start + BATCH])
