"""Request bodies no API family can read: compressed, not UTF-8, or a
form WebOb cannot parse.

Each is a 400 in the family's error shape and a one-line warning in the
log, before any handler (or Pecan, which decodes bodies while routing)
meets the bytes. JSON is UTF-8 (RFC 8259); a body declared in another
charset is left to the family to refuse.
"""

from collections.abc import Callable

from oslo_log import log as logging
import webob

from blazar_ext import exceptions

LOG = logging.getLogger(__name__)

# (path prefix, render(request, status, title, message) -> Response),
# as family_errors.RENDERERS; the first matching prefix answers.
Renderers = list[tuple[str, Callable]]

_GZIP_MAGIC = b'\x1f\x8b'
# Content types WebOb parses as a form when asked for request.params, as
# Pecan's RestController does while routing (for a ``_method`` field).
_FORMS = ('multipart/form-data', 'application/x-www-form-urlencoded')


def form_problem(req: webob.Request) -> str | None:
    """Why a form body (which no family reads) cannot even be parsed:
    a multipart Content-Type without a valid boundary, for one."""
    if req.content_type not in _FORMS:
        return None
    try:
        req.POST
    except (ValueError, TypeError, LookupError) as exc:
        return ('The request body is not a valid %s form (%s); this '
                'service reads JSON.'
                % (req.content_type, exceptions.cut(str(exc), 80)))
    return None


def body_problem(req: webob.Request) -> str | None:
    """Why the request's body cannot be read as JSON text, if so."""
    problem = form_problem(req)
    if problem or not req.is_body_readable:
        return problem
    encoding = req.headers.get('Content-Encoding', '').strip()
    if encoding and encoding.lower() != 'identity':
        return ('The request body is encoded (Content-Encoding: %s); this '
                'service reads only plain, uncompressed JSON.'
                % exceptions.cut(encoding, 40))
    if not (req.content_type or '').endswith('json'):
        return None
    if req.charset.lower().replace('-', '') != 'utf8':
        return None
    body = req.body
    try:
        body.decode('utf-8')
    except UnicodeDecodeError as exc:
        hint = (' It looks gzip-compressed: send plain JSON.'
                if body.startswith(_GZIP_MAGIC) else '')
        return ('The request body is not valid UTF-8 (byte 0x%02x at '
                'position %d); JSON must be UTF-8 text.%s'
                % (body[exc.start], exc.start, hint))
    return None


class RequestBodyCheck:
    """400 in the family's shape for a body no family could decode."""

    def __init__(self, app, renderers: Renderers):
        self.app = app
        self.renderers = renderers

    def __call__(self, environ, start_response):
        if not (environ.get('CONTENT_TYPE')
                or environ.get('HTTP_CONTENT_ENCODING')):
            # No type and no encoding (most GETs): no form, no encoding
            # and no JSON to refuse (body_problem is None), known without
            # a WebOb request.
            return self.app(environ, start_response)
        req = webob.Request(environ)
        problem = body_problem(req)
        if problem is None:
            return self.app(environ, start_response)
        path = environ.get('PATH_INFO') or '/'
        # One line, whatever the path holds (%0A decodes to a newline).
        LOG.warning('Refused %s %s: %s', req.method,
                    path.replace('\r', '\\r').replace('\n', '\\n'),
                    problem)
        for prefix, render in self.renderers:
            if not prefix or path == prefix or path.startswith(prefix + '/'):
                resp = render(req, 400, 'Bad Request', problem)
                return resp(environ, start_response)
        raise LookupError('no renderer for %s' % path)
