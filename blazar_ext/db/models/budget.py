"""Budgets in credits, their ledger of charges and refunds, and rates."""

import sqlalchemy as sa

from blazar_ext.db.models import base

# Credits are kept to four decimal places.
CREDITS = sa.Numeric(20, 4)


class Budget(base.BASE):
    """Credits of a project, or of one user of it (a sub-budget)."""

    __tablename__ = 'budgets'
    __table_args__ = (
        sa.UniqueConstraint('project_id', 'user_key',
                            name='uniq_budgets0project_id0user_key'),
    )

    id = sa.Column(sa.String(36), primary_key=True, default=base.new_uuid)
    project_id = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255))
    # user_id, or '' for the project's own budget: NULLs are never equal
    # in a unique constraint, so the key needs a value.
    user_key = sa.Column(sa.String(255), nullable=False, default='')
    credits = sa.Column(CREDITS, nullable=False)
    spent = sa.Column(CREDITS, nullable=False, default=0)
    # None, 'daily', 'weekly' or 'monthly': the allowance renews.
    period = sa.Column(sa.String(16))
    period_start = sa.Column(sa.DateTime)


class BudgetLedgerEntry(base.BASE):
    """One change of a budget: a charge (+), a refund (-), an adjustment
    of its credits or a renewal."""

    __tablename__ = 'budget_ledger'
    __table_args__ = (
        sa.Index('ix_budget_ledger_budget_lease', 'budget_id', 'lease_id'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    budget_id = sa.Column(
        sa.String(36), sa.ForeignKey('budgets.id', ondelete='CASCADE'),
        nullable=False)
    # No foreign key: the ledger outlives the lease.
    lease_id = sa.Column(sa.String(36))
    kind = sa.Column(sa.String(16), nullable=False)
    amount = sa.Column(CREDITS, nullable=False)
    balance = sa.Column(CREDITS, nullable=False)
    reason = sa.Column(sa.Text)


class Rate(base.BASE):
    """A rate set through the API; the first that matches prices."""

    __tablename__ = 'budget_rates'

    position = sa.Column(sa.Integer, primary_key=True, autoincrement=False)
    resource_type = sa.Column(sa.String(66), nullable=False)
    # The property expression, as JSON text; NULL matches every resource.
    properties = sa.Column(sa.Text)
    credits_per_hour = sa.Column(CREDITS, nullable=False, default=0)
    credits_per_vcpu_hour = sa.Column(CREDITS, nullable=False, default=0)
    credits_per_gb_hour = sa.Column(CREDITS, nullable=False, default=0)
