"""SQLite files keep their connections between transactions (session.py).

oslo.db gives SQLite files a NullPool; the service swaps in a QueuePool
as its engines are made, keeping the events oslo.db set on connect.
"""

import os

import fixtures

from oslo_db.sqlalchemy import engines
import sqlalchemy as sa

from blazar_ext.db import session as db_session
from blazar_ext.tests import base


class TestSQLitePool(base.TestCase):

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
