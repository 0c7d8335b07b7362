"""Request body size limit for all three API families.

oslo.middleware's RequestBodySizeLimiter enforces ``[oslo_middleware]
max_request_body_size``; this wrapper gives its 413 the JSON shape of the
family the request was for, and reads a body of unknown length (chunked)
here, so the limit is met before any family's handler starts.
"""

from collections.abc import Callable
import io

from oslo_config import cfg
from oslo_middleware import sizelimit
import webob
import webob.exc

from blazar_ext.api.middleware import wsgi_call
# (path prefix, render(request, status, title, message) -> Response);
# the first whose prefix matches answers, the last one has prefix ''.
Renderers = list[tuple[str, Callable]]


class BodySizeLimit:
    """413 in the family's error shape when a body is over the limit."""

    def __init__(self, app, conf: cfg.ConfigOpts, renderers: Renderers):
        self.limited = sizelimit.RequestBodySizeLimiter(app, conf)
        self.conf = conf
        self.renderers = renderers

    def __call__(self, environ, start_response):
        if not environ.get('CONTENT_LENGTH') and not environ.get(
                'wsgi.input_terminated',
                environ.get('webob.is_body_readable', False)):
            return self._no_body(environ, start_response)
        limit = self.conf.oslo_middleware.max_request_body_size
        length = environ.get('CONTENT_LENGTH') or ''
        if length and length.strip().isdigit() and int(length) <= limit:
            # A body of a stated length within the limit (most POSTs and
            # PUTs): oslo's limiter only passes it on, so it is passed on
            # here in plain WSGI, as _no_body does.
            return self._pass(environ, start_response, limit)
        req = webob.Request(environ)
        try:
            if length and not length.strip().isdigit():
                # Not an integer: left as it is for the family to refuse
                # (Placement: 400 "content-length header must be an
                # integer"); oslo's limiter would drop it. The body is
                # still read through the limit.
                environ['wsgi.input'] = sizelimit.LimitingReader(
                    environ['wsgi.input'], limit)
                environ['webob.is_body_seekable'] = False
                resp = req.get_response(self.limited.application)
            else:
                if req.content_length is None and req.is_body_readable:
                    req.body = sizelimit.LimitingReader(
                        req.body_file_raw, limit).read()
                resp = req.get_response(self.limited)
        except webob.exc.HTTPRequestEntityTooLarge:
            resp = webob.Response(status=413)
        if resp.status_int == 413 and not (
                resp.content_type or '').endswith('json'):
            resp = self._render(req, limit)
        return resp(environ, start_response)

    def _no_body(self, environ, start_response):
        """A request without a body (most GETs), in plain WSGI: no WebOb
        request and response per request (a fifth of the middleware
        stack's time). The environ ends as oslo's limiter leaves it (its
        empty body behind the limit, readable, not seekable), and a
        non-JSON 413 from behind is rendered as in __call__."""
        limit = self.conf.oslo_middleware.max_request_body_size
        environ.pop('CONTENT_LENGTH', None)
        environ['wsgi.input'] = sizelimit.LimitingReader(io.BytesIO(), limit)
        environ['webob.is_body_seekable'] = False
        environ['wsgi.input_terminated'] = True
        return self._pass(environ, start_response, limit)

    def _pass(self, environ, start_response, limit: int):
        """oslo's limiter's application's answer, without its WebOb
        request and response; a non-JSON 413 rendered as in __call__."""
        try:
            status, headers, body = wsgi_call.call(
                self.limited.application, environ)
        except webob.exc.HTTPRequestEntityTooLarge:
            return self._413(environ, start_response, limit)
        if status.startswith('413') and not (
                wsgi_call.header(headers, 'Content-Type') or ''
        ).split(';', 1)[0].endswith('json'):
            wsgi_call.close(body)
            return self._413(environ, start_response, limit)
        start_response(status, headers)
        return body

    def _413(self, environ, start_response, limit: int):
        req = webob.Request(environ)
        return self._render(req, limit)(environ, start_response)

    def _render(self, req: webob.Request, limit: int) -> webob.Response:
        message = ('The request body is larger than %d bytes, the most '
                   'this service accepts.' % limit)
        # Undecoded: the prefixes are ASCII, and the path may not be UTF-8.
        path = req.environ.get('PATH_INFO') or '/'
        for prefix, render in self.renderers:
            if not prefix or path == prefix or path.startswith(prefix + '/'):
                return render(req, 413, 'Request Entity Too Large', message)
        raise LookupError('no renderer for %s' % path)
