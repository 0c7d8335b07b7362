"""The manager's RPC endpoint: the one writer of reservation state.

Only the methods declared here can be called remotely; each mirrors one in
blazar_ext.rpc.manager_client. Resources of every type go through one
call, ``resource_call`` (1.3), served by the type's plugin; the per-type
methods of 1.0-1.2 stay for an API pinned below 1.3 during a rolling
upgrade and call it.
"""

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_serialization import jsonutils

from blazar_ext.db.api import capability as capability_api
from blazar_ext.db.api import outbox as outbox_api
from blazar_ext import exceptions
from blazar_ext.manager import budgets
from blazar_ext.manager import extension
from blazar_ext.manager import healing
from blazar_ext.manager import leases
from blazar_ext.manager import maintenance
from blazar_ext.manager import plan
from blazar_ext.manager import series
from blazar_ext.plugins import base
from blazar_ext.plugins import loader
from blazar_ext.plugins import physical_host
from blazar_ext.plugins import virtual_floatingip
from blazar_ext.rpc import manager_client

LOG = logging.getLogger(__name__)


class ManagerEndpoint:
    target = messaging.Target(version=manager_client.RPC_API_VERSION)

    def __init__(self):
        self.leases = leases.LeaseManager()
        self.healer = healing.Healer(self.leases)
        # RPC namespace "budgets" (blazar_ext.rpc.budget_client).
        self.budgets = budgets.BudgetEndpoint(self.leases)
        self.series = series.SeriesManager(self.leases)
        self.maintenance = maintenance.MaintenanceManager(self.leases,
                                                          self.healer)

    # Resources (1.3). Domain errors are expected: oslo.messaging sends
    # them back to the API without logging a traceback.

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def resource_call(self, context, resource_type: str, operation: str,
                      payload: dict):
        """``operation`` (base.OPERATIONS) on a resource of
        ``resource_type``: payload {'id': resource id (update, delete),
        'values': {...} (create, update)}. Invalid (400) for a type not
        enabled or an operation it does not have."""
        plugin = self.leases.plugins.get(resource_type)
        method = plugin.operation(operation)
        if not isinstance(payload, dict) or (
                operation != 'create' and 'id' not in payload):
            raise exceptions.Invalid(
                reason='%s of a %s resource: the payload must be an object '
                       'with the resource\'s id' % (operation, resource_type))
        values = payload.get('values') or {}
        if operation == 'create':
            return self._created(context, method(context, values))
        if operation == 'update':
            return self._update(context, plugin, payload['id'], values)
        return method(context, payload['id'])

    def _created(self, context, resource: dict) -> dict:
        # A new resource may be what a degraded reservation waits for.
        self.healer.retry_missing(context)
        return resource

    def _update(self, context, plugin, resource_id, values: dict) -> dict:
        """Set the description and, with ``reservable``, take the resource
        out of service (healing its reservations) or bring it back."""
        values = dict(values)
        service = {key: values.pop(key) for key in base.SERVICE_FIELDS
                   if key in values}
        if values:
            plugin.update_resource(context, resource_id, values)
        if service.get('reservable') is not None:
            self.healer.set_reservable(
                context, plugin.resource_type, resource_id,
                bool(service['reservable']),
                reason=service.get('reservable_reason'))
        return plugin.get_resource(context, resource_id)

    # Leases (1.1). Return values are JSON primitives; the API reads the
    # lease back from the database to answer, but for a create asked with
    # return_lease (1.8). private_visible (1.2) is the API's policy
    # decision; an older API does not send it, and the caller then may not
    # name private capabilities.

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def create_lease(self, context, values: dict,
                     private_visible: bool = False,
                     return_lease: bool = False) -> dict:
        """{'id': the new lease's id}; with ``return_lease`` (1.8) the
        lease as read in its transaction, with details and events, as JSON
        primitives (what the API would read back after the commit)."""
        if 'not_after' in values and 'start_date' not in values:
            # A flexible lease: the first slot that fits (manager/plan).
            lease = plan.create_flexible(self.leases, context, values,
                                         private_visible)
        else:
            lease = self.leases.create_lease(context, values,
                                             private_visible)
        if return_lease:
            return outbox_api.primitive(lease)
        return {'id': lease['id']}

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def update_lease(self, context, lease_id: str, values: dict,
                     private_visible: bool = False) -> dict:
        lease = self.leases.update_lease(context, lease_id, values,
                                         private_visible)
        return {'id': lease['id']}

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def delete_lease(self, context, lease_id: str) -> None:
        self.leases.delete_lease(context, lease_id)

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def lease_extension(self, context, lease_id: str) -> dict:
        """(1.4) How far the lease could be extended."""
        return extension.advise(self.leases, context, lease_id)

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def plan_lease(self, context, values: dict, private_visible: bool,
                   with_resources: bool) -> list:
        """(1.6) The options of a slot search whose reservations share a
        pool: each is checked by allocating it in a transaction rolled
        back, a write only the manager makes. Views, ranked."""
        request = plan.parse(values, self.leases.plugins, private_visible)
        return [option.view() for option in plan.search(
            context, self.leases.plugins, request, with_resources)]

        # Resource properties (1.2): whether users see a capability is
    # resource description, which the manager alone writes.

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def update_property(self, context, resource_type: str, name: str,
                        private: bool) -> dict:
        # The enabled plugins loaded first: a type's db module declares
        # its capability values table on import (physical:device's).
        loader.get()
        return capability_api.property_set_private(context, resource_type,
                                                   name, private)

    # Lease series and maintenance windows (1.5): see manager/series.py
    # and manager/maintenance.py.

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def create_lease_series(self, context, values: dict,
                            private_visible: bool = False) -> dict:
        return self.series.create_series(context, values, private_visible)

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def update_lease_series(self, context, series_id: str, values: dict,
                            private_visible: bool = False) -> dict:
        return self.series.update_series(context, series_id, values,
                                         private_visible)

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def delete_lease_series(self, context, series_id: str) -> list:
        return self.series.delete_series(context, series_id)

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def skip_lease_series_date(self, context, series_id: str,
                               date: str) -> dict:
        return jsonutils.to_primitive(
            self.series.skip_date(context, series_id, date),
            convert_datetime=True)

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def schedule_maintenance(self, context, host_id: str, values: dict,
                             resource_type: str = maintenance.HOST) -> dict:
        # host_id: the resource's id (1.7: of any type with windows).
        return jsonutils.to_primitive(
            self.maintenance.schedule(context, host_id, values,
                                      resource_type=resource_type),
            convert_datetime=True)

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def update_maintenance(self, context, maintenance_id: str,
                           values: dict) -> dict:
        return jsonutils.to_primitive(
            self.maintenance.update(context, maintenance_id, values),
            convert_datetime=True)

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def cancel_maintenance(self, context, maintenance_id: str) -> None:
        self.maintenance.cancel(context, maintenance_id)

    # Per-type calls of 1.0-1.2, kept for an API pinned below 1.3 (a
    # rolling upgrade): each is resource_call on its type.

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def create_host(self, context, values: dict) -> dict:
        return self.resource_call(context, physical_host.RESOURCE_TYPE,
                                  'create', {'values': values})

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def update_host(self, context, host_id: str, values: dict) -> dict:
        return self.resource_call(context, physical_host.RESOURCE_TYPE,
                                  'update', {'id': host_id, 'values': values})

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def delete_host(self, context, host_id: str) -> None:
        return self.resource_call(context, physical_host.RESOURCE_TYPE,
                                  'delete', {'id': host_id})

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def create_floatingip(self, context, values: dict) -> dict:
        return self.resource_call(context, virtual_floatingip.RESOURCE_TYPE,
                                  'create', {'values': values})

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def delete_floatingip(self, context, floatingip_id: str) -> None:
        return self.resource_call(context, virtual_floatingip.RESOURCE_TYPE,
                                  'delete', {'id': floatingip_id})
