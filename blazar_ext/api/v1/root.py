"""Root of the reservation API: the versions document and /v1."""

import functools

from oslo_utils import importutils
import pecan
import webob.exc

from blazar_ext.api.v1 import budgets
from blazar_ext.api.v1 import lease_series
from blazar_ext.api.v1 import leases
from blazar_ext.api.v1 import maintenance
from blazar_ext.api.v1 import openapi
from blazar_ext.api.v1 import properties
from blazar_ext.api.v1 import rates
from blazar_ext.api.v1 import subscriptions
from blazar_ext.plugins import loader


@functools.lru_cache(maxsize=None)
def _controller(path: str):
    """One controller instance per 'module:Class' a plugin routes to."""
    return importutils.import_class(path.replace(':', '.'))()


def _read_only():
    """Any method but GET (and HEAD) on a version document: 405."""
    raise webob.exc.HTTPMethodNotAllowed(headers={'Allow': 'GET, HEAD'})


class V1Controller:
    """/v1: one attribute per resource collection."""

    # What Pecan asks of each controller object it walks through, answered
    # here rather than by __getattr__: not a controller itself, no default
    # handler, no routing of its own.
    exposed = False
    _default = None
    _route = None

    @pecan.expose(generic=True, template='json')
    def index(self):
        _read_only()

    @index.when(method='HEAD', template='json')
    @index.when(method='GET', template='json')
    def index_get(self):
        return _version(pecan.request.host_url)

    def __getattr__(self, name: str):
        """The enabled resource types' own collections (/v1/os-hosts,
        /v1/floatingips), as attributes: a disabled type's routes are not
        there (404).

        Found as an attribute, not by ``_lookup``, which Pecan calls
        only once routing by attribute has failed, through an
        HTTPNotFound built and raised on every such request.
        """
        if not name.startswith('_'):
            route = loader.get().routes().get(name)
            if route is not None:
                return _controller(route)
        raise AttributeError(name)

    @pecan.expose()
    def _lookup(self, resource_type, *remainder):
        if loader.get().routes().get(resource_type) is not None:
            # Routing below an enabled type's collection (an attribute)
            # failed: its 404 or 405 stands, as when _lookup routed there.
            return None
        # /v1/{resource_type}/properties: resource types such as
        # physical:host appear literally in the path, so they cannot be
        # attributes. Anything else falls through to Pecan's 404.
        if remainder and remainder[0] == 'properties':
            # A list: RestController recognises a trailing slash ([''])
            # only in a list.
            return (properties.PropertiesController(resource_type),
                    list(remainder[1:]))


pecan.route(V1Controller, 'leases', leases.LeasesController())
pecan.route(V1Controller, 'budgets', budgets.BudgetsController())
pecan.route(V1Controller, 'rates', rates.RatesController())
pecan.route(V1Controller, 'subscriptions',
            subscriptions.SubscriptionsController())
pecan.route(V1Controller, 'lease-series',
            lease_series.LeaseSeriesController())
pecan.route(V1Controller, 'maintenance',
            maintenance.AllMaintenanceController())
# No token needed (api/middleware/auth.py PUBLIC_PATHS).
pecan.route(V1Controller, 'openapi.json', openapi.OpenAPIController())


# The only version, with no microversions: upstream Blazar 18 says 1.0
# for both.
MIN_VERSION = MAX_VERSION = '1.0'


def _version(host_url: str) -> dict:
    """The v1 entry of upstream Blazar's version document."""
    return {'id': 'v1.0', 'status': 'CURRENT',
            'links': [{'href': '%s/v1' % host_url, 'rel': 'self'}],
            'min_version': MIN_VERSION, 'max_version': MAX_VERSION}


class RootController:
    v1 = V1Controller()

    @pecan.expose(generic=True, template='json')
    def index(self):
        _read_only()

    @index.when(method='HEAD', template='json')
    @index.when(method='GET', template='json')
    def index_get(self):
        # As Blazar: 300 Multiple Choices listing the versions.
        pecan.response.status = 300
        return {'versions': [_version(pecan.request.host_url)]}
