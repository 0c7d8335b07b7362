"""Transactions: one oslo.db enginefacade context manager for the service.

Database functions open a transaction with ``reader.using(context)`` or
``writer.using(context)``; nested uses join the outer transaction.
"""

from oslo_db.sqlalchemy import enginefacade

context_manager = enginefacade.transaction_context()
context_manager.configure(sqlite_fk=True)

reader = context_manager.reader
writer = context_manager.writer


def get_engine():
    """The writer engine, for migrations and tests."""
    return context_manager.writer.get_engine()
