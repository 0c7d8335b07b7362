"""The cached argument specs oslo.middleware uses once installed."""

import inspect
from unittest import mock

from oslo_middleware import base as middleware_base
from oslo_middleware import http_proxy_to_wsgi
from oslotest import base
import webob

from blazar_ext.api import middleware_argspec


def _app(environ, start_response):
    start_response('200 OK', [('Content-Type', 'text/plain')])
    return [b'ok']


class TestMiddlewareArgspec(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        original = middleware_base.getfullargspec
        self.addCleanup(setattr, middleware_base, 'getfullargspec', original)
        middleware_argspec.install()
        middleware_argspec._spec_of.cache_clear()

    def test_spec_computed_once_per_function(self):
        app = http_proxy_to_wsgi.HTTPProxyToWSGI(_app)
        with mock.patch.object(middleware_argspec, '_uncached',
                               wraps=inspect.getfullargspec) as spec:
            for _ in range(3):
                resp = webob.Request.blank('/').get_response(app)
                self.assertEqual(200, resp.status_int)
                self.assertEqual(b'ok', resp.body)
        self.assertEqual(1, spec.call_count)

    def test_spec_as_inspect_computes_it(self):
        app = http_proxy_to_wsgi.HTTPProxyToWSGI(_app)
        spec = middleware_argspec.getfullargspec(app.process_response)
        self.assertEqual(['self', 'response', 'request'], spec.args)

    def test_unhashable_callable_still_answered(self):
        class Unhashable:
            __hash__ = None

            def __call__(self, a, b=1):
                return a
        spec = middleware_argspec.getfullargspec(Unhashable())
        self.assertEqual(['self', 'a', 'b'], spec.args)
