"""The placement-compatible API: a small router over handler modules.

Every response carries ``OpenStack-API-Version`` and ``Vary``; every error
is ``{"errors": [{status, title, detail, code, request_id}]}``.
"""

import re
import threading

from oslo_log import log as logging
from oslo_serialization import jsonutils
import webob
import webob.dec

from blazar_ext.api.placement import error_codes
from blazar_ext.api.placement.handlers import aggregate
from blazar_ext.api.placement.handlers import allocation
from blazar_ext.api.placement.handlers import allocation_candidate
from blazar_ext.api.placement.handlers import inventory
from blazar_ext.api.placement.handlers import provider_trait
from blazar_ext.api.placement.handlers import resource_class
from blazar_ext.api.placement.handlers import resource_provider
from blazar_ext.api.placement.handlers import root
from blazar_ext.api.placement.handlers import trait
from blazar_ext.api.placement.handlers import usage
from blazar_ext.api.placement import microversion
from blazar_ext.api.placement import wsgi_util
from blazar_ext.api import validation
from blazar_ext import context as blazar_context
from blazar_ext.db.api.placement import resource_class as rc_api
from blazar_ext.db.api.placement import trait as trait_api
from blazar_ext import exceptions

LOG = logging.getLogger(__name__)

_UUID = r'(?P<uuid>[^/]+)'
ROUTES = [
    (r'/?', {'GET': root.home}),
    (r'/resource_providers', {'GET': resource_provider.list_providers,
                              'POST': resource_provider.create}),
    (r'/resource_providers/' + _UUID, {
        'GET': resource_provider.show, 'PUT': resource_provider.update,
        'DELETE': resource_provider.delete}),
    (r'/resource_providers/' + _UUID + r'/inventories', {
        'GET': inventory.list_inventories, 'POST': inventory.create,
        'PUT': inventory.set_all, 'DELETE': inventory.delete_all}),
    (r'/resource_providers/' + _UUID +
     r'/inventories/(?P<resource_class>[^/]+)', {
         'GET': inventory.show, 'PUT': inventory.update,
         'DELETE': inventory.delete}),
    (r'/resource_providers/' + _UUID + r'/usages', {
        'GET': usage.provider_usages}),
    (r'/resource_providers/' + _UUID + r'/aggregates', {
        'GET': aggregate.list_aggregates, 'PUT': aggregate.set_aggregates}),
    (r'/resource_providers/' + _UUID + r'/allocations', {
        'GET': allocation.list_for_provider}),
    (r'/resource_providers/' + _UUID + r'/traits', {
        'GET': provider_trait.list_traits, 'PUT': provider_trait.set_traits,
        'DELETE': provider_trait.delete_traits}),
    (r'/resource_classes', {'GET': resource_class.list_classes,
                            'POST': resource_class.create}),
    (r'/resource_classes/(?P<name>[^/]+)', {
        'GET': resource_class.show, 'PUT': resource_class.update,
        'DELETE': resource_class.delete}),
    (r'/traits', {'GET': trait.list_traits}),
    (r'/traits/(?P<name>[^/]+)', {
        'GET': trait.show, 'PUT': trait.create, 'DELETE': trait.delete}),
    (r'/allocations', {'POST': allocation.set_many}),
    (r'/allocations/(?P<consumer_uuid>[^/]+)', {
        'GET': allocation.show, 'PUT': allocation.set_for_consumer,
        'DELETE': allocation.delete}),
    (r'/usages', {'GET': usage.project_usages}),
    (r'/allocation_candidates', {'GET': allocation_candidate.list_candidates}),
]


def _status_title(status: int) -> str:
    return webob.Response(status=status).status.split(' ', 1)[1]


def error_response(req, status: int, detail: str, code: str,
                   version=None, **extra) -> webob.Response:
    """Placement's error shape; ``code`` only from 1.23 as upstream."""
    error = {'status': status, 'title': _status_title(status),
             'detail': detail,
             'request_id': req.environ.get('openstack.request_id')}
    if version is None or version >= (1, 23):
        error['code'] = code
    error.update(extra)
    resp = webob.Response(status=status, content_type='application/json',
                          charset='UTF-8')
    resp.text = jsonutils.dumps({'errors': [error]})
    return resp


class PlacementApp:
    """Routes, microversion negotiation, errors; standard data on demand."""

    def __init__(self):
        self.routes = [(re.compile('^' + pattern + '$'), methods)
                       for pattern, methods in ROUTES]
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
            raise wsgi_util.HTTPError(400, problem)
        path = req.path_info or '/'
        for pattern, methods in self.routes:
            match = pattern.match(path)
            if match is None:
                continue
            handler = methods.get(req.method)
            if handler is None:
                raise wsgi_util.HTTPError(
                    405, 'The method specified is not allowed for this '
                         'resource.', allow=', '.join(sorted(methods)))
            req.urlvars = match.groupdict()
            return handler
        raise wsgi_util.HTTPError(404, 'The resource could not be found.')

    @webob.dec.wsgify
    def __call__(self, req):
        version = None
        try:
            version = microversion.extract(req.environ)
            req.environ[microversion.ENV_KEY] = version
            handler = self._route(req)
            if handler is not root.home:
                self._ensure_standard_data()
            resp = handler(req, **req.urlvars)
        except microversion.UnacceptableVersion as exc:
            resp = error_response(
                req, 406, str(exc), error_codes.DEFAULT,
                max_version='%d.%d' % microversion.MAX_VERSION,
                min_version='%d.%d' % microversion.MIN_VERSION)
        except microversion.InvalidVersion as exc:
            resp = error_response(req, 400, str(exc), error_codes.DEFAULT)
        except wsgi_util.HTTPError as exc:
            allow = exc.extra.pop('allow', None)
            resp = error_response(req, exc.status, exc.detail, exc.code,
                                  version, **exc.extra)
            if allow:
                resp.headers['Allow'] = allow
        except exceptions.BlazarExtException as exc:
            code = (exc.code if exc.code in error_codes.ALL
                    else error_codes.DEFAULT)
            resp = error_response(req, exc.status, str(exc), code, version)
        except Exception:
            LOG.exception('Unexpected error in %s %s', req.method, req.path)
            resp = error_response(req, 500, 'An unexpected error occurred.',
                                  error_codes.DEFAULT, version)
        version = version or microversion.MIN_VERSION
        resp.headers[microversion.HEADER] = microversion.header_value(
            version)
        resp.headers['Vary'] = microversion.HEADER
        return resp


def build():
    """WSGI app for the placement family, mounted at /placement."""
    return PlacementApp()
