"""BodySizeLimit's plain-WSGI path for requests without a body: the same
environ behind it, and the same answers, as its WebOb path."""

import io
import json
from unittest import mock

from oslo_config import cfg
from oslo_config import fixture as config_fixture
from oslo_middleware import sizelimit as oslo_sizelimit
from oslotest import base
import webob
import webob.exc

from blazar_ext.api import family_errors
from blazar_ext.api.middleware import sizelimit


def _seen(environ) -> dict:
    """What a family behind the limit reads of the request's body."""
    req = webob.Request(environ)
    return {'content_length': req.content_length,
            'readable': req.is_body_readable,
            'seekable': req.is_body_seekable,
            'limited': isinstance(environ['wsgi.input'],
                                  oslo_sizelimit.LimitingReader),
            'body': req.body}


class TestNoBodyPath(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.conf = self.useFixture(config_fixture.Config(cfg.ConfigOpts()))
        self.conf.conf.register_opts(oslo_sizelimit.OPTS, 'oslo_middleware')
        self.seen = []

    def _limit(self, app):
        return sizelimit.BodySizeLimit(app, self.conf.conf,
                                       family_errors.RENDERERS)

    def _request(self, path='/v1/leases') -> webob.Request:
        """The request of the tests both paths share: no body here."""
        return webob.Request.blank(path)

    def _recording(self, status='200 OK', content_type='application/json',
                   body=b'{}'):
        def app(environ, start_response):
            self.seen.append(_seen(environ))
            start_response(status, [('Content-Type', content_type),
                                    ('X-Kept', 'yes')])
            return [body]
        return app

    def test_environ_as_oslos_limiter_leaves_it(self):
        for blank in ('/v1/leases', '/v1/leases?x=1'):
            fast = webob.Request.blank(blank)
            self.assertNotIn('CONTENT_LENGTH', fast.environ)
            fast.get_response(self._limit(self._recording()))
            # What oslo's limiter alone leaves for the same request.
            webob.Request.blank(blank).get_response(
                oslo_sizelimit.RequestBodySizeLimiter(
                    self._recording(), self.conf.conf))
        self.assertEqual({'content_length': None, 'readable': True,
                          'seekable': False, 'limited': True, 'body': b''},
                         self.seen[0])
        self.assertEqual([self.seen[0]] * 4, self.seen)

    def test_answer_passes_unchanged(self):
        resp = self._request().get_response(
            self._limit(self._recording(status='201 Created')))
        self.assertEqual(201, resp.status_int)
        self.assertEqual('yes', resp.headers['X-Kept'])
        self.assertEqual(b'{}', resp.body)

    def test_non_json_413_from_behind_in_family_shape(self):
        for path, key in (('/v1/leases', 'error_code'),
                          ('/placement/traits', 'errors')):
            resp = self._request(path).get_response(self._limit(
                self._recording(status='413 Too Large',
                                content_type='text/html',
                                body=b'<html/>')))
            self.assertEqual(413, resp.status_int)
            self.assertIn(key, json.loads(resp.body))

    def test_raised_413_in_family_shape(self):
        def raising(environ, start_response):
            raise webob.exc.HTTPRequestEntityTooLarge()
        resp = self._request('/v2/metadefs/namespaces').get_response(
            self._limit(raising))
        self.assertEqual(413, resp.status_int)
        self.assertEqual('application/json', resp.content_type)

    def test_json_413_from_behind_kept(self):
        resp = self._request().get_response(self._limit(
            self._recording(status='413 Too Large', body=b'{"own": 1}')))
        self.assertEqual({'own': 1}, json.loads(resp.body))

    def test_lazily_started_and_written_answers(self):
        def lazy(environ, start_response):
            write = start_response('200 OK', [('Content-Type', 'text/plain')])
            write(b'a')
            yield b'b'

        def generator(environ, start_response):
            yield b''
            start_response('200 OK', [('Content-Type', 'text/plain')])
            yield b'c'
        for app, body in ((lazy, b'ab'), (generator, b'c')):
            resp = self._request('/v1/x').get_response(self._limit(app))
            self.assertEqual(200, resp.status_int)
            self.assertEqual(body, resp.body)

    def test_request_with_body_sees_its_body(self):
        req = webob.Request.blank('/v1/leases', method='POST',
                                  body=b'{"a": 1}')
        req.get_response(self._limit(self._recording()))
        self.assertEqual(8, self.seen[0]['content_length'])
        self.assertEqual(b'{"a": 1}', self.seen[0]['body'])

    def test_chunked_body_is_read_through_the_limit(self):
        self.conf.config(max_request_body_size=4, group='oslo_middleware')
        req = webob.Request.blank('/v1/leases', method='POST')
        req.environ['wsgi.input'] = io.BytesIO(b'0123456789')
        req.environ['wsgi.input_terminated'] = True
        resp = req.get_response(self._limit(self._recording()))
        self.assertEqual(413, resp.status_int)
        self.assertEqual([], self.seen)


class TestBodyWithinLimitPath(TestNoBodyPath):
    """A body of a stated length within the limit is passed on in plain
    WSGI too: the same environ behind, the same answers."""

    def _post(self, path='/v1/leases', body=b'{"a": 1}', length=None):
        req = webob.Request.blank(path, method='POST', body=body)
        if length is not None:
            req.environ['CONTENT_LENGTH'] = length
        return req

    def _request(self, path='/v1/leases') -> webob.Request:
        return self._post(path)

    def test_environ_as_oslos_limiter_leaves_it(self):
        for length in (None, '8', ' 8 '):
            self._post(length=length).get_response(
                self._limit(self._recording()))
            self._post(length=length).get_response(
                oslo_sizelimit.RequestBodySizeLimiter(
                    self._recording(), self.conf.conf))
        # (Request.blank made the body seekable.)
        self.assertEqual({'content_length': 8, 'readable': True,
                          'seekable': True, 'limited': False,
                          'body': b'{"a": 1}'}, self.seen[0])
        self.assertEqual([self.seen[0]] * 6, self.seen)

    def test_no_webob_request_nor_oslo_limiter(self):
        # Fails on the WebOb path: the limiter's wsgify'd __call__ runs.
        with mock.patch.object(oslo_sizelimit.RequestBodySizeLimiter,
                               '__call__', side_effect=AssertionError):
            resp = self._post().get_response(self._limit(self._recording(
                status='201 Created')))
        self.assertEqual(201, resp.status_int)
        self.assertEqual('yes', resp.headers['X-Kept'])
        self.assertEqual(b'{}', resp.body)

    def test_over_the_limit_still_413_before_the_app(self):
        self.conf.config(max_request_body_size=4, group='oslo_middleware')
        for path, key in (('/v1/leases', 'error_code'),
                          ('/placement/traits', 'errors')):
            resp = self._post(path).get_response(
                self._limit(self._recording()))
            self.assertEqual(413, resp.status_int)
            self.assertIn(key, json.loads(resp.body))
        self.assertEqual([], self.seen)

    def test_at_the_limit_passes(self):
        self.conf.config(max_request_body_size=8, group='oslo_middleware')
        resp = self._post().get_response(self._limit(self._recording()))
        self.assertEqual(200, resp.status_int)
        self.assertEqual(b'{"a": 1}', self.seen[0]['body'])

    def test_request_with_body_sees_its_body(self):
        self._post().get_response(self._limit(self._recording()))
        self.assertEqual(b'{"a": 1}', self.seen[0]['body'])
