"""RequestMetrics: family, bounded route and status of each request."""

import testtools
import webob

from blazar_ext.api.middleware import metrics as metrics_middleware
from blazar_ext import metrics


def _count(**labels) -> float:
    for family in metrics._INSTRUMENTS.collect():
        for sample in family.samples:
            if (sample.name == 'blazar_ext_api_requests_total'
                    and sample.labels == labels):
                return sample.value
    return 0.0


def _app(route: str | None, status: int = 200):
    def app(environ, start_response):
        if route:
            metrics_middleware.set_route(environ, route)
        return webob.Response(status=status)(environ, start_response)
    return app


class TestRequestMetrics(testtools.TestCase):

    def request(self, app, path: str, family: str | None = None) -> None:
        """As a WSGI server does: read the body, then close it."""
        middleware = metrics_middleware.RequestMetrics(app, family)
        body = middleware(webob.Request.blank(path).environ,
                          lambda status, headers, exc_info=None: None)
        list(body)
        body.close()

    def test_route_template_from_the_router(self):
        labels = dict(family='placement', method='GET',
                      route='/traits/{name}', status='404')
        before = _count(**labels)
        self.request(_app('/traits/{name}', 404),
                     '/placement/traits/CUSTOM_%s' % self.id()[-8:])
        self.assertEqual(before + 1, _count(**labels))

    def test_unrouted_paths_are_unmatched_never_raw(self):
        labels = dict(family='v1', method='GET', route='unmatched',
                      status='404')
        before = _count(**labels)
        self.request(_app(None, 404), '/v1/no-such/3f0c')
        self.assertEqual(before + 1, _count(**labels))
        labels = dict(family='other', method='GET', route='unmatched',
                      status='404')
        before = _count(**labels)
        self.request(_app(None, 404), '/random/path')
        self.assertEqual(before + 1, _count(**labels))

    def test_a_server_of_one_family(self):
        labels = dict(family='placement', method='GET', route='/',
                      status='200')
        before = _count(**labels)
        self.request(_app('/'), '/', family='placement')
        self.assertEqual(before + 1, _count(**labels))
        labels = dict(family='other', method='GET', route='/healthcheck',
                      status='200')
        before = _count(**labels)
        self.request(_app(None), '/healthcheck', family='placement')
        self.assertEqual(before + 1, _count(**labels))

    def test_an_exception_counts_as_500(self):
        def broken(environ, start_response):
            raise RuntimeError('boom')
        labels = dict(family='metadefs', method='GET', route='unmatched',
                      status='500')
        before = _count(**labels)
        middleware = metrics_middleware.RequestMetrics(broken)
        self.assertRaises(RuntimeError, webob.Request.blank(
            '/v2/metadefs/namespaces').get_response, middleware)
        self.assertEqual(before + 1, _count(**labels))
