"""Where blazar_ext's v1 answers as upstream Blazar 18 does: error names,
unknown paths, the version document, validation messages."""

from blazar_ext.api.v1 import errors
from blazar_ext.tests import base


class TestErrorShape(base.LeaseTestCase):

    def test_domain_errors_name_their_status(self):
        resp = self.request('GET', '/v1/leases/nope')
        self.assertEqual(404, resp.status)
        self.assertEqual({'error_code': 404, 'error_name': 404,
                          'error_message': 'Lease nope could not be found.'},
                         resp.json())
        resp = self.request('POST', '/v1/os-hosts', {'name': 'h1', 'x': []})
        self.assertEqual(400, resp.status, resp.text)
        self.assertEqual(400, resp.json()['error_name'])
        resp = self.request('DELETE', '/v1/leases')
        self.assertEqual(405, resp.status, resp.text)
        self.assertEqual(405, resp.json()['error_name'])

    def test_unknown_paths_answer_as_upstream(self):
        for path in ('/v1/nothing', '/v1/leases/x/y', '/v1/leases//',
                     '/nothing'):
            resp = self.request('GET', path)
            self.assertEqual(404, resp.status, path)
            body = resp.json()
            self.assertEqual(404, body['error'], path)
            self.assertEqual(errors.UNKNOWN_PATH, body['error_message'])
            self.assertEqual((404, 404), (body['error_code'],
                                          body['error_name']))


class TestVersionDocument(base.LeaseTestCase):

    def test_min_and_max_version(self):
        resp = self.request('GET', '/', token=None)
        self.assertEqual(300, resp.status)
        [version] = resp.json()['versions']
        self.assertEqual(('v1.0', '1.0', '1.0'),
                         (version['id'], version['min_version'],
                          version['max_version']))
        self.assertEqual('http://localhost/v1', version['links'][0]['href'])
        for path in ('/v1', '/v1/'):
            resp = self.request('GET', path, token=None)
            self.assertEqual(200, resp.status, path)
            self.assertEqual(version, resp.json())

    def test_version_documents_are_read_only(self):
        for path in ('/', '/v1', '/v1/'):
            self.assertEqual(200 if path != '/' else 300,
                             self.request('HEAD', path, token=None).status)
            for method in ('POST', 'PUT', 'DELETE', 'PATCH'):
                resp = self.request(method, path, {}, token=None)
                self.assertEqual(405, resp.status, (method, path))
                self.assertEqual('GET, HEAD', resp.headers['Allow'])
                self.assertEqual(405, resp.json()['error_code'])


