"""Last-resort error handling: every error leaves as JSON.

Each API family renders its own error shape; this middleware catches what
escapes them, and turns non-JSON error bodies (from the framework or other
middleware) into the family's shape.
"""

from collections.abc import Callable

from oslo_db import exception as db_exc
from oslo_log import log as logging
import webob

from blazar_ext.api.middleware import wsgi_call

LOG = logging.getLogger(__name__)


class JsonErrors:
    """Renders uncaught exceptions and non-JSON error bodies as JSON.

    ``render(status, title, message, request_id) -> (content_type, body)``
    """

    def __init__(self, app, render: Callable):
        self.app = app
        self.render = render

    def __call__(self, environ, start_response):
        try:
            status, headers, body = wsgi_call.call(self.app, environ)
        except Exception as exc:
            return self._failed(environ, exc)(environ, start_response)
        if status[:1] in ('1', '2', '3'):
            # Most answers, in plain WSGI: no WebOb request and response
            # per request.
            return wsgi_call.send(environ, start_response, status, headers,
                                  body)
        resp = webob.Response(status=status, headerlist=headers,
                              app_iter=body)
        return self._json(environ, resp)(environ, start_response)

    def _failed(self, environ, exc: Exception) -> webob.Response:
        """The answer to an exception that escaped the family."""
        req = webob.Request(environ)
        message = None
        if value_out_of_range(exc):
            # Checked before it reached the database everywhere we
            # know of; this is the net for what a schema missed.
            LOG.warning('Value out of range for %s %s: %s',
                        req.method, req.path, first_line(exc))
            resp = webob.Response(status=400)
            message = ('A value in the request is too long or out of '
                       'range for what the service can store.')
        elif database_unreachable(exc):
            # Expected while the database restarts: one line, no
            # traceback per request.
            LOG.warning('Database unreachable for %s %s: %s',
                        req.method, req.path, first_line(exc))
            resp = webob.Response(status=503)
        else:
            LOG.exception('Unexpected error for %s %s', req.method,
                          req.path)
            resp = webob.Response(status=500)
        return self._json(environ, resp, message)

    def _json(self, environ, resp: webob.Response,
              message: str | None = None) -> webob.Response:
        """``resp``, its error body in the family's JSON shape."""
        if resp.status_int >= 400 and not (
                resp.content_type or '').endswith('json'):
            message = message or message_for(resp.status_int)
            content_type, body = self.render(
                resp.status_int, resp.status.split(' ', 1)[-1], message,
                environ.get('openstack.request_id'))
            resp.content_type = content_type
            resp.charset = 'UTF-8' if content_type.endswith('json') else None
            resp.body = body
        return resp


def database_unreachable(exc: Exception) -> bool:
    """The database is down or restarting: in this process, or in the
    manager (its error comes back over RPC by name). A 503, not a 500:
    the request may be tried again once oslo.db has reconnected."""
    return (isinstance(exc, db_exc.DBConnectionError) or
            getattr(exc, 'exc_type', None) == 'DBConnectionError')


def value_out_of_range(exc: Exception) -> bool:
    """The database refused a value as too long or out of range for its
    column (MySQL's strict mode: SQLite stores it anyway), in this
    process or in the manager: the request's fault, a 400."""
    return (isinstance(exc, db_exc.DBDataError) or
            getattr(exc, 'exc_type', None) == 'DBDataError')


def first_line(exc: Exception) -> str:
    return (str(exc).splitlines() or [type(exc).__name__])[0][:300]


def message_for(status: int) -> str:
    """A generic message for an error status."""
    if status == 503:
        return ('The service is temporarily unavailable; try again '
                'later.')
    if status >= 500:
        return ('An unexpected error prevented the request from '
                'completing; it has been logged.')
    return _DEFAULT_MESSAGES.get(status, 'The request failed.')


_DEFAULT_MESSAGES = {
    400: 'The request could not be understood.',
    401: 'Authentication is required.',
    403: 'Access was denied to this resource.',
    404: 'The resource could not be found.',
    405: 'The method is not allowed for this resource.',
    406: 'The requested media type is not served.',
    409: 'The request conflicts with the current state of the resource.',
    415: 'The request media type is not supported.',
}
