"""Instance reservations: the compute service's server group their
instances go in (an upstream Blazar reservation's, kept by import-blazar).

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-23
"""

from alembic import op
import sqlalchemy as sa

revision = '0013'
down_revision = '0012'


def upgrade() -> None:
    op.add_column('instance_reservations',
                  sa.Column('server_group_id', sa.String(36), nullable=True))
