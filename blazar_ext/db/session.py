"""Transactions: one oslo.db enginefacade context manager for the service.

Database functions open a transaction with ``reader.using(context)`` or
``writer.using(context)``; nested uses join the outer transaction.
"""

import contextlib
import threading

from oslo_db.sqlalchemy import enginefacade
import sqlalchemy as sa

from blazar_ext import conf

context_manager = enginefacade.transaction_context()
# thread_checkin: oslo.db sleeps (time.sleep(0)) on every SQLite
# connection checkin so that eventlet's green threads get a turn. This
# service runs native threads, which the interpreter switches by itself;
# the sleep only gave the CPU away, up to a millisecond of a small GET on
# a busy machine.
context_manager.configure(sqlite_fk=True, thread_checkin=False)


def _pool_sqlite_file(engine: sa.engine.Engine) -> None:
    """Keep a SQLite file's connections between transactions.

    oslo.db gives SQLite files a NullPool: each transaction opened the
    file, read every page it touched again from the operating system (a
    thousand reads for a large candidates query) and closed it, about
    half of a small request's work. A QueuePool of [database]
    max_pool_size keeps connections and their page caches; SQLite still
    checks the file as each transaction begins, so writes by other
    connections and processes are seen. The events oslo.db set on the
    pool (foreign keys, BEGIN) carry over, as Pool.recreate() does it.

    Last in, first out: the connection that just committed keeps its page
    cache valid, which a write makes every other connection's stale; a
    lease create's read-back then reads some 20 pages from the operating
    system, not 60 (strace, 1,000 hosts).
    """
    old = engine.pool
    if engine.dialect.name != 'sqlite' or not isinstance(
            old, sa.pool.NullPool):
        return
    database = conf.CONF.database
    engine.pool = sa.pool.QueuePool(
        old._creator, pool_size=database.max_pool_size or 5,
        max_overflow=database.max_overflow or 0,
        timeout=database.pool_timeout or 30, use_lifo=True,
        reset_on_return=old._reset_on_return, _dispatch=old.dispatch,
        dialect=old._dialect)
    old.dispose()


context_manager.append_on_engine_create(_pool_sqlite_file)


def _begin_sqlite(conn: sa.engine.Connection) -> None:
    """BEGIN, as oslo.db's listener emits it, on the DBAPI connection."""
    if 'in_transaction' not in conn.info:
        conn.connection.dbapi_connection.execute('BEGIN')
        conn.info['in_transaction'] = True


def _lean_sqlite_begin(engine: sa.engine.Engine) -> None:
    """oslo.db's SQLite BEGIN sent straight to the driver.

    oslo.db turns pysqlite's own transaction handling off and emits a
    BEGIN as each transaction starts, readers' included, so that a read
    of several statements sees one state of the file. It sends it as a
    SQLAlchemy statement: about 150 function calls, a tenth of a small
    GET, for a fixed word with no parameters and no result. The same
    BEGIN, with the same marker oslo.db's commit and rollback listeners
    clear, goes to the DBAPI connection instead.
    """
    if engine.dialect.name != 'sqlite':
        return
    for listener in list(engine.dispatch.begin):
        if getattr(listener, '__name__', '') == '_sqlite_emit_begin':
            sa.event.remove(engine, 'begin', listener)
            sa.event.listen(engine, 'begin', _begin_sqlite)


context_manager.append_on_engine_create(_lean_sqlite_begin)


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


# A write that changes nothing: on SQLite it takes the database's write
# lock, waiting for another writer's commit as long as the connection's
# busy timeout allows.
_TAKE_WRITE_LOCK = sa.text('DELETE FROM leases WHERE 0 = 1')


class _Writer:
    """context_manager.writer, whose transactions on SQLite take the write
    lock before they read.

    oslo.db begins SQLite transactions deferred: two writers both read,
    then the second to write fails at once with "database is locked"
    (waiting could deadlock), a 500 for concurrent PUT /allocations.
    Taken first, the lock makes writers wait their turn instead. Readers
    are not held up; other databases lock rows.
    """

    def __init__(self, manager):
        self._manager = manager

    def __getattr__(self, name: str):
        return getattr(self._manager, name)

    @contextlib.contextmanager
    def using(self, context):
        with self._manager.using(context) as session:
            # Once, as the outermost writer of the context begins.
            if (not writing(context)
                    and session.get_bind().dialect.name == 'sqlite'):
                session.connection().execute(_TAKE_WRITE_LOCK)
            depths = _WRITING.__dict__.setdefault('depths', {})
            depths[id(context)] = depths.get(id(context), 0) + 1
            try:
                yield session
            finally:
                depths[id(context)] -= 1
                if not depths[id(context)]:
                    del depths[id(context)]


# The writer transactions this thread has open, by context.
_WRITING = threading.local()


def writing(context) -> bool:
    """Whether this thread is inside a writer transaction of ``context``."""
    return id(context) in getattr(_WRITING, 'depths', {})


reader = context_manager.reader
writer = _Writer(context_manager.writer)


def get_engine():
    """The writer engine, for migrations and tests."""
    return context_manager.writer.get_engine()
