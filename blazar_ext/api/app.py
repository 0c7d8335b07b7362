"""The WSGI applications: three API families behind shared middleware.

build(), the API of blazar-ext-api and the all-in-one:

    HTTPProxyToWSGI -> CORS (with [cors] allowed_origin) -> RequestId
        -> HEAD as GET -> metrics (with [metrics] enabled)
        -> /healthcheck (no auth)
        -> /calendar/: the calendar page's static files (no auth)
        -> body size limit (413 in each family's shape)
        -> auth -> context
        -> compressed or non-UTF-8 bodies refused (400, family's shape)
        -> /placement: placement-compatible app
        -> /v2:        metadefs-compatible app
        -> /versions:  the image API version document (glanceclient)
        -> otherwise:  reservation (Blazar v1) app

build_placement(), blazar-ext-placement-api: the placement-compatible
family alone at the root of its own endpoint, as upstream's placement-api
is deployed, behind the same middleware (no calendar).
"""

from oslo_config import cfg
from oslo_middleware import cors
from oslo_middleware import healthcheck

from blazar_ext.api import calendar
from blazar_ext.api import family_errors
from blazar_ext.api.metadefs import app as metadefs_app
from blazar_ext.api.metadefs import versions as metadefs_versions
from blazar_ext.api.middleware import auth
from blazar_ext.api.middleware import body_check
from blazar_ext.api.middleware import dispatch
from blazar_ext.api.middleware import head
from blazar_ext.api.middleware import metrics
from blazar_ext.api.middleware import proxy_headers
from blazar_ext.api.middleware import request_id
from blazar_ext.api.middleware import sizelimit
from blazar_ext.api import middleware_argspec
from blazar_ext.api import pecan_argspec
from blazar_ext.api import pecan_rest
from blazar_ext.api import pecan_segments
from blazar_ext.api.placement import app as placement_app
from blazar_ext.api.v1 import app as v1_app
from blazar_ext import policy

CONF = cfg.CONF


def build(conf: cfg.ConfigOpts = CONF):
    """Build the API's WSGI application from configuration."""
    policy.init(conf)
    pecan_argspec.install()
    pecan_segments.install()
    pecan_rest.install()
    app = dispatch.PrefixDispatcher(v1_app.build(), [
        ('/placement', placement_app.build(), True),
        ('/v2', metadefs_app.build(), True),
        # The image API's version document, which glanceclient reads when
        # it is not told --os-image-api-version.
        ('/versions', metadefs_versions.app, False),
    ] + metrics.mounts(conf))
    app = body_check.RequestBodyCheck(app, family_errors.RENDERERS)
    app = auth.wrap(app, conf, renderers=family_errors.AUTH_RENDERERS)
    app = sizelimit.BodySizeLimit(app, conf, family_errors.RENDERERS)
    app = dispatch.PrefixDispatcher(app, [
        ('/healthcheck', healthcheck.Healthcheck(None, conf), False),
        ('/calendar', calendar.CalendarApp(), True),
    ])
    return _outer(metrics.measured(app, conf), conf)


def build_placement(conf: cfg.ConfigOpts = CONF):
    """The placement-compatible family alone, served at the root.

    Its links and Location headers are relative to where it is mounted
    (SCRIPT_NAME), so behind a proxy at /placement they carry that prefix
    and at the root of a host they do not, as Placement's own.
    """
    policy.init(conf)
    app = dispatch.PrefixDispatcher(placement_app.build(),
                                    metrics.mounts(conf))
    app = body_check.RequestBodyCheck(app,
                                      family_errors.PLACEMENT_RENDERERS)
    app = auth.wrap(app, conf, public_paths=auth.PLACEMENT_ROOT_PUBLIC_PATHS,
                    renderers=family_errors.PLACEMENT_RENDERERS)
    app = sizelimit.BodySizeLimit(app, conf,
                                  family_errors.PLACEMENT_RENDERERS)
    app = dispatch.PrefixDispatcher(app, [
        ('/healthcheck', healthcheck.Healthcheck(None, conf), False),
    ])
    return _outer(metrics.measured(app, conf, 'placement'), conf)


def _outer(app, conf: cfg.ConfigOpts):
    """HEAD, request ids, CORS and proxy headers, around either
    application."""
    middleware_argspec.install()
    app = head.HeadAsGet(app)
    app = request_id.RequestId(app)
    # Outside authentication, so a browser's preflight needs no token.
    # Only with [cors] allowed_origin set, as Placement: otherwise an
    # OPTIONS request is the 405 it is without CORS.
    set_cors_defaults()
    conf.register_opts(cors.CORS_OPTS, 'cors')
    if conf.cors.allowed_origin:
        app = cors.CORS(app, conf)
    return proxy_headers.HTTPProxyToWSGI(app, conf)


def set_cors_defaults() -> None:
    """The headers the three families read and write, for [cors]."""
    cors.set_defaults(
        allow_headers=['X-Auth-Token', 'X-Openstack-Request-Id',
                       'X-Roles', 'X-User-Id', 'X-Project-Id',
                       'OpenStack-API-Version', 'Content-Type'],
        expose_headers=['X-Auth-Token', 'X-Openstack-Request-Id',
                        'OpenStack-API-Version', 'Location'],
        allow_methods=['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'HEAD'])
