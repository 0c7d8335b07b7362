"""Authentication: keystonemiddleware or noauth, then the request context."""

import urllib.parse

from oslo_config import cfg
from oslo_log import log as logging
from oslo_serialization import jsonutils
import webob

from blazar_ext.api.middleware import faults
from blazar_ext import context as blazar_context

LOG = logging.getLogger(__name__)
CONTEXT_KEY = 'blazar_ext.context'

# Version documents answer without a token, as upstream services do.
PUBLIC_PATHS = frozenset(['', '/', '/placement', '/placement/', '/v1',
                          '/v1/', '/v2', '/v2/',
                          # The families' OpenAPI documents.
                          '/v1/openapi.json'])
# OpenAPI documents answer without a token too.
PUBLIC_PATHS |= {'/v2/metadefs/openapi.json'}
# The same for the placement family served alone at the root.
PLACEMENT_ROOT_PUBLIC_PATHS = frozenset(['', '/'])
# The placement family's OpenAPI document, as public as its root.
PUBLIC_PATHS |= {'/placement/openapi.json'}
PLACEMENT_ROOT_PUBLIC_PATHS |= {'/openapi.json'}


# The longest user or project id the database stores (Keystone's are 64).
MAX_ID_LENGTH = 255
_IDENTITY_HEADERS = ('HTTP_X_USER_ID', 'HTTP_X_PROJECT_ID')
# Any of these says who is calling; a request with none is anonymous.
_ANY_IDENTITY = ('HTTP_X_AUTH_TOKEN', 'HTTP_X_USER_ID', 'HTTP_X_PROJECT_ID',
                 'HTTP_X_ROLES')


def _error_body(status: int, title: str, message: str) -> bytes:
    """keystonemiddleware's error shape: {"error": {code, title, message}}."""
    return jsonutils.dump_as_bytes({'error': {
        'code': status, 'title': title, 'message': message}})


# Roles a "user:project" token carries: enough for every non-admin API.
TOKEN_ROLES = 'member,reader'


def identity_from_token(token: str) -> tuple[str, str, str] | None:
    """(user, project, roles) a noauth token stands for, or None.

    As Placement's noauth2: "admin" is an admin of project admin, and
    "user:project" is that user in that project; "admin:project" is an
    admin of that project, any other user is a member and a reader.
    """
    if token == 'admin':
        return 'admin', 'admin', 'admin'
    user_id, sep, project_id = token.partition(':')
    if not sep or not user_id or not project_id:
        return None
    return (user_id, project_id,
            'admin' if user_id == 'admin' else TOKEN_ROLES)


def token_text(header: str) -> str:
    """The token a noauth X-Auth-Token header carries.

    python-glanceclient percent-encodes the header (``alice%3Aproj-a``),
    so it is decoded: the same token acts the same in all three API
    families, whichever client sent it.
    """
    return urllib.parse.unquote(header) if '%' in header else header


