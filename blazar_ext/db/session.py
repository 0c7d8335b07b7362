"""Transactions: one oslo.db enginefacade context manager for the service.

Database functions open a transaction with ``reader.using(context)`` or
``writer.using(context)``; nested uses join the outer transaction.
"""

from oslo_db.sqlalchemy import enginefacade
import sqlalchemy as sa

context_manager = enginefacade.transaction_context()
context_manager.configure(sqlite_fk=True)


@sa.event.listens_for(sa.engine.Engine, 'connect')
def _mysql_session(dbapi_connection, connection_record) -> None:
    """MySQL connections speak utf8mb4, as the tables are, and join long
    lists.

    oslo.db connects with charset=utf8 (three bytes) unless the URL names
    one, and MySQL then cannot compare or store a character past U+FFFF
    (an emoji in a name or a path): "Illegal mix of collations", a 500.
    GROUP_CONCAT (query.json_text.joined) keeps up to 4 MiB, not MySQL's
    default 1,024 bytes (MariaDB's is 1 MiB): a provider's trait ids, say,
    must come whole.
    """
    set_character_set = getattr(dbapi_connection, 'set_character_set', None)
    if set_character_set is None:
        return
    if dbapi_connection.character_set_name() != 'utf8mb4':
        set_character_set('utf8mb4')
    with dbapi_connection.cursor() as cursor:
        cursor.execute('SET SESSION group_concat_max_len = 4194304')


reader = context_manager.reader
writer = context_manager.writer


def get_engine():
    """The writer engine, for migrations and tests."""
    return context_manager.writer.get_engine()
