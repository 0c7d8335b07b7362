"""Alembic environment: runs online against blazar_ext's engine."""

from alembic import context

from blazar_ext.db import models

config = context.config


def _sqlite_foreign_keys(connection, enabled: bool) -> None:
    # On the DBAPI connection, so that no BEGIN precedes the pragma.
    cursor = connection.connection.dbapi_connection.cursor()
    try:
        cursor.execute('PRAGMA foreign_keys=%s' % ('ON' if enabled else 'OFF'))
    finally:
        cursor.close()


def run_migrations_online() -> None:
    engine = config.attributes['engine']
    with engine.connect() as connection:
        sqlite = connection.dialect.name == 'sqlite'
        if sqlite:
            # Batch migrations copy a table, drop the old one and rename the
            # copy; with foreign keys enforced, the drop would cascade into
            # the rows that point at it. The pragma only works outside a
            # transaction.
            _sqlite_foreign_keys(connection, False)
        context.configure(connection=connection,
                          target_metadata=models.BASE.metadata,
                          render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()
        if sqlite:
            _sqlite_foreign_keys(connection, True)


run_migrations_online()
