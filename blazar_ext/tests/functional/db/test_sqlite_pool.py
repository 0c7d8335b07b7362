"""SQLite files keep their connections between transactions (session.py).

oslo.db gives SQLite files a NullPool; the service swaps in a QueuePool
as its engines are made, keeping the events oslo.db set on connect.
"""

import os
import sqlite3

import fixtures

from oslo_db.sqlalchemy import engines
import sqlalchemy as sa

from blazar_ext.db import session as db_session
from blazar_ext.tests import base


class _SQLiteFile(base.TestCase):

    def setUp(self):
        super().setUp()
        self.url = 'sqlite:///%s' % os.path.join(
            self.useFixture(fixtures.TempDir()).path, 'p.db')

    def engine(self) -> sa.engine.Engine:
        """An engine as the service's context manager makes it."""
        manager = db_session.context_manager.make_new_manager()
        manager.configure(connection=self.url)
        engine = manager.writer.get_engine()
        self.addCleanup(engine.dispose)
        return engine


class TestSQLitePool(_SQLiteFile):

    def test_service_engine_reuses_its_connection(self):
        engine = self.engine()
        self.assertIsInstance(engine.pool, sa.pool.QueuePool)
        with engine.connect() as conn:
            first = conn.connection.dbapi_connection
        with engine.connect() as conn:
            self.assertIs(first, conn.connection.dbapi_connection)

    def test_the_connection_returned_last_is_handed_out_first(self):
        # Its page cache is the one a commit left valid.
        engine = self.engine()
        with engine.connect() as older, engine.connect() as newer:
            older_dbapi = older.connection.dbapi_connection
            newer_dbapi = newer.connection.dbapi_connection
            older.close()  # returned first
        with engine.connect() as conn:
            self.assertIs(newer_dbapi, conn.connection.dbapi_connection)
            self.assertIsNot(older_dbapi, conn.connection.dbapi_connection)

    def test_oslo_db_connect_events_still_apply(self):
        # sqlite_fk=True: foreign keys enforced on pooled connections.
        with self.engine().connect() as conn:
            self.assertEqual(1, conn.exec_driver_sql(
                'PRAGMA foreign_keys').scalar())

    def test_writes_by_another_connection_are_seen(self):
        engine = self.engine()
        with engine.begin() as conn:
            conn.exec_driver_sql('CREATE TABLE t (v INTEGER)')
            conn.exec_driver_sql('INSERT INTO t VALUES (1)')
        with engine.connect() as conn:  # the pooled one, cache warm
            self.assertEqual(1, conn.exec_driver_sql(
                'SELECT sum(v) FROM t').scalar())
        other = engines.create_engine(self.url)  # another process's
        self.addCleanup(other.dispose)
        with other.begin() as conn:
            conn.exec_driver_sql('INSERT INTO t VALUES (41)')
        with engine.connect() as conn:
            self.assertEqual(42, conn.exec_driver_sql(
                'SELECT sum(v) FROM t').scalar())

    def test_memory_and_server_engines_keep_their_pool(self):
        engine = engines.create_engine('sqlite://')
        self.addCleanup(engine.dispose)
        pool = engine.pool
        db_session._pool_sqlite_file(engine)
        self.assertIs(pool, engine.pool)


class TestSQLiteTransactions(_SQLiteFile):
    """Every transaction, a reader's included, begins on the file."""

    def setUp(self):
        super().setUp()
        self.service = self.engine()
        with self.service.begin() as conn:
            conn.exec_driver_sql('CREATE TABLE t (v INTEGER)')
            conn.exec_driver_sql('INSERT INTO t VALUES (1)')

    def _write_from_another_connection(self) -> bool:
        """Whether another connection could commit a row meanwhile."""
        other = sqlite3.connect(self.url[len('sqlite:///'):], timeout=0.1)
        try:
            other.execute('INSERT INTO t VALUES (41)')
            other.commit()
        except sqlite3.OperationalError as exc:
            self.assertIn('locked', str(exc))
            return False
        finally:
            other.close()
        return True

    def test_a_read_of_several_statements_sees_one_state(self):
        with self.service.connect() as conn, conn.begin():
            first = conn.exec_driver_sql('SELECT sum(v) FROM t').scalar()
            # The reader's transaction holds the file: the writer waits
            # (here: gives up) rather than change it between the reads.
            self.assertFalse(self._write_from_another_connection())
            self.assertEqual(first, conn.exec_driver_sql(
                'SELECT sum(v) FROM t').scalar())
        # Once it ends, the writer gets its turn.
        self.assertTrue(self._write_from_another_connection())

    def test_begin_goes_to_the_driver(self):
        statements = []
        sa.event.listen(self.service, 'before_cursor_execute',
                        lambda conn, cursor, statement, *args:
                        statements.append(statement))
        with self.service.connect() as conn, conn.begin():
            conn.exec_driver_sql('SELECT sum(v) FROM t').scalar()
            self.assertTrue(conn.connection.dbapi_connection.in_transaction)
        # The BEGIN went past SQLAlchemy's execution (and its events).
        self.assertEqual(['SELECT sum(v) FROM t'], statements)
        self.assertEqual(['_begin_sqlite'], [
            listener.__name__ for listener in self.service.dispatch.begin])
