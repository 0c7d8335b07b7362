"""/metadefs/namespaces/{namespace}/properties."""

from blazar_ext.api.metadefs import handler
from blazar_ext.api.metadefs import schemas
from blazar_ext.db.api import metadef_property as property_api

_BASE = '/metadefs/namespaces/{namespace}/properties'


def index(req, namespace: str):
    handler.visible_namespace(req, namespace, 'get_metadef_properties')
    props = property_api.property_list(handler.context(req), namespace)
    return handler.respond({'properties': props})


def create(req, namespace: str):
    handler.writable_namespace(req, namespace, 'add_metadef_property')
    data = handler.body(req, schemas.PROPERTY)
    prop = property_api.property_create(handler.context(req), namespace,
                                        data['name'], data)
    return handler.respond(prop, status=201)


def _unprefixed(req, namespace: dict, name: str) -> str:
    """The stored name of ``name`` given with ?resource_type='s prefix."""
    resource_type = req.GET.get('resource_type')
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
    ns = handler.visible_namespace(req, namespace, 'get_metadef_property')
    stored = _unprefixed(req, ns, name)
    prop = property_api.property_get(handler.context(req), namespace, stored)
    prop['name'] = name
    return handler.respond(prop)


def update(req, namespace: str, name: str):
    handler.writable_namespace(req, namespace, 'modify_metadef_property')
    data = handler.body(req, schemas.PROPERTY)
    prop = property_api.property_update(handler.context(req), namespace,
                                        name, data)
    return handler.respond(prop)


def delete(req, namespace: str, name: str):
    handler.writable_namespace(req, namespace, 'remove_metadef_property')
    property_api.property_delete(handler.context(req), namespace, name)
    return handler.no_content()


def delete_all(req, namespace: str):
    handler.writable_namespace(req, namespace, 'remove_metadef_property')
    property_api.property_delete_all(handler.context(req), namespace)
    return handler.no_content()


ROUTES = [
    handler.Route('GET', _BASE, index),
    handler.Route('POST', _BASE, create),
    handler.Route('DELETE', _BASE, delete_all),
    handler.Route('GET', _BASE + '/{name}', show),
    handler.Route('PUT', _BASE + '/{name}', update),
    handler.Route('DELETE', _BASE + '/{name}', delete),
]
