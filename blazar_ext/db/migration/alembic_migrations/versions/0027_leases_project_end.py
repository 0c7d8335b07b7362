"""Leases indexed by project, then end date.

The fair-use filters ask, in each lease change's transaction, what a
project holds over a window; with the end date in the index they start
from the project's leases that end after the window starts, instead of
every lease the project ever had. It replaces the index on project_id
alone, which it covers.

Revision ID: 0027
Revises: 0026
Create Date: 2026-11-26
"""

from alembic import op

revision = '0027'
down_revision = '0026'


def upgrade() -> None:
    op.create_index('ix_leases_project_end', 'leases',
                    ['project_id', 'end_date'])
    op.drop_index('ix_leases_project_id', table_name='leases')


def downgrade() -> None:
    op.create_index('ix_leases_project_id', 'leases', ['project_id'])
    op.drop_index('ix_leases_project_end', table_name='leases')
