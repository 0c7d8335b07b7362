"""Our HTTPProxyToWSGI answers as oslo.middleware's does, with proxy
header parsing off (our plain path) and on (oslo's own)."""

from oslo_config import cfg
from oslo_config import fixture as config_fixture
from oslo_middleware import http_proxy_to_wsgi as oslo_proxy
from oslotest import base
import webob
import webob.exc

from blazar_ext.api.middleware import proxy_headers


def _app(environ, start_response):
    start_response('201 Created', [
        ('Content-Type', 'application/json'),
        ('Location', '/v1/leases/abc'),
        ('X-Url', environ['wsgi.url_scheme'] + '://' +
         environ.get('HTTP_HOST', ''))])
    return [b'{"a": 1}']


def _raising(environ, start_response):
    raise webob.exc.HTTPConflict()


class TestProxyHeaders(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.conf = self.useFixture(config_fixture.Config(cfg.ConfigOpts()))
        self.conf.conf.register_opts(oslo_proxy.OPTS, 'oslo_middleware')

    def _both(self, app, method='GET', headers=None):
        answers = []
        for middleware in (proxy_headers.HTTPProxyToWSGI,
                           oslo_proxy.HTTPProxyToWSGI):
            req = webob.Request.blank('/v1/leases', method=method,
                                      headers=headers or {})
            answers.append(req.get_response(middleware(app,
                                                       self.conf.conf)))
        return answers

    def _assert_same(self, ours, theirs):
        self.assertEqual(theirs.status, ours.status)
        self.assertEqual(theirs.headerlist, ours.headerlist)
        self.assertEqual(theirs.body, ours.body)

    def test_parsing_off(self):
        forwarded = {'X-Forwarded-Proto': 'https',
                     'X-Forwarded-Host': 'api.example.com'}
        for method in ('GET', 'HEAD', 'POST'):
            ours, theirs = self._both(_app, method, forwarded)
            self._assert_same(ours, theirs)
            self.assertEqual('http://localhost/v1/leases/abc',
                             ours.headers['Location'])
        ours, _ = self._both(_app, 'HEAD')
        self.assertEqual(b'', ours.body)

    def test_parsing_on(self):
        self.conf.config(enable_proxy_headers_parsing=True,
                         group='oslo_middleware')
        ours, theirs = self._both(_app, headers={
            'X-Forwarded-Proto': 'https',
            'X-Forwarded-Host': 'api.example.com'})
        self._assert_same(ours, theirs)
        self.assertEqual('https://api.example.com/v1/leases/abc',
                         ours.headers['Location'])

    def test_http_exception_is_the_answer(self):
        ours, theirs = self._both(_raising)
        self.assertEqual(409, ours.status_int)
        self._assert_same(ours, theirs)
