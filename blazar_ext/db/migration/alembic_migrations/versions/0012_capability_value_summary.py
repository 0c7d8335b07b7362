"""The distinct values of each extra capability, with how many resources
have each: what properties discovery reads.

Filled here from the existing value rows; from then on the writers of
capability values keep it (blazar_ext.db.api.capability.refresh_values).

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-23
"""

from alembic import op
import sqlalchemy as sa

revision = '0012'
down_revision = '0011'

TABLE = 'extra_capability_values'


def upgrade() -> None:
    op.create_table(
        TABLE,
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('capability_id', sa.String(36),
                  sa.ForeignKey('extra_capabilities.id',
                                ondelete='CASCADE'),
                  nullable=False),
        sa.Column('capability_value', sa.Text, nullable=False),
        sa.Column('resources', sa.Integer, nullable=False),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('ix_extra_capability_values_capability_value', TABLE,
                    ['capability_id', 'capability_value'],
                    mysql_length={'capability_value': 255})
    summary = sa.table(TABLE, sa.column('capability_id', sa.String),
                       sa.column('capability_value', sa.Text),
                       sa.column('resources', sa.Integer))
    # Hosts are the one resource type with capability values at this
    # revision.
    values = sa.table('computehost_extra_capabilities',
                      sa.column('capability_id', sa.String),
                      sa.column('capability_value', sa.Text))
    op.execute(summary.insert().from_select(
        ['capability_id', 'capability_value', 'resources'],
        sa.select(values.c.capability_id, values.c.capability_value,
                  sa.func.count())
        .group_by(values.c.capability_id, values.c.capability_value)))
