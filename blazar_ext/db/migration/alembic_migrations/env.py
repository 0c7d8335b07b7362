"""Alembic environment: runs online against blazar_ext's engine."""

from alembic import context

from blazar_ext.db import models

config = context.config


def run_migrations_online() -> None:
    engine = config.attributes['engine']
    with engine.connect() as connection:
        context.configure(connection=connection,
                          target_metadata=models.BASE.metadata,
                          render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()


run_migrations_online()
