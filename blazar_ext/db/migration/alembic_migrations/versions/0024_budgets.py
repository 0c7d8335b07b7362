"""Budgets, their ledger, and the rates set through the API.

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-26
"""

from alembic import op
import sqlalchemy as sa

revision = '0024'
down_revision = '0023'

_TABLE_ARGS = {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8mb4'}
CREDITS = sa.Numeric(20, 4)


def _timestamps() -> list:
    return [sa.Column('created_at', sa.DateTime),
            sa.Column('updated_at', sa.DateTime)]


def upgrade() -> None:
    op.create_table(
        'budgets',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('project_id', sa.String(255), nullable=False),
        sa.Column('user_id', sa.String(255)),
        sa.Column('user_key', sa.String(255), nullable=False),
        sa.Column('credits', CREDITS, nullable=False),
        sa.Column('spent', CREDITS, nullable=False),
        sa.Column('period', sa.String(16)),
        sa.Column('period_start', sa.DateTime),
        *_timestamps(),
        sa.UniqueConstraint('project_id', 'user_key',
                            name='uniq_budgets0project_id0user_key'),
        **_TABLE_ARGS)
    op.create_table(
        'budget_ledger',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('budget_id', sa.String(36),
                  sa.ForeignKey('budgets.id', ondelete='CASCADE'),
                  nullable=False),
        sa.Column('lease_id', sa.String(36)),
        sa.Column('kind', sa.String(16), nullable=False),
        sa.Column('amount', CREDITS, nullable=False),
        sa.Column('balance', CREDITS, nullable=False),
        sa.Column('reason', sa.Text),
        *_timestamps(),
        **_TABLE_ARGS)
    op.create_index('ix_budget_ledger_budget_lease', 'budget_ledger',
                    ['budget_id', 'lease_id'])
    op.create_table(
        'budget_rates',
        sa.Column('position', sa.Integer, primary_key=True,
                  autoincrement=False),
        sa.Column('resource_type', sa.String(66), nullable=False),
        sa.Column('properties', sa.Text),
        sa.Column('credits_per_hour', CREDITS, nullable=False),
        sa.Column('credits_per_vcpu_hour', CREDITS, nullable=False),
        sa.Column('credits_per_gb_hour', CREDITS, nullable=False),
        *_timestamps(),
        **_TABLE_ARGS)


def downgrade() -> None:
    op.drop_table('budget_rates')
    op.drop_table('budget_ledger')
    op.drop_table('budgets')
