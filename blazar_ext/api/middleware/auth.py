"""Authentication: keystonemiddleware or noauth, then the request context."""

from oslo_config import cfg

from blazar_ext import context as blazar_context

CONTEXT_KEY = 'blazar_ext.context'

# Version documents answer without a token, as upstream services do.
PUBLIC_PATHS = frozenset(['', '/', '/placement', '/placement/', '/v1',
                          '/v1/', '/v2', '/v2/'])


class NoAuth:
    """Trusts the identity headers; X-Auth-Token: admin alone means admin.

    For tests and the embedded default. As Placement's noauth2, a request
    carrying the token "admin" and no X-Roles is an admin of project admin,
    so the clients' admin_token mode works.
    """

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        if (environ.get('HTTP_X_AUTH_TOKEN') == 'admin'
                and not environ.get('HTTP_X_ROLES')):
            environ['HTTP_X_ROLES'] = 'admin'
            environ.setdefault('HTTP_X_USER_ID', 'admin')
            environ.setdefault('HTTP_X_PROJECT_ID', 'admin')
        environ['HTTP_X_IDENTITY_STATUS'] = 'Confirmed'
        return self.app(environ, start_response)


class SkipAuthForVersions:
    """Lets version documents bypass authentication."""

    def __init__(self, app, authenticated_app):
        self.app = app
        self.authenticated_app = authenticated_app

    def __call__(self, environ, start_response):
        if (environ.get('REQUEST_METHOD') in ('GET', 'HEAD')
                and environ.get('PATH_INFO', '') in PUBLIC_PATHS):
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


def wrap(app, conf: cfg.ConfigOpts):
    """Wrap ``app`` with the configured authentication and the context."""
    app = ContextMiddleware(app)
    if conf.api.auth_strategy == 'noauth':
        authenticated = NoAuth(app)
    else:
        from keystonemiddleware import auth_token
        authenticated = auth_token.AuthProtocol(
            app, {'oslo_config_config': conf})
    return SkipAuthForVersions(app, authenticated)
