"""Where a host's description comes from when it is registered.

Upstream Blazar asks Nova. blazar_ext loads a source by name from the
``blazar_ext.host_inventory`` stevedore namespace; the default, ``static``,
takes the description from the registration request, so no Nova is needed.
"""

import abc

from oslo_config import cfg

from blazar_ext import drivers
from blazar_ext import exceptions

CONF = cfg.CONF

# Host columns a registration may describe, with the static source's defaults.
HOST_FIELDS = {
    'vcpus': 0,
    'memory_mb': 0,
    'local_gb': 0,
    'cpu_info': '',
    'hypervisor_type': '',
    'hypervisor_version': 0,
    'service_name': None,
    'availability_zone': None,
}


class HostInventory(metaclass=abc.ABCMeta):
    """A source of host descriptions."""

    @abc.abstractmethod
    def describe(self, name: str, request: dict) -> dict:
        """Return the host columns for ``name``.

        ``request`` holds the registration's fields other than the name.
        Raise InventorySourceError when the host cannot be described.
        """


class StaticInventory(HostInventory):
    """Takes every host column from the registration request."""

    def describe(self, name: str, request: dict) -> dict:
        values = {field: request.get(field, default)
                  for field, default in HOST_FIELDS.items()}
        values['hypervisor_hostname'] = name
        values['service_name'] = values['service_name'] or name
        return values


def load(name: str | None = None) -> HostInventory:
    """Load the configured source; a bad name is a clear error."""
    name = name or CONF.manager.host_inventory
    return drivers.load('blazar_ext.host_inventory', name,
                        'host inventory source',
                        exceptions.InventorySourceError)
