"""bulk.insert_rows: many rows in, the same values out, on each backend.

SQLite and MySQL take driver-ready parameters (converted here, column by
column); PostgreSQL goes through SQLAlchemy's own batching. Either way a
row reads back as the ORM would have written it.
"""

import datetime

import fixtures
from oslo_db import exception as db_exc
import sqlalchemy as sa

from blazar_ext import context
from blazar_ext.db.api import bulk
from blazar_ext.db.models import lease as lease_models
from blazar_ext.db import session as db_session
from blazar_ext.tests import base
from blazar_ext.tests.functional import backends

START = datetime.datetime(2030, 1, 1, 12, 0, 0)
LEASES = lease_models.Lease.__table__


def _lease(n: int, **values) -> dict:
    row = {'id': 'lease-%05d' % n, 'name': 'l%d' % n, 'user_id': 'u',
           'project_id': 'p', 'trust_id': None, 'status': 'PENDING',
           # Half the leases share their dates, half have their own.
           'start_date': START + datetime.timedelta(hours=n % 2 and n),
           'end_date': START + datetime.timedelta(days=1, hours=n),
           'degraded': n % 3 == 0, 'created_at': None}
    row.update(values)
    return row


class TestInsertRows(base.DBTestCase):

    def insert(self, table, rows, **kwargs) -> None:
        with db_session.writer.using(context.get_admin_context()) as s:
            bulk.insert_rows(s.connection(), table, rows, **kwargs)

    def read(self, table) -> dict:
        with db_session.reader.using(context.get_admin_context()) as s:
            return {row.id: row._asdict() for row in s.execute(
                sa.select(table))}

    def test_values_read_back_as_written_across_batches(self):
        self.useFixture(fixtures.MonkeyPatch(
            'blazar_ext.db.api.bulk.BATCH', 7))
        rows = [_lease(n) for n in range(30)]
        self.insert(LEASES, rows)
        stored = self.read(LEASES)
        self.assertEqual(30, len(stored))
        for row in rows:
            for key in ('name', 'start_date', 'end_date', 'degraded',
                        'trust_id'):
                self.assertEqual(row[key], stored[row['id']][key],
                                 (row['id'], key))

    def test_none_and_missing_columns_take_fill_then_default(self):
        when = datetime.datetime(2029, 5, 6, 7, 8, 9)
        kept = datetime.datetime(2020, 1, 1)
        self.insert(LEASES, [_lease(1, degraded=None),
                             _lease(2, created_at=kept)],
                    fill={'created_at': when})
        rows = [dict(_lease(3)), dict(_lease(4))]
        for row in rows:
            del row['created_at'], row['degraded']
        self.insert(LEASES, rows)
        stored = self.read(LEASES)
        # None takes the fill; a value stays; a scalar default applies.
        self.assertEqual((when, False), (stored['lease-00001']['created_at'],
                                         stored['lease-00001']['degraded']))
        self.assertEqual(kept, stored['lease-00002']['created_at'])
        # Without a fill, the model's callable default, once per row.
        for lease_id in ('lease-00003', 'lease-00004'):
            self.assertIsNotNone(stored[lease_id]['created_at'])
            self.assertFalse(stored[lease_id]['degraded'])

    def test_a_duplicate_key_is_oslo_db_duplicate_entry(self):
        self.insert(LEASES, [_lease(1)])
        self.assertRaises(db_exc.DBDuplicateEntry, self.insert, LEASES,
                          [_lease(2), _lease(1)])
        self.assertEqual(['lease-00001'], list(self.read(LEASES)))


class TestLoading(base.DBTestCase):

    def test_sqlite_cache_grows_while_loading_then_is_restored(self):
        with db_session.writer.using(context.get_admin_context()) as s:
            conn = s.connection()

            def cache():
                return conn.exec_driver_sql('PRAGMA cache_size').scalar()

            before = cache()
            with bulk.loading(conn):
                self.assertEqual(-bulk.SQLITE_LOADING_CACHE_KIB, cache())
            self.assertEqual(before, cache())


class TestInsertRowsMySQL(backends.OnBackend, TestInsertRows):
    BACKEND = 'mysql'


class TestInsertRowsPostgreSQL(backends.OnBackend, TestInsertRows):
    BACKEND = 'postgresql'
