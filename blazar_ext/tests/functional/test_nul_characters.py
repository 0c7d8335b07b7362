"""NUL characters: PostgreSQL cannot store them, so every API family
refuses them in JSON bodies with a 400 in its own error shape."""

from blazar_ext.tests import base
from blazar_ext.tests.functional import backends

PLACEMENT = {'OpenStack-API-Version': 'placement 1.39'}


class TestNulInBodies(base.APITestCase):

    def test_v1_host_name(self):
        resp = self.request('POST', '/v1/os-hosts', {'name': 'h\x00x'})
        self.assertEqual(400, resp.status, resp.text)
        self.assertIn('NUL', resp.json()['error_message'])
        self.assertEqual([], self.request('GET', '/v1/os-hosts').json()[
            'hosts'])

    def test_v1_capability_name_and_value(self):
        for body in ({'name': 'h', 'k\x00': 'v'}, {'name': 'h', 'k': 'v\x00'}):
            resp = self.request('POST', '/v1/os-hosts', body)
            self.assertEqual(400, resp.status, resp.text)

    def test_placement_provider_name(self):
        resp = self.request('POST', '/placement/resource_providers',
                            {'name': 'rp\x00'}, headers=PLACEMENT)
        self.assertEqual(400, resp.status, resp.text)
        self.assertIn('NUL', resp.json()['errors'][0]['detail'])

    def test_metadefs_property_name(self):
        resp = self.request('POST', '/v2/metadefs/namespaces',
                            {'namespace': 'n'})
        self.assertEqual(201, resp.status, resp.text)
        resp = self.request('POST', '/v2/metadefs/namespaces/n/properties',
                            {'name': 'q\x00', 'title': 'Q',
                             'type': 'string'})
        self.assertEqual(400, resp.status, resp.text)


class TestNulInUrls(base.APITestCase):
    """A NUL in the path or a query parameter: 400 in each family's shape
    (PostgreSQL would fail the lookup with a 500)."""

    CASES = [
        ('/v1/leases/%00', lambda body: body['error_message']),
        ('/v1/os-hosts?name=a%00', lambda body: body['error_message']),
        ('/v1/os-hosts/properties?detail=%00',
         lambda body: body['error_message']),
        ('/placement/resource_providers?name=rp%00',
         lambda body: body['errors'][0]['detail']),
        ('/placement/traits/CUSTOM_%00',
         lambda body: body['errors'][0]['detail']),
        ('/v2/metadefs/namespaces/n%00',
         lambda body: body['error']['message']),
        ('/v2/metadefs/namespaces?resource_types=%00x',
         lambda body: body['error']['message']),
    ]

    def test_refused(self):
        for path, message in self.CASES:
            resp = self.request('GET', path, headers=PLACEMENT)
            self.assertEqual(400, resp.status, '%s: %s' % (path, resp.text))
            self.assertIn('NUL', message(resp.json()), path)

    def test_percent_sign_alone_is_not_refused(self):
        resp = self.request('GET', '/v1/os-hosts?name=a%2500')
        self.assertEqual(200, resp.status, resp.text)


class TestNulInUrlsPostgreSQL(backends.OnBackend, TestNulInUrls):
    BACKEND = 'postgresql'
