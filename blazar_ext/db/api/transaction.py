"""Transactions for the layers above db/.

The manager opens the writer transaction of a lease change here and passes
its session to the db API and to the resource plugins it calls inside it;
db functions that open ``writer.using(context)`` themselves join it
(enginefacade nests). All SQL stays in db/.
"""

import contextlib

from blazar_ext.db.api import allocation as allocation_api
from blazar_ext.db import session as db_session


def reading(context):
    """A reader transaction (a context manager giving the session)."""
    return db_session.reader.using(context)


def writing(context):
    """A writer transaction (a context manager giving the session)."""
    return db_session.writer.using(context)


@contextlib.contextmanager
def allocating(context):
    """A writer transaction that picks and holds resources: under the
    process lock that serializes allocation within one manager (row locks
    serialize managers)."""
    with allocation_api.PROCESS_LOCK:
        with db_session.writer.using(context) as session:
            yield session


def core_execute(session, statement, params: dict):
    """Run a column query of ``session``'s transaction on its connection:
    what the session holds is flushed first, as the ORM would, but the
    ORM's per-execution setup (a fifth of a lease create's enforcement
    cost) is skipped. For statements selecting columns, not entities."""
    session.flush()
    return session.connection().execute(statement, params)
