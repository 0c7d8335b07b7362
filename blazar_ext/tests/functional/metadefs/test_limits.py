"""Definitions too large for a TEXT column are refused with a 400 on
every database (MariaDB's TEXT holds 64 KiB)."""

from blazar_ext.tests import base


class TestDefinitionSize(base.APITestCase):

    def setUp(self):
        super().setUp()
        resp = self.request('POST', '/v2/metadefs/namespaces',
                            {'namespace': 'big'})
        self.assertEqual(201, resp.status, resp.text)

    def test_oversized_property_is_400_and_not_stored(self):
        resp = self.request('POST', '/v2/metadefs/namespaces/big/properties',
                            {'name': 'p', 'title': 'x' * 100000,
                             'type': 'string'})
        self.assertEqual(400, resp.status, resp.text)
        self.assertIn('65535', resp.text)
        resp = self.request('GET', '/v2/metadefs/namespaces/big/properties')
        self.assertEqual({}, resp.json()['properties'])

    def test_oversized_object_is_400(self):
        resp = self.request('POST', '/v2/metadefs/namespaces/big/objects', {
            'name': 'o', 'properties': {
                'p%d' % i: {'title': 'x' * 1000, 'type': 'string'}
                for i in range(100)}})
        self.assertEqual(400, resp.status, resp.text)

    def test_large_but_fitting_property_is_stored(self):
        resp = self.request('POST', '/v2/metadefs/namespaces/big/properties',
                            {'name': 'p', 'title': 'x' * 60000,
                             'type': 'string'})
        self.assertEqual(201, resp.status, resp.text)
