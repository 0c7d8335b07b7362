"""Lease creates under row locks only, on MariaDB/MySQL and PostgreSQL.

The lease API tests themselves run on both too, from their own modules
(``backends.on_each_backend``).

Skipped when the ``openstack_citest`` login of tools/test-setup.sh does not
work. Checks the row-locking selection (SELECT ... FOR UPDATE with LIMIT
and correlated EXISTS), the event claims and the concurrent creates on the
real databases.
"""


import sqlalchemy as sa

from blazar_ext import context as blazar_context
from blazar_ext.db.models import lease as lease_models
from blazar_ext.tests import base
from blazar_ext.tests.functional import backends


_OnBackend = backends.OnBackend


class _RowLocksOnly:
    """Concurrent creates with the in-process lock disabled: only the
    database's row locks and the locked re-check keep hosts single-booked,
    as between two manager processes."""

    def test_row_locks_prevent_double_booking(self):
        self.without_process_lock()
        for i in range(3):
            self.add_host('h%d' % i)
        start, end = base.lease_date(60), base.lease_date(120)
        outcomes = self.race_creates(
            [{'name': 'c%d' % i, 'start_date': start, 'end_date': end,
              'reservations': [base.host_reservation()]}
             for i in range(10)],
            lambda: blazar_context.RequestContext(
                is_admin=True, roles=['admin'], project_id='p',
                user_id='u'))
        self.assertEqual(['NotEnoughResources'] * 7 + ['created'] * 3,
                         outcomes)
        with self.db.engine.connect() as conn:
            hosts = list(conn.scalars(sa.select(
                lease_models.ComputeHostAllocation.compute_host_id)))
        self.assertEqual(sorted(set(hosts)), sorted(hosts))
        self.assertEqual(3, len(hosts))


class TestRowLocksMySQL(_OnBackend, _RowLocksOnly,
                        base.LeaseTestCase):
    BACKEND = 'mysql'


class TestRowLocksPostgreSQL(_OnBackend, _RowLocksOnly,
                             base.LeaseTestCase):
    BACKEND = 'postgresql'
