"""/metadefs/namespaces/{namespace}/properties."""

from blazar_ext.api.metadefs import handler
from blazar_ext.api.metadefs import schemas
from blazar_ext.api import routing
from blazar_ext.api import validation
from blazar_ext.db.api.metadefs import property as property_api
from blazar_ext.policies import metadefs as rules

_BASE = '/metadefs/namespaces/{namespace}/properties'


def as_glance(prop: dict) -> dict:
    """A property definition as Glance keeps it: Glance reads ``default``
    as text, so 100 becomes "100" and True "True", whatever the type, and
    a list or an object is dropped."""
    if 'default' not in prop:
        return prop
    prop = dict(prop)
    default = prop.pop('default')
    if isinstance(default, bool):
        prop['default'] = str(default)
    elif isinstance(default, (str, int, float)):
        prop['default'] = str(default)
    return prop


def as_glance_stores(props: dict) -> dict:
    """as_glance() of each definition of a {name: definition} map."""
    return {name: as_glance(prop) if isinstance(prop, dict) else prop
            for name, prop in props.items()}


def index(req, namespace: str):
    handler.visible_namespace(req, namespace, rules.GET_PROPERTIES)
    props = property_api.property_list(handler.context(req), namespace)
    # Glance's values carry their name too.
    return handler.respond({'properties': {
        name: dict(as_glance(prop), name=name)
        for name, prop in props.items()}})


def create(req, namespace: str):
    handler.writable_namespace(req, namespace, rules.ADD_PROPERTY)
    data = as_glance(handler.body(req, schemas.PROPERTY))
    prop = property_api.property_create(handler.context(req), namespace,
                                        data['name'], data)
    return handler.respond(prop, status=201)


def _unprefixed(resource_type: str | None, namespace: dict,
                name: str) -> str:
    """The stored name of ``name`` given with ?resource_type='s prefix."""
    if not resource_type:
        return name
    prefix = next((a.get('prefix') or ''
                   for a in namespace['resource_type_associations']
                   if a['name'] == resource_type), '')
    if prefix and name.startswith(prefix):
        return name[len(prefix):]
    if prefix:
        raise property_api._not_found(namespace['namespace'], name)
    return name


def show(req, namespace: str, name: str):
    """GET .../properties/{name}[?resource_type=...] (prefix stripped)."""
    query = validation.validate_query(req.GET, schemas.RESOURCE_TYPE_QUERY)
    # As Glance, naming a resource type takes get_metadef_resource_type.
    actions = [rules.GET_PROPERTY] + (
        [rules.GET_RESOURCE_TYPE] if 'resource_type' in query else [])
    ns = handler.visible_namespace(req, namespace, *actions)
    stored = _unprefixed(query.get('resource_type'), ns, name)
    prop = property_api.property_get(handler.context(req), namespace, stored)
    prop['name'] = name
    return handler.respond(as_glance(prop))


def update(req, namespace: str, name: str):
    handler.writable_namespace(req, namespace, rules.MODIFY_PROPERTY)
    data = as_glance(handler.body(req, schemas.PROPERTY))
    prop = property_api.property_update(handler.context(req), namespace,
                                        name, data)
    return handler.respond(prop)


def delete(req, namespace: str, name: str):
    handler.writable_namespace(req, namespace, rules.REMOVE_PROPERTY)
    property_api.property_delete(handler.context(req), namespace, name)
    return handler.no_content()


def delete_all(req, namespace: str):
    handler.writable_namespace(req, namespace, rules.REMOVE_PROPERTY)
    property_api.property_delete_all(handler.context(req), namespace)
    return handler.no_content()


ROUTES = [
    routing.Route('GET', _BASE, index),
    routing.Route('POST', _BASE, create),
    routing.Route('DELETE', _BASE, delete_all),
    routing.Route('GET', _BASE + '/{name}', show),
    routing.Route('PUT', _BASE + '/{name}', update),
    routing.Route('DELETE', _BASE + '/{name}', delete),
]