class NoAuth:
    """Trusts the identity headers, or the identity a token names.

    For tests and the embedded default. With no X-Roles header, the token
    "admin" is an admin and a token "user:project" acts as that user and
    project (see identity_from_token), so the clients' admin_token mode
    works for admins and non-admins alike. Explicit X-User-Id and
    X-Project-Id headers win over the token's. A request naming no one
    (no token, no identity header) is a 401, as keystonemiddleware and
    Placement's noauth2 answer it.
    """

    def __init__(self, app, renderers=()):
        self.app = app
        # (path prefix, render) of families answering its 400 in their
        # own error shape (family_errors); keystonemiddleware's elsewhere.
        self.renderers = renderers

    def _bad_request(self, environ, message: str) -> webob.Response:
        path = environ.get('PATH_INFO') or '/'
        for prefix, render in self.renderers:
            if not prefix or path == prefix or path.startswith(prefix + '/'):
                return render(webob.Request(environ), 400, 'Bad Request',
                              message)
        return webob.Response(status=400, content_type='application/json',
                              charset='UTF-8',
                              body=_error_body(400, 'Bad Request', message))

    def __call__(self, environ, start_response):
        if not any(environ.get(header) for header in _ANY_IDENTITY):
            return webob.Response(
                status=401, content_type='application/json',
                charset='UTF-8', body=_error_body(
                    401, 'Unauthorized', 'The request you have made '
                    'requires authentication.'))(environ, start_response)
        identity = identity_from_token(
            token_text(environ.get('HTTP_X_AUTH_TOKEN', '')))
        if identity and not environ.get('HTTP_X_ROLES'):
            user_id, project_id, environ['HTTP_X_ROLES'] = identity
            environ.setdefault('HTTP_X_USER_ID', user_id)
            environ.setdefault('HTTP_X_PROJECT_ID', project_id)
        for header in _IDENTITY_HEADERS:
            if len(environ.get(header, '')) > MAX_ID_LENGTH:
                message = '%s is longer than %d characters.' % (
                    header[5:].replace('_', '-').title(), MAX_ID_LENGTH)
                return self._bad_request(environ, message)(
                    environ, start_response)
        environ['HTTP_X_IDENTITY_STATUS'] = 'Confirmed'
        return self.app(environ, start_response)


class SkipAuthForVersions:
    """Lets version documents bypass authentication.

    Whatever the method, as Placement's auth leaves its root alone: a
    version document is read-only, so anything but GET or HEAD there is
    the family's own 405 (or CORS's answer), never a 401.
    """

    def __init__(self, app, authenticated_app,
                 public_paths: frozenset = PUBLIC_PATHS):
        self.app = app
        self.authenticated_app = authenticated_app
        self.public_paths = public_paths

    def __call__(self, environ, start_response):
        if environ.get('PATH_INFO', '') in self.public_paths:
            return self.app(environ, start_response)
        return self.authenticated_app(environ, start_response)


class ContextMiddleware:
    """Builds the RequestContext from the identity headers."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        ctx = blazar_context.RequestContext.from_environ(environ)
        environ[CONTEXT_KEY] = ctx
        return self.app(environ, start_response)


class JsonAuthErrors:
    """Errors of the authentication middleware itself leave as JSON.

    keystonemiddleware answers 401 in JSON but 503 (Keystone unreachable)
    as HTML, and lets some failures (no identity endpoint in the catalog)
    escape as exceptions. Those get keystonemiddleware's own JSON shape,
    ``{"error": {"code", "title", "message"}}``; responses of the API
    families behind it are left as they are.
    """

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        req = webob.Request(environ)
        try:
            resp = req.get_response(self.app)
        except Exception:
            LOG.exception('Authentication failed for %s %s', req.method,
                          req.path)
            resp = webob.Response(status=500)
        if (resp.status_int >= 400 and CONTEXT_KEY not in environ
                and not (resp.content_type or '').endswith('json')):
            title = resp.status.split(' ', 1)[-1]
            message = faults.message_for(resp.status_int)
            if resp.status_int == 503:
                message = ('The Keystone service is temporarily '
                           'unavailable; try again later.')
            resp.content_type = 'application/json'
            resp.charset = 'UTF-8'
            resp.body = _error_body(resp.status_int, title, message)
        return resp(environ, start_response)


def wrap(app, conf: cfg.ConfigOpts,
         public_paths: frozenset = PUBLIC_PATHS, renderers=()):
    """Wrap ``app`` with the configured authentication and the context;
    requests for ``public_paths`` need no token. noauth's 400 (an
    identity header too long) is in the shape of the family ``renderers``
    name for the path."""
    app = ContextMiddleware(app)
    if conf.api.auth_strategy == 'noauth':
        authenticated = NoAuth(app, renderers)
    else:
        from keystonemiddleware import auth_token
        authenticated = JsonAuthErrors(auth_token.AuthProtocol(
            app, {'oslo_config_config': conf}))
    return SkipAuthForVersions(app, authenticated, public_paths)
