"""Provider lookups and generation checks shared by every resource."""

import functools
import operator

import sqlalchemy as sa
from sqlalchemy.ext import compiler

from blazar_ext.db import driver_read
from blazar_ext.db.models import placement as models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions

RP = models.ResourceProvider


def columns(rows, width: int) -> list:
    """``rows`` (sequences of ``width`` values) as ``width`` lists, one
    per column: several times cheaper than ``zip(*rows)`` over thousands
    of rows."""
    return [list(map(operator.itemgetter(index), rows))
            for index in range(width)]


def get_model(session, uuid: str) -> models.ResourceProvider:
    """The provider row for ``uuid``; ResourceProviderNotFound if none."""
    provider = session.scalar(sa.select(RP).where(RP.uuid == uuid))
    if provider is None:
        raise exceptions.ResourceProviderNotFound(uuid=uuid)
    return provider


def check_exists(context, uuid: str) -> None:
    """ResourceProviderNotFound unless a provider ``uuid`` exists."""
    with db_session.reader.using(context) as session:
        if session.scalar(sa.select(RP.id).where(RP.uuid == uuid)) is None:
            raise exceptions.ResourceProviderNotFound(uuid=uuid)


def increment_generation(session, provider, expected: int,
                         what: str) -> None:
    """Compare-and-swap the generation; 409 when someone else changed it.

    The conditional UPDATE is what protects concurrent writers on every
    database, not the earlier read.
    """
    result = session.execute(
        sa.update(RP).where(RP.id == provider.id,
                            RP.generation == expected)
        .values(generation=expected + 1)
        .execution_options(synchronize_session=False))
    if result.rowcount != 1:
        raise exceptions.ConcurrentUpdateDetected(
            what='resource provider generation conflict (%s)' % what)
    # The UPDATE matched, so the row holds exactly this: no read back.
    sa.orm.attributes.set_committed_value(provider, 'generation',
                                          expected + 1)
    session.expire(provider, ['updated_at'])


def _uuids_select(where) -> sa.Select:
    return sa.select(RP.id, RP.uuid).where(where(RP.id))


def uuids_of(session, provider_ids) -> dict:
    """{id: uuid} for the given provider ids."""
    ids = [i for i in set(provider_ids) if i is not None]
    if not ids:
        return {}
    return dict(execute_for_ids(session.connection(), _uuids_select,
                                ids).all())


class _Integers(sa.sql.expression.ColumnElement):
    """A parenthesised list of integers written into the SQL text."""

    # Never cached: the list is the statement, and differs every time.
    inherit_cache = False
    type = sa.Integer()

    def __init__(self, values):
        self.values = values


@compiler.compiles(_Integers)
def _render_integers(element, compiler, **kw):
    return '(%s)' % ','.join(map(str, element.values))


# Up to this many ids, a bound IN list: the statement stays in
# SQLAlchemy's cache, and naming a few parameters costs less than
# compiling the statement again.
_BOUND_IDS = 100


def _bound_ids(column) -> sa.ColumnElement:
    return column.in_(sa.bindparam('ids', expanding=True))


@functools.lru_cache(maxsize=None)
def _built_once(build) -> sa.Select:
    # ``build`` is a module-level function: a few dozen statements in all.
    return build(_bound_ids)


def _for_ids(build, ids) -> tuple:
    """(statement, parameters) of ``build(where)`` for the provider ids
    ``ids``; parameters None for a statement built for them."""
    values = [int(i) for i in ids]
    if len(values) <= _BOUND_IDS:
        return _built_once(build), {'ids': values}
    return build(lambda column: ids_in(column, values)), None


def execute_for_ids(conn, build, ids):
    """Execute ``build(where)`` for the provider ids ``ids``.

    ``build`` (a module-level function) makes the statement from
    ``where(column)``, the IN clause. For a few ids the statement is built
    once, with one expanding bound list: each request then only binds the
    ids instead of building the statement and its cache key again (most of
    a short request's CPU). Many ids are written in by ids_in().
    """
    return conn.execute(*_for_ids(build, ids))


def rows_for_ids(conn, build, ids) -> list:
    """execute_for_ids(conn, build, ids).all(), as tuples; for a few ids
    (the statement built once) read on the DBAPI cursor (db.driver_read)."""
    statement, params = _for_ids(build, ids)
    if params is None:  # built for these ids: no plan worth keeping
        return conn.execute(statement).all()
    return driver_read.rows(conn, statement, params)[1]


def ids_in(column, ids) -> sa.ColumnElement:
    """``column IN (ids)``; many ids go in the SQL text, not bound.

    Thousands of bound parameters (candidate ids) cost SQLAlchemy more
    to name and compile than the database takes to run the query; ids
    are integers (int() of each), so writing them in is safe.
    """
    values = [int(i) for i in ids]
    if not values:
        return sa.false()
    if len(values) <= _BOUND_IDS:
        return column.in_(values)
    return column.op('IN')(_Integers(values))