class TestLeaseValidation(base.LeaseTestCase):
    """Upstream's wording first (scripts match on it), then ours."""

    def body(self, **values) -> dict:
        body = {'name': 'x', 'start_date': base.lease_date(60),
                'end_date': base.lease_date(120),
                'reservations': [base.host_reservation()]}
        body.update(values)
        return {k: v for k, v in body.items() if v is not None}

    def refused(self, body: dict, method: str = 'POST',
                path: str = '/v1/leases') -> str:
        resp = self.request(method, path, body)
        self.assertEqual(400, resp.status, resp.text)
        message = resp.json()['error_message']
        self.assertLess(len(message), 500)
        return message

    def test_a_lease_without_reservations_is_created(self):
        for reservations in ([], None):
            resp = self.request('POST', '/v1/leases', self.body(
                name='empty-%s' % reservations, reservations=reservations))
            self.assertEqual(201, resp.status, resp.text)
            self.assertEqual([], resp.json()['lease']['reservations'])

    def test_missing_parameters(self):
        message = self.refused(self.body(start_date=None, end_date=None))
        self.assertIn('Missing parameter start_date, end_date', message)
        self.assertIn("'end_date' is a required property", message)

    def test_dates(self):
        self.add_host('h1')
        message = self.refused(self.body(start_date='2030-13-45 10:00'))
        self.assertIn('2030-13-45 10:00 is an invalid date. Required '
                      'format: %Y-%m-%d %H:%M', message)
        self.assertIn('start_date', message)
        message = self.refused(self.body(start_date='2001-01-01 00:00',
                                         end_date='2001-01-02 00:00'))
        self.assertIn('Start date must be later than current date', message)
        self.assertIn('start_date 2001-01-01 00:00 is in the past', message)
        message = self.refused(self.body(end_date=base.lease_date(30)))
        self.assertIn('End date must be later than start date', message)
        lease = self.create()
        message = self.refused({'end_date': base.lease_date(30)}, 'PUT',
                               '/v1/leases/%s' % lease['id'])
        self.assertIn('End date must be later than current and start date',
                      message)

    def test_min_max(self):
        message = self.refused(self.body(reservations=[
            base.host_reservation(min=3, max=2)]))
        self.assertIn('Invalid values for min/max of hosts. Max must be '
                      'equal to or larger than min', message)
        self.assertIn('min (3) must not exceed max (2)', message)

    def test_huge_values_are_not_echoed(self):
        message = self.refused(self.body(name='n' * 100000))
        self.assertIn("'name' is longer than 80 characters", message)
        message = self.refused(self.body(start_date='2' * 60))
        self.assertIn('is an invalid date', message)
        message = self.refused(self.body(start_date='2' * 100000))
        self.assertIn("'start_date' is longer than 64 characters", message)


class TestHostValidation(base.LeaseTestCase):

    def test_extra_capability_key_too_long(self):
        resp = self.request('POST', '/v1/os-hosts', {
            'name': 'h1', 'k' * 65: 'v'})
        self.assertEqual(400, resp.status, resp.text)
        self.assertIn('Extra capability key too long',
                      resp.json()['error_message'])
        self.assertIn('longer than 64 characters',
                      resp.json()['error_message'])
        host = self.add_host('h1', **{'k' * 64: 'v'})
        self.assertEqual('v', host['k' * 64])
        resp = self.request('PUT', '/v1/os-hosts/%s' % host['id'],
                            {'k' * 100000: 'v'})
        self.assertEqual(400, resp.status, resp.text)
        self.assertIn('Extra capability key too long',
                      resp.json()['error_message'])
        self.assertLess(len(resp.text), 500)

    def test_host_set_inventory_fields_is_one_plain_sentence(self):
        host = self.add_host('h1', vcpus=16)
        resp = self.request('PUT', '/v1/os-hosts/%s' % host['id'],
                            {'vcpus': '12'})
        self.assertEqual(400, resp.status, resp.text)
        message = resp.json()['error_message']
        self.assertIn('vcpus cannot be changed on a registered host', message)
        self.assertIn('host create --extra vcpus=N', message)
        self.assertNotIn('enum', message)
        self.assertEqual(16, self.request(
            'GET', '/v1/os-hosts/%s' % host['id']).json()['host']['vcpus'])


class TestNoEchoAnywhere(base.LeaseTestCase):
    """A huge value in a path or a body comes back cut, in every family."""

    def test_paths_and_bodies(self):
        huge = 'z' * 100000
        for method, path, body, headers in (
                ('GET', '/v1/leases/' + huge, None, {}),
                ('GET', '/v1/os-hosts/properties/' + huge, None, {}),
                ('GET', '/v2/metadefs/namespaces/' + huge, None, {}),
                ('POST', '/v2/metadefs/namespaces', {'namespace': huge}, {}),
                ('GET', '/placement/traits/' + huge, None,
                 {'OpenStack-API-Version': 'placement 1.39'}),
                ('PUT', '/placement/traits/CUSTOM_' + huge, None,
                 {'OpenStack-API-Version': 'placement 1.39'})):
            resp = self.request(method, path, body, headers=headers)
            self.assertGreaterEqual(resp.status, 400, path[:40])
            self.assertLess(len(resp.text), 3000, (method, path[:40],
                                                   resp.text[:300]))
