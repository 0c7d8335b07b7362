"""NUL characters: PostgreSQL cannot store them, so every API family
refuses them in JSON bodies with a 400 in its own error shape."""

from blazar_ext.tests import base

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
