"""An index holding each host's capability values, for the host list.

GET /v1/os-hosts writes every value of every host into its answer; with
the values in an index ordered by host, SQLite and PostgreSQL read them
without visiting the table (about half of the listing's time on SQLite
at 10,000 hosts). MySQL indexes a 255-character prefix of the TEXT value,
so there it only orders them.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-24
"""

from alembic import op

revision = '0016'
down_revision = '0015'


def upgrade() -> None:
    op.create_index('ix_computehost_extra_capabilities_host_values',
                    'computehost_extra_capabilities',
                    ['computehost_id', 'capability_id', 'capability_value'],
                    mysql_length={'capability_value': 255})
