"""Characters past U+FFFF (emoji, rare CJK) are stored and looked up like
any other, on every backend: MySQL needs the connection in utf8mb4, not
oslo.db's default utf8, or it fails the query (500)."""

from blazar_ext.tests import base
from blazar_ext.tests.functional import backends

EMOJI = '\U0001F600'
PLACEMENT = {'OpenStack-API-Version': 'placement 1.39'}


class TestFourByteCharacters(base.APITestCase):

    def test_lookups_by_such_a_name_are_404(self):
        for path in ('/v1/leases/%F0%9F%98%80',
                     '/v1/os-hosts/properties/%F0%9F%98%80',
                     '/placement/resource_providers/%F0%9F%98%80',
                     '/v2/metadefs/namespaces/%F0%9F%98%80'):
            resp = self.request('GET', path, headers=PLACEMENT)
            self.assertEqual(404, resp.status, '%s: %s' % (path, resp.text))

    def test_names_and_values_are_stored(self):
        resp = self.request('POST', '/v1/os-hosts',
                            {'name': 'node-' + EMOJI, 'mood': EMOJI})
        self.assertEqual(201, resp.status, resp.text)
        host = self.request('GET', '/v1/os-hosts/%s' % resp.json()['host'][
            'id']).json()['host']
        self.assertEqual(('node-' + EMOJI, EMOJI),
                         (host['hypervisor_hostname'], host['mood']))
        resp = self.request('POST', '/v2/metadefs/namespaces',
                            {'namespace': 'ns-' + EMOJI})
        self.assertEqual(201, resp.status, resp.text)
        resp = self.request('GET', '/v2/metadefs/namespaces/ns-%F0%9F%98%80')
        self.assertEqual(200, resp.status, resp.text)


class TestFourByteCharactersMySQL(backends.OnBackend,
                                  TestFourByteCharacters):
    BACKEND = 'mysql'


class TestFourByteCharactersPostgreSQL(backends.OnBackend,
                                       TestFourByteCharacters):
    BACKEND = 'postgresql'
