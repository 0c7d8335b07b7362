"""Where blazar_ext's v1 answers as upstream Blazar 18 does: error names,
unknown paths, the version document, validation messages, formats.
(test_upstream_differential compares with upstream itself.)"""

import datetime
import re

from oslo_utils import timeutils

from blazar_ext.api.v1 import errors
from blazar_ext.tests import base
from blazar_ext.tests import fixtures

# Upstream's created_at / updated_at, and its lease dates and event times.
RECORD_TIME = re.compile(r'^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$')
ISO_TIME = re.compile(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$')


class TestErrorShape(base.LeaseTestCase):

    def test_domain_errors_name_their_status(self):
        resp = self.request('GET', '/v1/leases/nope')
        self.assertEqual(404, resp.status)
        self.assertEqual({'error_code': 404, 'error_name': 404,
                          'error_message': "Object with {'lease_id': 'nope'} "
                                           "not found: Lease nope could not "
                                           "be found."},
                         resp.json())
        resp = self.request('POST', '/v1/os-hosts', {'name': 'h1', 'x': []})
        self.assertEqual(400, resp.status, resp.text)
        self.assertEqual(400, resp.json()['error_name'])
        resp = self.request('DELETE', '/v1/leases')
        self.assertEqual(405, resp.status, resp.text)
        self.assertEqual(405, resp.json()['error_name'])

    def test_methods_not_allowed_answer_as_upstream(self):
        for method, path in (('DELETE', '/v1/leases'),
                             ('PUT', '/v1/os-hosts'),
                             ('PATCH', '/v1/leases/x'), ('POST', '/')):
            resp = self.request(method, path, {})
            self.assertEqual(405, resp.status, (method, path))
            body = resp.json()
            # Flask's shape and words, and ours beside them.
            self.assertEqual(405, body['error'], (method, path))
            self.assertEqual('The method is not allowed for the requested '
                             'URL.', body['error_message'])
            self.assertEqual((405, 405), (body['error_code'],
                                          body['error_name']))

    def test_domain_errors_start_with_upstreams_words(self):
        for path, words in (
                ('/v1/leases/nope',
                 "Object with {'lease_id': 'nope'} not found: Lease nope "
                 "could not be found."),
                ('/v1/os-hosts/nope',
                 "Object with {'host_id': 'nope'} not found: Host nope "
                 "could not be found."),
                ('/v1/floatingips/nope',
                 "Object with {'floatingip_id': 'nope'} not found: "
                 "Floating IP nope could not be found.")):
            resp = self.request('GET', path)
            self.assertEqual(404, resp.status, path)
            self.assertEqual(words, resp.json()['error_message'])
        resp = self.request('GET', '/v1/os-hosts',
                            headers=fixtures.user_headers())
        self.assertEqual(403, resp.status, resp.text)
        self.assertEqual("Policy doesn't allow blazar:oshosts:get to be "
                         "performed.", resp.json()['error_message'])

    def test_in_use_errors_start_with_upstreams_words(self):
        host = self.add_host('h1')
        self.create()
        resp = self.request('DELETE', '/v1/os-hosts/%s' % host['id'])
        self.assertEqual(409, resp.status, resp.text)
        self.assertTrue(resp.json()['error_message'].startswith(
            "Can't delete host %s. The host is reserved." % host['id']))
        resp = self.request('POST', '/v1/floatingips', {
            'floating_network_id': 'net-1',
            'floating_ip_address': '172.24.4.10'})
        fip = resp.json()['floatingip']
        self.create(name='fip', reservations=[{
            'resource_type': 'virtual:floatingip', 'network_id': 'net-1',
            'amount': 1}])
        resp = self.request('DELETE', '/v1/floatingips/%s' % fip['id'])
        self.assertEqual(409, resp.status, resp.text)
        self.assertTrue(resp.json()['error_message'].startswith(
            "Can't delete floating IP %s. Floating IP id %s is allocated by "
            "reservations." % (fip['id'], fip['id'])))

    def test_unknown_paths_answer_as_upstream(self):
        # /v1/_lookup is Pecan's lookup method, not a route: it answered
        # 406 (it serves no JSON) before Pecan was told the content type.
        for path in ('/v1/nothing', '/v1/leases/x/y', '/v1/leases//',
                     '/nothing', '/v1/_lookup'):
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


class TestFormats(base.LeaseTestCase):
    """Times and defaults as upstream writes them."""

    def test_record_times_and_lease_dates(self):
        host = self.add_host('h1')
        self.assertRegex(host['created_at'], RECORD_TIME)
        self.assertRegex(host['updated_at'], RECORD_TIME)
        [listed] = self.request('GET', '/v1/os-hosts').json()['hosts']
        self.assertRegex(listed['created_at'], RECORD_TIME)
        lease = self.show(self.create()['id'])
        for item in [lease] + lease['reservations'] + lease['events']:
            self.assertRegex(item['created_at'], RECORD_TIME)
        self.assertRegex(lease['start_date'], ISO_TIME)
        self.assertRegex(lease['events'][0]['time'], ISO_TIME)
        # Upstream answers a floating IP's registration with the row as
        # its manager wrote it: ISO times there only.
        fip = self.request('POST', '/v1/floatingips', {
            'floating_network_id': 'net-1',
            'floating_ip_address': '172.24.4.10'}).json()['floatingip']
        self.assertRegex(fip['created_at'], ISO_TIME)
        shown = self.request('GET', '/v1/floatingips/%s' % fip['id']).json()
        self.assertRegex(shown['floatingip']['created_at'], RECORD_TIME)

    def test_a_lease_started_now_starts_at_the_minute(self):
        self.add_host('h1')
        before = timeutils.utcnow().replace(second=0, microsecond=0)
        lease = self.create(start='now', end=60)
        after = timeutils.utcnow().replace(second=0, microsecond=0)
        start = datetime.datetime.fromisoformat(lease['start_date'])
        self.assertIn(start, (before, after))
        [start_event] = [e for e in lease['events']
                         if e['event_type'] == 'start_lease']
        self.assertEqual(lease['start_date'], start_event['time'])

    def test_an_unknown_zone_is_empty(self):
        host = self.add_host('h1')
        self.assertEqual('', host['availability_zone'])
        [listed] = self.request('GET', '/v1/os-hosts').json()['hosts']
        self.assertEqual('', listed['availability_zone'])
        zoned = self.add_host('h2', availability_zone='az1')
        self.assertEqual('az1', zoned['availability_zone'])

    def test_floating_ip_missing_parameter(self):
        resp = self.request('POST', '/v1/floatingips',
                            {'floating_network_id': 'net-1'})
        self.assertEqual(400, resp.status, resp.text)
        self.assertIn('Missing parameter floating_ip_address',
                      resp.json()['error_message'])


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
