"""The physical:host resource: registering and describing hosts.

Runs in the manager, the only writer of reservation state.
"""

from oslo_config import cfg

from blazar_ext.db.api import host as host_api
from blazar_ext.drivers import host_inventory

RESOURCE_TYPE = 'physical:host'


def _as_capability_value(value) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return 'true' if value else 'false'
    return str(value)


class HostPlugin:
    """Host registration for the manager."""

    def __init__(self, inventory: host_inventory.HostInventory | None = None):
        self.inventory = inventory or host_inventory.load()

    def create_host(self, context, values: dict) -> dict:
        values = dict(values)
        name = values.pop('name')
        columns = self.inventory.describe(name, values)
        capabilities = {
            key: _as_capability_value(value) for key, value in values.items()
            if key not in host_inventory.HOST_FIELDS and value is not None}
        return host_api.host_create(context, columns, capabilities,
                                    private_default=self.private_default())

    def update_host(self, context, host_id: str, values: dict) -> dict:
        capabilities = {key: _as_capability_value(value)
                        for key, value in values.items()}
        return host_api.host_update_capabilities(
            context, host_id, capabilities,
            private_default=self.private_default())

    def delete_host(self, context, host_id: str) -> None:
        host_api.host_delete(context, host_id)

    @staticmethod
    def private_default() -> bool:
        """Visibility of capabilities first seen on a host."""
        return cfg.CONF.capability_default_visibility == 'private'
