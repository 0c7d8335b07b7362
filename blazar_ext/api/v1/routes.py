"""The reservation API's routes, as one table a reader can scan.

Pecan serves them by object dispatch (api/v1/root.py: RootController.v1,
V1Controller's attributes and ``_lookup``, each RestController's
get_all/get_one/post/put/patch/delete and sub-controller attributes);
this table says the same thing as data: method, path template and the
handler that answers. ``{name}`` parts are named after the handler's
argument. tests/functional/test_v1_route_table.py walks the Pecan
controllers and fails when a route served is missing from the table, or
the table names one that is not served.

A resource plugin mounts a controller at /v1/<segment> (its
``api_routes``); the controller's routes below that point are in
MOUNTED, or, for a controller that a plugin package brings, in its own
``ROUTES`` attribute (a sequence of routing.Route, paths relative to the
mount point). ``table`` puts them under the segments of the enabled
plugins.
"""

from oslo_utils import importutils

from blazar_ext.api import routing
from blazar_ext.api.v1 import allocations
from blazar_ext.api.v1 import availability
from blazar_ext.api.v1 import budgets
from blazar_ext.api.v1 import calendar
from blazar_ext.api.v1 import floatingips
from blazar_ext.api.v1 import hosts
from blazar_ext.api.v1 import lease_plan
from blazar_ext.api.v1 import lease_series
from blazar_ext.api.v1 import leases
from blazar_ext.api.v1 import maintenance
from blazar_ext.api.v1 import openapi
from blazar_ext.api.v1 import properties
from blazar_ext.api.v1 import rates
from blazar_ext.api.v1 import root
from blazar_ext.api.v1 import subscriptions

Route = routing.Route

_LEASE = '/v1/leases/{lease_id}'
_PROPERTIES = '/v1/{resource_type}/properties'
_BUDGET = '/v1/budgets/{budget_id}'
_SUBSCRIPTION = '/v1/subscriptions/{subscription_id}'
_SERIES = '/v1/lease-series/{series_id}'

# Served whatever resource types are enabled.
CORE = (
    Route('GET', '/', root.RootController.index_get),
    Route('GET', '/v1', root.V1Controller.index_get),
    Route('GET', '/v1/leases', leases.LeasesController.get_all),
    Route('POST', '/v1/leases', leases.LeasesController.post),
    Route('GET', _LEASE, leases.LeasesController.get_one),
    Route('PUT', _LEASE, leases.LeasesController.put),
    Route('DELETE', _LEASE, leases.LeasesController.delete),
    Route('POST', '/v1/leases/quote', leases.QuoteController.post),
    Route('POST', '/v1/leases/plan', lease_plan.LeasePlanController.post),
    Route('GET', _LEASE + '/extension',
          lease_plan.LeaseExtensionController.get_all),
    Route('GET', '/v1/lease-series',
          lease_series.LeaseSeriesController.get_all),
    Route('GET', _SERIES, lease_series.LeaseSeriesController.get_one),
    Route('PATCH', _SERIES, lease_series.LeaseSeriesController.patch),
    Route('DELETE', _SERIES, lease_series.LeaseSeriesController.delete),
    Route('POST', _SERIES + '/skip', lease_series.LeaseSeriesController.skip),
    Route('GET', '/v1/maintenance',
          maintenance.AllMaintenanceController.get_all),
    # V1Controller._lookup: resource types such as physical:host are
    # path segments.
    Route('GET', _PROPERTIES, properties.PropertiesController.get_all),
    Route('GET', _PROPERTIES + '/{name}',
          properties.PropertiesController.get_one),
    Route('PATCH', _PROPERTIES + '/{name}',
          properties.PropertiesController.patch),
    Route('GET', '/v1/budgets', budgets.BudgetsController.get_all),
    Route('POST', '/v1/budgets', budgets.BudgetsController.post),
    Route('GET', _BUDGET, budgets.BudgetsController.get_one),
    Route('DELETE', _BUDGET, budgets.BudgetsController.delete),
    Route('POST', _BUDGET + '/adjust', budgets.AdjustController.post),
    Route('GET', _BUDGET + '/ledger', budgets.LedgerController.get_all),
    Route('GET', '/v1/rates', rates.RatesController.get_all),
    Route('PUT', '/v1/rates', rates.RatesController.put),
    Route('GET', '/v1/subscriptions',
          subscriptions.SubscriptionsController.get_all),
    Route('POST', '/v1/subscriptions',
          subscriptions.SubscriptionsController.post),
    Route('GET', _SUBSCRIPTION, subscriptions.SubscriptionsController.get_one),
    Route('PATCH', _SUBSCRIPTION,
          subscriptions.SubscriptionsController.patch),
    Route('DELETE', _SUBSCRIPTION,
          subscriptions.SubscriptionsController.delete),
    Route('GET', _SUBSCRIPTION + '/deliveries',
          subscriptions.DeliveriesController.get_all),
    Route('GET', openapi.PATH, openapi.OpenAPIController.get_all),
)

