"""Lease reads through statements built once (db/api/lease): each call
binds its own filter values, and every lease gets its own reservations
and events, whether one, a few or more than a hundred are read."""

import datetime

import sqlalchemy as sa

from blazar_ext import context as blazar_context
from blazar_ext.db.api import lease as lease_api
from blazar_ext.db.models import lease as lease_models
from blazar_ext.db import session as db_session
from blazar_ext.tests import base

START = datetime.datetime(2030, 1, 1)


def _lease(n: int) -> dict:
    return {'id': 'l%03d' % n, 'name': 'l%d' % n, 'status': 'PENDING',
            'project_id': 'p%d' % (n % 3), 'degraded': n % 2 == 1,
            'start_date': START, 'end_date': START,
            'created_at': START + datetime.timedelta(seconds=n)}


class TestLeaseReads(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.context = blazar_context.get_admin_context()
        self.leases = [_lease(n) for n in range(150)]
        with db_session.writer.using(self.context) as session:
            session.execute(sa.insert(lease_models.Lease), self.leases)
            session.execute(sa.insert(lease_models.Reservation), [{
                'id': 'r' + lease['id'], 'lease_id': lease['id'],
                'resource_type': 't', 'status': 'pending',
                'missing_resources': False, 'resources_changed': False}
                for lease in self.leases])
            session.execute(sa.insert(lease_models.Event), [{
                'id': 'e%s%d' % (lease['id'], hour), 'lease_id': lease['id'],
                'event_type': 'start_lease', 'status': 'UNDONE',
                'time': START + datetime.timedelta(hours=hour)}
                for lease in self.leases for hour in (2, 1)])

    def _check_children(self, leases: list) -> None:
        for lease in leases:
            self.assertEqual(['r' + lease['id']],
                             [r['id'] for r in lease['reservations']])
            self.assertEqual(['e%s1' % lease['id'], 'e%s2' % lease['id']],
                             [e['id'] for e in lease['events']])

    def _expected(self, project=None, degraded=None) -> list:
        return [lease['id'] for lease in self.leases
                if project in (None, lease['project_id'])
                and degraded in (None, lease['degraded'])]

    def test_each_call_binds_its_own_filters(self):
        # Alternating, so a statement kept from a call with other values
        # (or other filters) would show.
        for project, degraded in [('p0', None), ('p1', True), (None, False),
                                  ('p1', False), (None, None), ('p2', None),
                                  (None, True), ('p0', True)]:
            leases = lease_api.lease_list(self.context, project, degraded)
            self.assertEqual(self._expected(project, degraded),
                             [lease['id'] for lease in leases])
            self._check_children(leases)

    def test_one_lease_has_its_own_children(self):
        for lease_id in ('l000', 'l149', 'l075'):
            lease = lease_api.lease_get(self.context, lease_id)
            self.assertEqual(lease_id, lease['id'])
            self._check_children([lease])

    def test_a_listing_of_one(self):
        lease_api.lease_get(self.context, 'l001')
        with db_session.writer.using(self.context) as session:
            session.execute(sa.update(lease_models.Lease).where(
                lease_models.Lease.id == 'l004').values(project_id='alone'))
        leases = lease_api.lease_list(self.context, 'alone')
        self.assertEqual(['l004'], [lease['id'] for lease in leases])
        self._check_children(leases)
