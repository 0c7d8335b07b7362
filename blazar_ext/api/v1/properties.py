"""Resource properties: the extra capability names of a resource type, their
values and whether users may see them.

Two route families share the handlers below:

- /v1/{resource_type}/properties[/{name}], as the discovery spec describes
  (an instance type, whose requests filter hosts, lists the hosts'
  properties, described by its own catalog resource type);
- /v1/<a type's collection>/properties[/{name}] (/v1/os-hosts/properties
  as python-blazarclient calls it), bodies wrapped in
  ``resource_properties`` / ``resource_property``.

A private property never shows to a caller without
``blazar:properties:get_private``: it is left out of listings, and asking
for it by name is a 403 whose message does not repeat the name.
"""

import pecan
from pecan import rest

from blazar_ext.api.v1.schemas import property as schema
from blazar_ext.api.v1 import views
from blazar_ext.api import validation
from blazar_ext.db.api import capability as capability_api
from blazar_ext.db.api.metadefs import resource_type as metadef_rt_api
from blazar_ext.db.api import transaction
from blazar_ext import exceptions
from blazar_ext.plugins import loader
from blazar_ext.policies import properties as property_policies
from blazar_ext import policy
from blazar_ext.rpc import manager_client

# Catalog keys a property listing carries, when the catalog gives them.
CATALOG_KEYS = ('title', 'type', 'items_type', 'operators')


def catalog_details(context, resource_type: str, names: list) -> dict:
    """Catalog information per property name: {name: {'title', 'type',
    'operators', ...}} from the metadefs namespaces associated with the
    resource type that the caller may see.

    This is how users learn which operators suit a property (the
    metadefs multivalue operators spec).
    """
    visible_to = None if context.is_admin else context.project_id
    wanted = set(names)
    details = {}
    for name, entry in metadef_rt_api.catalog_properties(
            context, resource_type, visible_to).items():
        if name in wanted:
            details[name] = {key: entry[key] for key in CATALOG_KEYS
                             if entry.get(key) is not None}
    return details


def _with_catalog(context, resource_type: str, items: list) -> list:
    """Merge catalog details into each property.

    The keys that come from the capabilities (property, private, values)
    win over the catalog's.
    """
    details = catalog_details(context, resource_type,
                              [item['property'] for item in items])
    if not details:
        return items
    merged = []
    for item in items:
        extra = details.get(item['property']) or {}
        merged.append(dict(extra, **item))
    return merged


def _may_see_private(context) -> bool:
    return policy.authorize(context, property_policies.GET_PRIVATE,
                            do_raise=False)


def _list_query(context) -> tuple:
    """(detail, include_private) from the query string."""
    query = validation.validate_query(pecan.request.GET, schema.LIST_QUERY)
    include_private = query.get('all', False)
    if include_private:
        # Asking for everything without the right to see it is refused
        # outright rather than silently answered with less.
        policy.authorize(context, property_policies.GET_PRIVATE)
    return query.get('detail', False), include_private


def _source(resource_type: str) -> tuple:
    """(the type whose capabilities are the properties, the catalog
    resource type describing them): an instance type's properties are
    the hosts' (the enabled plugins say)."""
    return loader.get().property_source(resource_type)


def list_properties(context, resource_type: str) -> list:
    """Handler body of the listings: policy, query, database, catalog."""
    policy.authorize(context, property_policies.LIST)
    detail, include_private = _list_query(context)
    source, catalog = _source(resource_type)
    # One transaction for the values and the catalog: on a database
    # server, each costs a connection checkout and a round trip to end it.
    with transaction.reading(context):
        items = capability_api.property_list(context, source,
                                             include_private, detail)
        return _with_catalog(context, catalog, items)


def show_property(context, resource_type: str, name: str) -> dict:
    """One property and its values; 403 if private and not allowed."""
    policy.authorize(context, property_policies.GET)
    source, catalog = _source(resource_type)
    item = capability_api.property_get(context, source, name)
    if item['private'] and not _may_see_private(context):
        raise exceptions.PolicyNotAuthorized(
            action=property_policies.GET_PRIVATE)
    return _with_catalog(context, catalog, [item])[0]


def update_property(context, resource_type: str, name: str) -> dict:
    """Set the private flag from a {"private": <bool>} body."""
    policy.authorize(context, property_policies.UPDATE)
    values = validation.request_json(pecan.request)
    validation.validate(schema.UPDATE, values)
    source, catalog = _source(resource_type)
    if source != resource_type:
        # One flag per capability: it is set where the capability lives.
        raise exceptions.Invalid(
            reason='the properties of %s are those of %s; set a '
                   "property's visibility through /v1/%s/properties/<name>"
                   % (resource_type, source, source))
    item = manager_client.get_client().update_property(
        context, resource_type, name, values['private'])
    return _with_catalog(context, catalog, [item])[0]


def _value_objects(item: dict) -> dict:
    """The spec's shape: values as [{"value": v}, ...]."""
    if 'values' in item:
        item = dict(item, values=[{'value': v} for v in item['values']])
    return item


class PropertiesController(rest.RestController):
    """/v1/{resource_type}/properties, as in the discovery spec."""

    def __init__(self, resource_type: str):
        self.resource_type = resource_type

    @pecan.expose('json')
    def get_all(self):
        items = list_properties(pecan.request.context, self.resource_type)
        return [_value_objects(item) for item in items]

    @pecan.expose('json')
    def get_one(self, name):
        return _value_objects(
            show_property(pecan.request.context, self.resource_type, name))

    @pecan.expose(content_type='application/json')
    def patch(self, name):
        update_property(pecan.request.context, self.resource_type, name)
        pecan.response.status = 204
        return ''


class TypePropertiesController(rest.RestController):
    """<collection>/properties of one resource type (/v1/os-hosts/
    properties, as python-blazarclient calls it).

    As upstream Blazar, values are plain strings and PATCH answers 200
    with the property; unlike it, ``private`` is the stored flag.
    """

    def __init__(self, resource_type: str):
        self.resource_type = resource_type

    @pecan.expose('json')
    def get_all(self):
        return {'resource_properties': list_properties(
            pecan.request.context, self.resource_type)}

    @pecan.expose('json')
    def get_one(self, name):
        return {'resource_property': show_property(
            pecan.request.context, self.resource_type, name)}

    @pecan.expose('json')
    def patch(self, name):
        """Both key sets: blazar_ext's {property, private, values} and
        upstream's {id, resource_type, property_name, private, created_at,
        updated_at}, so scripts written for either work."""
        context = pecan.request.context
        item = update_property(context, self.resource_type, name)
        record = capability_api.property_record(context, self.resource_type,
                                                name)
        return {'resource_property': dict(item, **views.resource_property(
            record, iso=True))}
