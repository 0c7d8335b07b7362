"""The outbox's notification claim token: a manager claims a batch of
notifications in one UPDATE and reads back what it won by its token.

Revision ID: 0028
Revises: 0027
Create Date: 2026-11-26
"""

from alembic import op
import sqlalchemy as sa

revision = '0028'
down_revision = '0027'


def upgrade() -> None:
    op.add_column('outbox', sa.Column('notify_claim_token', sa.String(36)))
