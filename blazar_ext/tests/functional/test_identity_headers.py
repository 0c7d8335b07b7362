"""noauth trusts X-User-Id and X-Project-Id, but not past the length the
database stores: 400, not a 500 from MariaDB or PostgreSQL."""

from blazar_ext.tests import base
from blazar_ext.tests.functional import backends


class TestLongIdentityHeaders(base.LeaseTestCase):

    def _create_lease(self, user_id: str, project_id: str):
        return self.request('POST', '/v1/leases', {
            'name': 'l1', 'start_date': base.lease_date(60),
            'end_date': base.lease_date(120),
            'reservations': [base.host_reservation()],
            'events': []}, headers={
                'X-Auth-Token': 'user', 'X-Roles': 'member',
                'X-User-Id': user_id, 'X-Project-Id': project_id})

    def test_too_long_is_refused(self):
        self.add_host('h1')
        for user_id, project_id, name in (('u' * 256, 'p', 'X-User-Id'),
                                          ('u', 'p' * 256, 'X-Project-Id')):
            resp = self._create_lease(user_id, project_id)
            self.assertEqual(400, resp.status, resp.text)
            self.assertIn(name, resp.json()['error']['message'])
        self.assertEqual([], self.request('GET', '/v1/leases').json()[
            'leases'])

    def test_longest_is_stored(self):
        self.add_host('h1')
        resp = self._create_lease('u' * 255, 'p' * 255)
        self.assertEqual(201, resp.status, resp.text)
        self.assertEqual('p' * 255, resp.json()['lease']['project_id'])


class TestLongIdentityHeadersMySQL(backends.OnBackend,
                                   TestLongIdentityHeaders):
    BACKEND = 'mysql'


class TestLongIdentityHeadersPostgreSQL(backends.OnBackend,
                                        TestLongIdentityHeaders):
    BACKEND = 'postgresql'
