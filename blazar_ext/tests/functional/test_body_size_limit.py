"""[oslo_middleware] max_request_body_size for all three API families:
413 in each family's JSON error shape, with or without Content-Length."""

import json

import requests

from blazar_ext.tests import base
from blazar_ext.tests import fixtures

LIMIT = 4096
PLACEMENT = {'OpenStack-API-Version': 'placement 1.39'}


class TestBodySizeLimit(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.conf.set_override('max_request_body_size', LIMIT,
                               group='oslo_middleware')

    def oversized(self) -> bytes:
        return json.dumps({'name': 'x' * LIMIT}).encode()

    def post(self, path: str, raw: bytes, headers: dict | None = None):
        return self.request('POST', path, raw=raw, headers=dict(
            headers or {}, **{'Content-Type': 'application/json'}))

    def assertTooLarge(self, resp) -> str:
        self.assertEqual(413, resp.status, resp.text)
        self.assertTrue(resp.headers['Content-Type'].startswith(
            'application/json'), resp.headers)
        self.assertLess(len(resp.text), 1000)
        return resp.text

    def test_reservation_api(self):
        body = self.assertTooLarge(self.post('/v1/os-hosts',
                                             self.oversized()))
        error = json.loads(body)
        self.assertEqual(413, error['error_code'])
        self.assertIn('larger than %d bytes' % LIMIT, error['error_message'])
        self.assertEqual([], self.request('GET', '/v1/os-hosts').json()[
            'hosts'])

    def test_placement_api(self):
        body = self.assertTooLarge(self.post(
            '/placement/resource_providers', self.oversized(), PLACEMENT))
        [error] = json.loads(body)['errors']
        self.assertEqual(413, error['status'])
        self.assertIn('larger than %d bytes' % LIMIT, error['detail'])

    def test_metadefs_api(self):
        body = self.assertTooLarge(self.post('/v2/metadefs/namespaces',
                                             self.oversized()))
        error = json.loads(body)['error']
        self.assertEqual(413, error['code'])
        self.assertIn('larger than %d bytes' % LIMIT, error['message'])

    def test_content_length_not_an_integer_reaches_the_family(self):
        # oslo's limiter would drop the header; Placement refuses it.
        resp = self.post('/placement/resource_providers', b'{"name": "x"}',
                         dict(PLACEMENT, **{'Content-Length': 'hi mom'}))
        self.assertEqual(400, resp.status, resp.text)
        self.assertIn('content-length header must be an integer',
                      resp.json()['errors'][0]['detail'])
        resp = self.post('/v1/os-hosts', self.oversized(),
                         {'Content-Length': 'hi mom'})
        self.assertIn(resp.status, (400, 413), resp.text)

    def test_under_the_limit_passes(self):
        resp = self.request('POST', '/v1/os-hosts', {'name': 'h' * 50})
        self.assertEqual(201, resp.status, resp.text)


class TestBodySizeLimitOverHTTP(base.APITestCase):
    """A real server: the limit holds for a chunked body too."""

    def setUp(self):
        super().setUp()
        self.conf.set_override('max_request_body_size', LIMIT,
                               group='oslo_middleware')
        self.server = self.useFixture(fixtures.RealServerFixture())

    def send(self, path: str, data, headers: dict | None = None):
        return requests.post(self.server.endpoint + path, data=data,
                             timeout=30, headers=dict(
                                 headers or {}, **{
                                     'X-Auth-Token': 'admin',
                                     'Content-Type': 'application/json'}))

    def test_content_length_and_chunked(self):
        body = json.dumps({'name': 'x' * LIMIT}).encode()
        resp = self.send('/v1/os-hosts', body)
        self.assertEqual(413, resp.status_code, resp.text)
        self.assertEqual(413, resp.json()['error_code'])
        # A generator body goes out chunked, with no Content-Length.
        resp = self.send('/v2/metadefs/namespaces',
                         (body[i:i + 512] for i in range(0, len(body), 512)))
        self.assertEqual(413, resp.status_code, resp.text)
        self.assertEqual(413, resp.json()['error']['code'])
        small = json.dumps({'namespace': 'ok'}).encode()
        resp = self.send('/v2/metadefs/namespaces', iter([small]))
        self.assertEqual(201, resp.status_code, resp.text)
