"""The manager's RPC endpoint: the one writer of reservation state.

Only the methods declared here can be called remotely; each mirrors one in
blazar_ext.rpc.manager_client.
"""

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_serialization import jsonutils

from blazar_ext.db.api import capability as capability_api
from blazar_ext.db.api import host as host_api
from blazar_ext import exceptions
from blazar_ext.manager import healing
from blazar_ext.manager import leases
from blazar_ext.manager import maintenance
from blazar_ext.manager import series
from blazar_ext.plugins import physical_host
from blazar_ext.rpc import manager_client

LOG = logging.getLogger(__name__)


class ManagerEndpoint:
    target = messaging.Target(version=manager_client.RPC_API_VERSION)

    def __init__(self):
        self.hosts = physical_host.HostPlugin()
        self.leases = leases.LeaseManager()
        self.healer = healing.Healer(self.leases)
        self.series = series.SeriesManager(self.leases)
        self.maintenance = maintenance.MaintenanceManager(self.leases,
                                                          self.healer)

    # Hosts. Domain errors are expected: oslo.messaging sends them back to
    # the API without logging a traceback.

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def create_host(self, context, values: dict) -> dict:
        host = self.hosts.create_host(context, values)
        # A new host may be what a degraded reservation waits for.
        self.healer.retry_missing(context)
        return host

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def update_host(self, context, host_id: str, values: dict) -> dict:
        """Set capabilities and, with ``reservable``, take the host out
        of service (healing its reservations) or bring it back."""
        values = dict(values)
        reservable = values.pop('reservable', None)
        reason = values.pop('reservable_reason', None)
        if values:
            self.hosts.update_host(context, host_id, values)
        if reservable is not None:
            self.healer.set_host_reservable(context, host_id,
                                            bool(reservable), reason=reason)
        return host_api.host_get(context, host_id)

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def delete_host(self, context, host_id: str) -> None:
        return self.hosts.delete_host(context, host_id)

    # Leases (1.1). Return values are JSON primitives; the API reads the
    # lease back from the database to answer. private_visible (1.2) is the
    # API's policy decision; an older API does not send it, and the caller
    # then may not name private capabilities.

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def create_lease(self, context, values: dict,
                     private_visible: bool = False) -> dict:
        lease = self.leases.create_lease(context, values, private_visible)
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

    # Resource properties (1.2): whether users see a capability is host
    # description, which the manager alone writes.

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def update_property(self, context, resource_type: str, name: str,
                        private: bool) -> dict:
        return capability_api.property_set_private(context, resource_type,
                                                   name, private)

    # Lease series and maintenance windows (1.3): see manager/series.py
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
    def schedule_maintenance(self, context, host_id: str,
                             values: dict) -> dict:
        return jsonutils.to_primitive(
            self.maintenance.schedule(context, host_id, values),
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

    # Floating IPs (1.1)

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def create_floatingip(self, context, values: dict) -> dict:
        return {'id': self._floatingips().create_floatingip(
            context, values)['id']}

    @messaging.expected_exceptions(exceptions.BlazarExtException)
    def delete_floatingip(self, context, floatingip_id: str) -> None:
        self._floatingips().delete_floatingip(context, floatingip_id)

    def _floatingips(self):
        # Invalid (400) naming the enabled types if it is disabled.
        return self.leases.plugins.get('virtual:floatingip')
