"""The placement-compatible API: a small router over handler modules.

Every response carries ``OpenStack-API-Version`` and ``Vary``; every error
is ``{"errors": [{status, title, detail, code, request_id}]}``.
"""

import threading

from oslo_log import log as logging
import webob
import webob.dec

from blazar_ext.api.middleware import faults
from blazar_ext.api.placement import error_codes
from blazar_ext.api.placement import errors
from blazar_ext.api.placement.handlers import root
from blazar_ext.api.placement import microversion
from blazar_ext.api.placement import router
from blazar_ext.api.placement import wsgi_util
from blazar_ext.api import validation
from blazar_ext import context as blazar_context
from blazar_ext.db.api.placement import resource_class as rc_api
from blazar_ext.db.api.placement import trait as trait_api
from blazar_ext import exceptions

LOG = logging.getLogger(__name__)

# Kept for callers that render an error outside a handler.
error_response = errors.error_response


class PlacementApp:
    """Routes, microversion negotiation, errors; standard data on demand."""

    def __init__(self):
        self.router = router.router()
        self._synced = False
        self._sync_lock = threading.Lock()

    def _ensure_standard_data(self) -> None:
        """Standard traits and classes exist before the first request.

        Done lazily rather than at build time because the database may not
        be migrated yet when the app is built.
        """
        if self._synced:
            return
        with self._sync_lock:
            if not self._synced:
                ctx = blazar_context.get_admin_context()
                trait_api.sync_standard_traits(ctx)
                rc_api.sync_standard_classes(ctx)
                self._synced = True

    def _route(self, req):
        problem = validation.url_problem(req)
        if problem:
            raise errors.HTTPError(400, problem)
        handler, req.urlvars = router.match(self.router, req)
        return handler

    @webob.dec.wsgify
    def __call__(self, req):
        version = None
        try:
            version = microversion.extract(req.environ)
            req.environ[microversion.ENV_KEY] = version
            handler = self._route(req)
            _check_accept(req)
            if handler not in (root.home, root.openapi_document):
                self._ensure_standard_data()
            resp = handler(req, **req.urlvars)
        except microversion.UnacceptableVersion as exc:
            resp = error_response(
                req, 406, str(exc), error_codes.DEFAULT,
                max_version='%d.%d' % microversion.MAX_VERSION,
                min_version='%d.%d' % microversion.MIN_VERSION)
        except microversion.InvalidVersion as exc:
            resp = error_response(req, 400, str(exc), error_codes.DEFAULT)
        except errors.HTTPError as exc:
            allow = exc.extra.pop('allow', None)
            resp = error_response(req, exc.status, exc.detail, exc.code,
                                  version, **exc.extra)
            if allow:
                resp.headers['Allow'] = allow
        except exceptions.BlazarExtException as exc:
            resp = error_response(req, exc.status, str(exc),
                                  errors.code_for(exc), version)
        except Exception as exc:
            resp = _unexpected(req, exc, version)
        if resp.status_int >= 400 and _wants_html(req):
            resp = errors.html_response(resp)
        _cache_headers(req, resp, version)
        version = version or microversion.MIN_VERSION
        resp.headers[microversion.HEADER] = microversion.header_value(
            version)
        resp.headers['Vary'] = microversion.HEADER.lower()
        return resp


def _check_accept(req) -> None:
    """406 when the client accepts nothing we answer (JSON only)."""
    if req.method == 'GET' and req.accept and not req.accept.acceptable_offers(
            ['application/json']):
        raise errors.HTTPError(406, 'Only application/json is provided')


def _wants_html(req) -> bool:
    """Errors go out as HTML to a client that prefers it, as webob's."""
    offers = req.accept.acceptable_offers(['application/json', 'text/html'])
    return bool(offers) and offers[0][0] == 'text/html'


def _cache_headers(req, resp, version) -> None:
    """From 1.15 a successful GET, or a PUT answering a body, says it must
    not be cached (PUT /traits/{name} adds them itself, as Placement)."""
    if version is None or version < (1, 15):
        return
    if ((req.method == 'GET' and resp.status_int < 300)
            or (req.method == 'PUT' and resp.status_int == 200)):
        wsgi_util.no_cache(resp)


def build():
    """WSGI app for the placement family, mounted at /placement."""
    return PlacementApp()


def _unexpected(req, exc: Exception, version) -> webob.Response:
    """503 when the database is unreachable (a Galera node failing over,
    the server restarting: the client may try again, as /v1 answers),
    else 500."""
    if faults.database_unreachable(exc):
        LOG.warning('Database unreachable for %s %s: %s', req.method,
                    req.path, faults.first_line(exc))
        return error_response(req, 503, faults.message_for(503),
                              error_codes.DEFAULT, version)
    LOG.exception('Unexpected error in %s %s', req.method, req.path)
    return error_response(req, 500, 'An unexpected error occurred.',
                          error_codes.DEFAULT, version)
