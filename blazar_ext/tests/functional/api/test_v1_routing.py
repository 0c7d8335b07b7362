"""What the reservation API refuses before a handler runs (api.v1.hooks):
ids missing from the path, empty segments, Accept, undecodable bodies."""

from blazar_ext.tests import base


class TestV1Routing(base.APITestCase):

    def _error(self, resp, status: int) -> dict:
        self.assertEqual(status, resp.status, resp.text)
        body = resp.json()
        self.assertEqual(status, body['error_code'])
        return body

    def test_id_methods_on_a_collection_are_405_with_allow(self):
        for method, path, allow in (
                ('PUT', '/v1/leases', 'GET, POST'),
                ('DELETE', '/v1/leases/', 'GET, POST'),
                ('PUT', '/v1/os-hosts', 'GET, POST'),
                ('DELETE', '/v1/floatingips', 'GET, POST'),
                ('PATCH', '/v1/physical:host/properties', 'GET'),
                ('PATCH', '/v1/os-hosts/properties', 'GET')):
            resp = self.request(method, path, {})
            self._error(resp, 405)
            self.assertEqual(allow, resp.headers['Allow'], path)

    def test_empty_segment_is_404(self):
        self._error(self.request('GET', '/v1/leases//'), 404)

    def test_json_whatever_accept_says(self):
        resp = self.request('GET', '/v1/leases',
                            headers={'Accept': 'text/html'})
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual({'leases': []}, resp.json())

    def test_unknown_charset_is_415(self):
        resp = self.request('POST', '/v1/leases', raw=b'{}', headers={
            'Content-Type': 'application/json; charset=nosuch'})
        body = self._error(resp, 415)
        self.assertIn('nosuch', body['error_message'])

    def test_body_nested_too_deeply_is_400(self):
        resp = self.request('POST', '/v1/leases', raw=b'[' * 100000,
                            headers={'Content-Type': 'application/json'})
        body = self._error(resp, 400)
        self.assertIn('nested too deeply', body['error_message'])
