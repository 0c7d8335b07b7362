"""Request metrics and the /metrics endpoint.

RequestMetrics, outermost, counts each request by API family, method,
route template and status, and times it. The route is a template, never
the raw path, so the number of series stays bounded: the Routes path the
placement and metadefs families matched (``/resource_providers/{uuid}``),
the v1 controller method Pecan dispatched to (``LeasesController.get_one``,
set by RouteHook), a fixed name for the other paths, and ``unmatched``
when nothing routed the request (a 404, or a 401 before routing).
"""

import time

from oslo_serialization import jsonutils
import pecan
import webob

from blazar_ext.api import metrics as api_metrics
from blazar_ext.api.middleware import auth
from blazar_ext import exceptions
from blazar_ext import metrics
from blazar_ext.policies import metrics as metrics_policies
from blazar_ext import policy

# Where the routing of each family leaves the route template.
ROUTE_KEY = 'blazar_ext.route'
UNMATCHED = 'unmatched'
_FAMILIES = (('/v1', 'v1'), ('/placement', 'placement'),
             ('/v2', 'metadefs'))
# Paths outside the families, reported as themselves.
_OTHER_ROUTES = {'/': '/', '': '/', '/healthcheck': '/healthcheck',
                 '/metrics': '/metrics', '/versions': '/versions'}


def family_of(path: str) -> str:
    """The API family a path of blazar-ext-api belongs to."""
    for prefix, family in _FAMILIES:
        if path == prefix or path.startswith(prefix + '/'):
            return family
    return 'other'


def set_route(environ: dict, template: str) -> None:
    """Record the route template a request matched, for RequestMetrics."""
    environ[ROUTE_KEY] = template


class RouteHook(pecan.hooks.PecanHook):
    """Records the v1 controller method a request is dispatched to."""

    def before(self, state):
        controller = state.controller
        owner = getattr(controller, '__self__', None)
        name = getattr(controller, '__name__', None)
        if owner is not None and name:
            set_route(state.request.environ,
                      '%s.%s' % (type(owner).__name__, name))


class RequestMetrics:
    """Counts and times every request; ``family`` fixes the family of all
    (blazar-ext-placement-api serves placement alone, at its root)."""

    def __init__(self, app, family: str | None = None):
        self.app = app
        self.family = family

    def __call__(self, environ, start_response):
        started = time.monotonic()
        path = environ.get('PATH_INFO', '')
        family = family_of(path)
        if self.family and not path.startswith(('/metrics',
                                                '/healthcheck')):
            family = self.family
        method = environ.get('REQUEST_METHOD', 'GET')
        status = [500]

        def _start_response(status_line, headers, exc_info=None):
            status[0] = int(status_line.split(' ', 1)[0])
            return start_response(status_line, headers, exc_info)

        try:
            body = self.app(environ, _start_response)
        except Exception:
            self._observe(environ, family, method, path, 500, started)
            raise
        return _Observed(body, lambda: self._observe(
            environ, family, method, path, status[0], started))

    def _observe(self, environ, family, method, path, status,
                 started) -> None:
        route = environ.get(ROUTE_KEY)
        if route is None:
            if family == 'other':
                route = _OTHER_ROUTES.get(path, UNMATCHED)
                if path.startswith('/calendar'):
                    route = '/calendar'
            else:
                route = UNMATCHED
        metrics.observe_request(family, method, route, status,
                                time.monotonic() - started)


class _Observed:
    """A response body that reports when the server is done with it."""

    def __init__(self, body, done):
        self._body = body
        self._done = done

    def __iter__(self):
        return iter(self._body)

    def close(self):
        try:
            close = getattr(self._body, 'close', None)
            if close is not None:
                close()
        finally:
            self._done()


def _json_error(status: int, title: str, message: str) -> webob.Response:
    return webob.Response(
        status=status, content_type='application/json', charset='UTF-8',
        body=jsonutils.dump_as_bytes({'error': {
            'code': status, 'title': title, 'message': message}}))


class MetricsApp:
    """GET /metrics: the Prometheus text, to callers the policy allows."""

    def __call__(self, environ, start_response):
        req = webob.Request(environ)
        if req.path_info not in ('', '/'):
            resp = _json_error(404, 'Not Found',
                               'The resource could not be found.')
        elif req.method not in ('GET', 'HEAD'):
            resp = _json_error(405, 'Method Not Allowed',
                               'Only GET is allowed on /metrics.')
            resp.headers['Allow'] = 'GET, HEAD'
        else:
            try:
                policy.authorize(environ[auth.CONTEXT_KEY],
                                 metrics_policies.GET)
            except exceptions.PolicyNotAuthorized as exc:
                resp = _json_error(403, 'Forbidden', str(exc))
            else:
                resp = webob.Response(
                    body=api_metrics.exposition(),
                    content_type=metrics.CONTENT_TYPE.split(';')[0])
                resp.headers['Content-Type'] = metrics.CONTENT_TYPE
        return resp(environ, start_response)


def mounts(conf) -> list:
    """The /metrics mount for a PrefixDispatcher behind authentication:
    none when metrics are off or served on a port of their own."""
    if not conf.metrics.enabled or conf.metrics.port:
        return []
    return [('/metrics', MetricsApp(), True)]


def measured(app, conf, family: str | None = None):
    """``app`` with its requests counted, when metrics are on."""
    if not conf.metrics.enabled:
        return app
    metrics.prepare()
    return RequestMetrics(app, family)
