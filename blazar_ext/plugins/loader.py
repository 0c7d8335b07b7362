"""Loading the enabled resource-type plugins, and reading leases with
their types' details.

Plugins are entry points in the ``blazar_ext.resource.plugins`` namespace;
``[manager] plugins`` names the enabled ones (the API reads the same
option to mount their routes).
"""

import functools

from oslo_config import cfg
from stevedore import named

from blazar_ext.db.api import lease as lease_api
from blazar_ext.db.api import transaction
from blazar_ext import exceptions
from blazar_ext.plugins import base

CONF = cfg.CONF
NAMESPACE = 'blazar_ext.resource.plugins'


class Plugins:
    """The enabled plugins, by resource type."""

    def __init__(self, names: list):
        missing = []
        manager = named.NamedExtensionManager(
            NAMESPACE, names, invoke_on_load=True, name_order=True,
            on_missing_entrypoints_callback=missing.extend,
            on_load_failure_callback=_load_failure)
        if missing:
            raise exceptions.ConfigurationError(
                reason='[manager] plugins: no resource plugin named %s in '
                       'the %s entry point namespace'
                       % (', '.join(sorted(missing)), NAMESPACE))
        self.by_type: dict = {}
        for extension in manager:
            plugin = extension.obj
            if not isinstance(plugin, base.ResourcePlugin):
                raise exceptions.ConfigurationError(
                    reason='resource plugin %s is not a ResourcePlugin'
                           % extension.name)
            self.by_type[plugin.resource_type] = plugin

    def __iter__(self):
        return iter(self.by_type.values())

    def get(self, resource_type) -> base.ResourcePlugin:
        """The plugin of an enabled type; Invalid (400) naming the enabled
        types otherwise."""
        plugin = self.by_type.get(resource_type)
        if plugin is None:
            raise exceptions.Invalid(
                reason='resource_type %r is not enabled; enabled: %s'
                       % (resource_type, ', '.join(sorted(self.by_type))))
        return plugin

    def property_source(self, resource_type: str) -> tuple:
        """(resource type whose capabilities are the properties of
        ``resource_type``, its catalog resource type). A type no enabled
        plugin names is its own."""
        plugin = self.by_type.get(resource_type)
        if plugin is None:
            return resource_type, resource_type
        return (plugin.properties_of or resource_type,
                plugin.catalog_resource_type or resource_type)

    def routes(self) -> dict:
        """{path segment under /v1: 'module:Controller'} of every type."""
        routes: dict = {}
        for plugin in self:
            routes.update(plugin.api_routes)
        return routes

    # Reading leases with their details

    def add_details(self, session, leases: list) -> list:
        """Merge each reservation's type detail into it, one read per
        type. A reservation of a type no longer enabled keeps only the
        common columns."""
        by_type: dict = {}
        for lease in leases:
            for reservation in lease['reservations']:
                by_type.setdefault(reservation['resource_type'],
                                   []).append(reservation)
        for resource_type, reservations in by_type.items():
            plugin = self.by_type.get(resource_type)
            if plugin is None:
                continue
            details = plugin.details(session, [r['id'] for r in reservations])
            for reservation in reservations:
                reservation.update(details.get(reservation['id'], {}))
        return leases

    def with_details(self, context, leases: list) -> list:
        """``add_details`` in a reader transaction of its own."""
        with transaction.reading(context) as session:
            return self.add_details(session, leases)

    def lease_get(self, context, lease_id: str) -> dict:
        """One lease with its reservations' details; LeaseNotFound."""
        with transaction.reading(context) as session:
            lease = lease_api.lease_get(context, lease_id)
            return self.add_details(session, [lease])[0]

    def lease_list(self, context, project_id: str | None = None,
                   degraded: bool | None = None) -> list:
        """Leases (of one project; degraded or not, if given) with their
        details."""
        with transaction.reading(context) as session:
            return self.add_details(session, lease_api.lease_list(
                context, project_id, degraded=degraded))


def _load_failure(manager, entrypoint, exc) -> None:
    raise exceptions.ConfigurationError(
        reason='resource plugin %s cannot be loaded: %s'
               % (entrypoint.name, exc))


@functools.lru_cache(maxsize=8)
def _load(names: tuple) -> Plugins:
    return Plugins(list(names))


def get() -> Plugins:
    """The plugins ``[manager] plugins`` enables (loaded once per
    distinct setting)."""
    return _load(tuple(CONF.manager.plugins))
