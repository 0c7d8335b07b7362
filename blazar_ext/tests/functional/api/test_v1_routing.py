"""What the reservation API refuses before a handler runs (api.v1.hooks):
ids missing from the path, empty segments, Accept, undecodable bodies."""

import json
import math
from unittest import mock


from blazar_ext.api.v1 import hooks
from blazar_ext.api import validation
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


class TestJsonBodyDecodedOnce(base.APITestCase):
    """The hook decodes a JSON body once for Pecan and the handler."""

    def _lease(self) -> dict:
        return {'name': 'once', 'start_date': base.lease_date(60),
                'end_date': base.lease_date(120), 'reservations': []}

    def test_create_decodes_its_body_once(self):
        webob_json = mock.Mock(wraps=json)
        with mock.patch.object(validation, 'parse_json',
                               wraps=validation.parse_json) as parse, \
                mock.patch('webob.request.json', webob_json):
            resp = self.request('POST', '/v1/leases', self._lease())
        self.assertEqual(201, resp.status, resp.text)
        self.assertEqual('once', resp.json()['lease']['name'])
        # Before: the hook, Pecan (twice) and the handler decoded it.
        self.assertEqual(1, parse.call_count)
        self.assertEqual(0, webob_json.loads.call_count)

    def test_refused_bodies_as_before(self):
        for raw, status, words in (
                (b'{"name": NaN}', 400, 'not a JSON number'),
                (b'{"name": 1e999}', 400, 'too large'),
                (b'{"name": "\\ud800"}', 400, 'surrogate'),
                (b'{"name": "a\\u0000"}', 400, 'NUL'),
                (b'{"name": ', 400, 'not valid JSON'),
                (b'[1]', 400, None)):
            resp = self.request('POST', '/v1/leases', raw=raw, headers={
                'Content-Type': 'application/json'})
            self.assertEqual(status, resp.status, resp.text)
            if words:
                self.assertIn(words, resp.json()['error_message'], raw)


def _req(body: bytes, content_type='application/json'):
    req = hooks.JsonRequest.blank('/v1/leases', method='POST', body=body)
    req.content_type = content_type
    return req


class TestJsonRequest(base.DBTestCase):
    """validation.keep_json / request_json and JsonRequest.json."""

    def test_kept_value_served_to_pecan_then_handed_over_once(self):
        req = _req(b'{"a": [1]}')
        self.assertTrue(validation.keep_json(req))
        self.assertIs(req.json, req.json)
        data = validation.request_json(req)
        self.assertEqual({'a': [1]}, data)
        data['a'].append(2)
        # Handed over: a second reader decodes the body again.
        self.assertEqual({'a': [1]}, validation.request_json(req))
        self.assertEqual({'a': [1]}, req.json)

    def test_body_set_anew_is_decoded_again(self):
        req = _req(b'{"a": 1}')
        self.assertTrue(validation.keep_json(req))
        req.body = b'{"b": 2}'
        self.assertEqual({'b': 2}, req.json)
        self.assertEqual({'b': 2}, validation.request_json(req))

    def test_other_charset_read_as_webob_reads_it(self):
        req = _req('{"a": "\u00e9"}'.encode('utf-8'),
                   'application/json; charset=latin-1')
        self.assertTrue(validation.keep_json(req))
        # WebOb's json decodes with the declared charset; parse_json
        # (the handler's) reads UTF-8, as before.
        self.assertEqual({'a': '\u00c3\u00a9'}, req.json)
        self.assertEqual({'a': '\u00e9'}, validation.request_json(req))
        req = _req(b'{"a": 1}', 'application/json; charset=UTF-8')
        validation.keep_json(req)
        self.assertIs(req.json, req.json)

    def test_refused_body_not_kept(self):
        req = _req(b'{"a": NaN}')
        self.assertFalse(validation.keep_json(req))
        self.assertNotIn('blazar_ext.json_body', req.environ)
        # Pecan's read of it is WebOb's, as before (NaN accepted there).
        self.assertTrue(math.isnan(req.json['a']))
