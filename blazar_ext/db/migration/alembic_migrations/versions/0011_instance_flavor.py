"""flavor:instance reservations: the flavor an instance reservation's size
came from.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-23
"""

from alembic import op
import sqlalchemy as sa

revision = '0011'
down_revision = '0010'


def upgrade() -> None:
    op.add_column('instance_reservations',
                  sa.Column('flavor_id', sa.String(255), nullable=True))