_HOST = '/{host_id}'
_MAINTENANCE = _HOST + '/maintenance/{maintenance_id}'
_FIP = '/{floatingip_id}'
_FIP_WINDOW = _FIP + '/maintenance/{maintenance_id}'

# Below a plugin's mount point, by the controller class it mounts there.
MOUNTED = {
    hosts.HostsController: (
        Route('GET', '', hosts.HostsController.get_all),
        Route('POST', '', hosts.HostsController.post),
        Route('GET', _HOST, hosts.HostsController.get_one),
        Route('PUT', _HOST, hosts.HostsController.put),
        Route('DELETE', _HOST, hosts.HostsController.delete),
        Route('GET', '/properties',
              properties.TypePropertiesController.get_all),
        Route('GET', '/properties/{name}',
              properties.TypePropertiesController.get_one),
        Route('PATCH', '/properties/{name}',
              properties.TypePropertiesController.patch),
        Route('GET', '/allocations',
              allocations.HostAllocationsController.get_all),
        Route('GET', _HOST + '/allocation',
              allocations.HostAllocationController.get_all),
        Route('GET', '/availability',
              availability.HostAvailabilityController.get_all),
        Route('GET', '/calendar', calendar.HostCalendarController.get_all),
        Route('GET', _HOST + '/maintenance',
              maintenance.MaintenanceController.get_all),
        Route('POST', _HOST + '/maintenance',
              maintenance.MaintenanceController.post),
        Route('GET', _MAINTENANCE, maintenance.MaintenanceController.get_one),
        Route('PUT', _MAINTENANCE, maintenance.MaintenanceController.put),
        Route('PATCH', _MAINTENANCE, maintenance.MaintenanceController.patch),
        Route('DELETE', _MAINTENANCE,
              maintenance.MaintenanceController.delete),
    ),
    floatingips.FloatingIPsController: (
        Route('GET', '', floatingips.FloatingIPsController.get_all),
        Route('POST', '', floatingips.FloatingIPsController.post),
        Route('GET', _FIP, floatingips.FloatingIPsController.get_one),
        Route('DELETE', _FIP, floatingips.FloatingIPsController.delete),
        Route('GET', '/allocations',
              allocations.FloatingIPAllocationsController.get_all),
        Route('GET', _FIP + '/allocation',
              allocations.FloatingIPAllocationController.get_all),
        Route('GET', '/calendar',
              calendar.FloatingIPCalendarController.get_all),
        Route('GET', _FIP + '/maintenance',
              maintenance.FloatingIPMaintenanceController.get_all),
        Route('POST', _FIP + '/maintenance',
              maintenance.FloatingIPMaintenanceController.post),
        Route('GET', _FIP_WINDOW,
              maintenance.FloatingIPMaintenanceController.get_one),
        Route('PUT', _FIP_WINDOW,
              maintenance.FloatingIPMaintenanceController.put),
        Route('PATCH', _FIP_WINDOW,
              maintenance.FloatingIPMaintenanceController.patch),
        Route('DELETE', _FIP_WINDOW,
              maintenance.FloatingIPMaintenanceController.delete),
    ),
}


def controller_class(path: str) -> type:
    """The class of a plugin's ``api_routes`` value ('module:Class')."""
    return importutils.import_class(path.replace(':', '.'))


def mounted(controller: type) -> tuple:
    """The routes ``controller`` serves below its mount point."""
    if controller in MOUNTED:
        return MOUNTED[controller]
    return tuple(getattr(controller, 'ROUTES', ()))


def table(plugin_routes: dict) -> list:
    """Every v1 route: CORE, then each mounted controller's routes under
    /v1/<segment>, for ``plugin_routes`` {segment: 'module:Class'} (the
    enabled plugins' routes: plugins.loader.get().routes())."""
    routes = list(CORE)
    for segment, path in sorted(plugin_routes.items()):
        prefix = '/v1/' + segment
        routes += [Route(route.method, prefix + route.pattern, route.handler)
                   for route in mounted(controller_class(path))]
    return routes
