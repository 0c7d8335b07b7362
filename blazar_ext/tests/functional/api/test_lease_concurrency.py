"""Concurrent lease creates in one manager: no double booking, and a
definite answer for each request. (Several managers against MariaDB and
PostgreSQL are exercised by the multi-process tests.)"""

import threading

import sqlalchemy as sa

from blazar_ext import context
from blazar_ext.db.models import lease as lease_models
from blazar_ext.db import session as db_session
from blazar_ext.tests import base
from blazar_ext.tests.functional import backends


class TestConcurrentCreates(base.LeaseTestCase):

    def test_competing_creates(self):
        for i in range(3):
            self.add_host('h%d' % i)
        start, end = base.lease_date(60), base.lease_date(120)
        statuses = []
        lock = threading.Lock()

        def create(i):
            resp = self.request('POST', '/v1/leases', {
                'name': 'c%d' % i, 'start_date': start, 'end_date': end,
                'reservations': [base.host_reservation()]})
            with lock:
                statuses.append(resp.status)

        threads = [threading.Thread(target=create, args=(i,))
                   for i in range(12)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual([201] * 3 + [409] * 9, sorted(statuses))
        with db_session.reader.using(context.get_admin_context()) as s:
            hosts = list(s.scalars(sa.select(
                lease_models.ComputeHostAllocation.compute_host_id)))
        self.assertEqual(3, len(hosts))
        self.assertEqual(3, len(set(hosts)))


class TestOneSelectionQuery(base.LeaseTestCase):

    def test_one_query_reads_computehosts(self):
        for i in range(5):
            self.add_host('h%d' % i, gpu='true' if i % 2 else 'false')
        statements = []

        def record(conn, cursor, statement, *args):
            statements.append(statement)

        engine = self.db.engine
        sa.event.listen(engine, 'before_cursor_execute', record)
        self.addCleanup(sa.event.remove, engine, 'before_cursor_execute',
                        record)
        self.create(reservations=[base.host_reservation(
            min=1, max=2, resource_properties='["==", "$gpu", "true"]')])
        selecting = [s for s in statements
                     if 'FROM computehosts' in s and 'SELECT' in s]
        self.assertEqual(1, len(selecting), selecting)
        self.assertIn('NOT (EXISTS', selecting[0])
        self.assertIn('LIMIT', selecting[0])


# The same on MariaDB/MySQL and PostgreSQL (skipped without them).
TestConcurrentCreatesMySQL, TestConcurrentCreatesPostgreSQL = (
    backends.on_each_backend(TestConcurrentCreates))
