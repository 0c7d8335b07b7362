"""Making race tests race, and seeing that they did.

A race test waits for the state it needs (a writer blocked on a row lock,
a statement under way, a manager's next run) instead of sleeping, and
asserts that the contention happened. Set
``BLAZAR_EXT_TEST_UNSYNCHRONISED=1`` to take the waits out: each race test
then goes straight on, sees no contention and fails, which shows that it
passes only when it has seen the threads meet (a test-only switch, never
set in CI).
"""

import os
import threading
import time
import typing

import sqlalchemy as sa

SWITCH = 'BLAZAR_EXT_TEST_UNSYNCHRONISED'


def synchronised() -> bool:
    """False when the switch asks race tests not to wait."""
    return os.environ.get(SWITCH) != '1'


def wait_until(observe: typing.Callable[[], typing.Any],
               timeout: float = 30.0, interval: float = 0.01) -> typing.Any:
    """observe() once it is true, or its last value after ``timeout``.

    Unsynchronised, None at once: the test goes on as one that slept
    would, knowing nothing (even a single look lets a thread catch up).
    """
    if not synchronised():
        return None
    deadline = time.monotonic() + timeout
    while True:
        value = observe()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(interval)


def lock_waits(engine: sa.engine.Engine) -> int:
    """Transactions on the engine's database waiting on a lock, as the
    server reports them (MariaDB/MySQL or PostgreSQL; SQLite cannot tell).
    """
    with engine.connect() as conn:
        if engine.dialect.name == 'postgresql':
            return conn.execute(sa.text(
                "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a "
                "ON a.pid = l.pid WHERE NOT l.granted "
                "AND a.datname = current_database()")).scalar()
        if engine.dialect.name == 'mysql':
            # InnoDB's own list: MariaDB's information_schema.innodb_trx
            # leaves waiting transactions out while another database's
            # DDL runs.
            database = conn.execute(sa.text('SELECT DATABASE()')).scalar()
            status = conn.execute(sa.text(
                'SHOW ENGINE INNODB STATUS')).fetchone()[2]
            return sum(1 for trx in status.split('---TRANSACTION ')
                       if 'TRX HAS BEEN WAITING' in trx
                       and ' of table `%s`.' % database in trx)
    raise ValueError('%s does not report lock waits' % engine.dialect.name)


class StatementWatch:
    """Statements on ``engine`` whose SQL contains ``marker``: how many
    began, finished and failed (SQLAlchemy engine events)."""

    def __init__(self, engine: sa.engine.Engine, marker: str):
        self.engine = engine
        self.marker = marker
        self.began = 0
        self.finished = 0
        self.failed: list[BaseException] = []
        self._lock = threading.Lock()
        self._events = (
            ('before_cursor_execute', self._before),
            ('after_cursor_execute', self._after),
            ('handle_error', self._error))
        for name, listener in self._events:
            sa.event.listen(engine, name, listener)

    def remove(self) -> None:
        for name, listener in self._events:
            sa.event.remove(self.engine, name, listener)

    def _before(self, conn, cursor, statement, *args) -> None:
        if self.marker in statement:
            with self._lock:
                self.began += 1

    def _after(self, conn, cursor, statement, *args) -> None:
        if self.marker in statement:
            with self._lock:
                self.finished += 1

    def _error(self, context) -> None:
        if context.statement and self.marker in context.statement:
            with self._lock:
                self.failed.append(context.sqlalchemy_exception)
