"""Response conformance: every response the functional tests produce is
checked against its family's OpenAPI document (blazar_ext.api.openapi).

The in-process client (fixtures.APIFixture) calls ``assert_conforms``
after each request, so a handler whose answer drifts from the document
fails the test that made the request, with the schema's complaint.

A family is checked once its package has an ``openapi`` module with a
``document()`` function. ``ConformanceMiddleware`` does the same around
any WSGI app (gabbi's wsgi-intercept apps).
"""

import functools
import importlib

from oslo_serialization import jsonutils

from blazar_ext.api import openapi

# (path prefix, family package), longest prefix first; None: a document
# of versions outside the families (Glance's /versions), not checked.
ALL_IN_ONE = (('/placement', 'blazar_ext.api.placement'),
              ('/v2', 'blazar_ext.api.metadefs'),
              ('/versions', None),
              # Served beside the families, in none of them.
              ('/metrics', None), ('/healthcheck', None),
              ('', 'blazar_ext.api.v1'))
# None: served beside the family, not part of it (not checked).
PLACEMENT_ALONE = (('/healthcheck', None), ('/metrics', None),
                   ('', 'blazar_ext.api.placement'))


@functools.lru_cache(maxsize=None)
def _document(package: str | None) -> dict | None:
    if package is None:
        return None
    try:
        module = importlib.import_module(package + '.openapi')
    except ImportError:
        return None
    return module.document()


def _family(families, path: str) -> tuple:
    for prefix, package in families:
        if path == prefix or path.startswith(prefix + '/') or not prefix:
            return prefix, _document(package)
    return '', None


def problems(families, method: str, path: str, status: int,
             content_type: str, body: bytes) -> list:
    """Why this response does not match its family's document ([] when
    it does, or when the family has no document yet)."""
    prefix, doc = _family(families, path)
    if doc is None or method == 'HEAD':
        return []
    relative = path[len(prefix):] or '/'
    data = None
    if body and 'json' in (content_type or ''):
        try:
            data = jsonutils.loads(body)
        except ValueError:
            return ['%s %s %d: the body is not JSON'
                    % (method, path, status)]
    if (relative != '/' and relative.endswith('/')
            and openapi.find(doc, method, relative) is None):
        # The same resource: Pecan (v1) and the metadefs router (as
        # Glance) route a trailing slash so.
        relative = relative.rstrip('/') or '/'
    if openapi.find(doc, method, relative) is None and status >= 400:
        # An unknown path or method: the family's error shape only.
        return openapi.error_shape_errors(doc, data, content_type or '')
    return openapi.response_errors(doc, method, relative, status, data,
                                   content_type or '')


def assert_conforms(families, method: str, path: str, response) -> None:
    """Fail with the schema's complaints when ``response`` (WebOb) to
    ``method`` on ``path`` does not match the document."""
    found = problems(families, method, path,
                     response.status_int, response.content_type,
                     response.body)
    if found:
        raise AssertionError('The response does not match the OpenAPI '
                             'document:\n' + '\n'.join(found))


class ConformanceMiddleware:
    """A WSGI app whose every response is checked against its family's
    document (``families`` as for ``problems``): a response that does not
    match raises AssertionError, with the schema's complaints, to the
    caller (wsgi-intercept hands it to the gabbi test that made the
    request)."""

    def __init__(self, app, families):
        self.app = app
        self.families = families

    def __call__(self, environ, start_response):
        method = environ['REQUEST_METHOD']
        path = environ.get('PATH_INFO', '')
        started = []

        def capture(status, headers, exc_info=None):
            started[:] = [status, headers, exc_info]
            return lambda data: None
        result = self.app(environ, capture)
        try:
            body = b''.join(result)
        finally:
            if hasattr(result, 'close'):
                result.close()
        status, headers, exc_info = started
        content_type = next((value for name, value in headers
                             if name.lower() == 'content-type'), '')
        found = problems(self.families, method, path,
                         int(status.split(' ', 1)[0]), content_type, body)
        if found:
            raise AssertionError('The response does not match the OpenAPI '
                                 'document:\n' + '\n'.join(found))
        start_response(status, headers, exc_info)
        return [body]
