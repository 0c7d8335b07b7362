"""/metadefs/namespaces/{namespace}/objects."""

from blazar_ext.api.metadefs import handler
from blazar_ext.api.metadefs import properties
from blazar_ext.api.metadefs import schemas
from blazar_ext.api.metadefs import tags
from blazar_ext.api import routing
from blazar_ext.db.api.metadefs import object as object_api
from blazar_ext.policies import metadefs as rules

_BASE = '/metadefs/namespaces/{namespace}/objects'


def view(namespace: str, obj: dict) -> dict:
    obj = dict(obj, properties=properties.as_glance_stores(
        obj.get('properties') or {}))
    return dict(obj, schema=schemas.schema_url('object'),
                self=handler.url('metadefs/namespaces', namespace, 'objects',
                                 obj['name']))


def index(req, namespace: str):
    ns = handler.visible_namespace(req, namespace, rules.GET_OBJECTS)
    # Glance checks limit and the sort order here, then lists every
    # object in creation order all the same.
    tags.list_params(req, schemas.OBJECTS_QUERY)
    # Glance leaves out the objects get_metadef_object refuses.
    objects = (object_api.object_list(handler.context(req), namespace)
               if handler.allowed(req, ns, rules.GET_OBJECT) else [])
    return handler.respond({
        'objects': [view(namespace, o) for o in objects],
        'schema': schemas.schema_url('objects')})


def _values(req) -> dict:
    # As Glance, ``required`` may name a property the object does not
    # define (md-object-update sends the fetched list with new properties).
    data = handler.strip_read_only(handler.body(req, schemas.OBJECT))
    data['properties'] = properties.as_glance_stores(
        data.get('properties') or {})
    return data


def create(req, namespace: str):
    handler.writable_namespace(req, namespace, rules.ADD_OBJECT)
    obj = object_api.object_create(handler.context(req), namespace,
                                   _values(req))
    return handler.respond(view(namespace, obj), status=201)


def show(req, namespace: str, name: str):
    handler.visible_namespace(req, namespace, rules.GET_OBJECT)
    obj = object_api.object_get(handler.context(req), namespace, name)
    return handler.respond(view(namespace, obj))


def update(req, namespace: str, name: str):
    handler.writable_namespace(req, namespace, rules.MODIFY_OBJECT)
    obj = object_api.object_update(handler.context(req), namespace, name,
                                   _values(req))
    return handler.respond(view(namespace, obj))


def delete(req, namespace: str, name: str):
    handler.writable_namespace(req, namespace, rules.DELETE_OBJECT)
    object_api.object_delete(handler.context(req), namespace, name)
    return handler.no_content()


def delete_all(req, namespace: str):
    handler.writable_namespace(req, namespace, rules.DELETE_OBJECT)
    object_api.object_delete_all(handler.context(req), namespace)
    return handler.no_content()


ROUTES = [
    routing.Route('GET', _BASE, index),
    routing.Route('POST', _BASE, create),
    routing.Route('DELETE', _BASE, delete_all),
    routing.Route('GET', _BASE + '/{name}', show),
    routing.Route('PUT', _BASE + '/{name}', update),
    routing.Route('DELETE', _BASE + '/{name}', delete),
]
