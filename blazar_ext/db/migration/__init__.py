"""Schema migrations with alembic."""

import os

from alembic import command as alembic_command
from alembic import config as alembic_config
from alembic import migration as alembic_migration
from alembic import script as alembic_script

from blazar_ext.db import session

_INI = os.path.join(os.path.dirname(__file__), 'alembic.ini')


def _config(engine=None) -> alembic_config.Config:
    config = alembic_config.Config(_INI)
    config.attributes['engine'] = engine or session.get_engine()
    return config


def upgrade(revision: str = 'head', engine=None) -> None:
    """Upgrade the database to ``revision``."""
    alembic_command.upgrade(_config(engine), revision)


def version(engine=None) -> str | None:
    """The database's current revision, None when empty."""
    engine = engine or session.get_engine()
    with engine.connect() as conn:
        return alembic_migration.MigrationContext.configure(
            conn).get_current_revision()


def head() -> str:
    """The newest revision in the tree."""
    return alembic_script.ScriptDirectory.from_config(
        _config(engine=object())).get_current_head()


def revision(message: str, autogenerate: bool = False) -> None:
    """Create a new revision file."""
    alembic_command.revision(_config(), message=message,
                             autogenerate=autogenerate)
