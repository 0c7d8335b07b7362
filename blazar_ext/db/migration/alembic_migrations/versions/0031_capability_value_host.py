"""The host ids in the capability indexes: a host filter's capability
condition (``["==", "$gpu", "True"]``, or a numeric comparison) reads the
matching hosts from the index alone, without visiting each value's row.

The slot search reads the matching hosts of a pool with their
allocations, and the allocator's check of each option filters them again:
at 10,000 hosts, a third of them matching, the row visits were about a
quarter of either read on SQLite. The new indexes replace the two they
extend (capability first, then the value or number, then the host), so a
value write keeps the same number of indexes. MySQL indexes a
255-character prefix of the TEXT value, as before.

Revision ID: 0031
Revises: 0030
Create Date: 2026-11-27
"""

from alembic import op

revision = '0031'
down_revision = '0030'

TABLE = 'computehost_extra_capabilities'
PREFIX = 'ix_computehost_extra_capabilities_'


def upgrade() -> None:
    # Created before the old ones go: MySQL wants an index led by
    # capability_id for its foreign key at every moment.
    op.create_index(PREFIX + 'value_host', TABLE,
                    ['capability_id', 'capability_value', 'computehost_id'],
                    mysql_length={'capability_value': 255})
    op.create_index(PREFIX + 'number_host', TABLE,
                    ['capability_id', 'capability_number', 'computehost_id'])
    op.drop_index(PREFIX + 'capability_value', TABLE)
    op.drop_index(PREFIX + 'capability_number', TABLE)
