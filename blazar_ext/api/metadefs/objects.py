"""/metadefs/namespaces/{namespace}/objects."""

from blazar_ext.api.metadefs import handler
from blazar_ext.api.metadefs import namespaces
from blazar_ext.api.metadefs import schemas
from blazar_ext.db.api import metadef_object as object_api

_BASE = '/metadefs/namespaces/{namespace}/objects'


def view(namespace: str, obj: dict) -> dict:
    return dict(obj, schema=schemas.schema_url('object'),
                self=handler.url('metadefs/namespaces', namespace, 'objects',
                                 obj['name']))


def index(req, namespace: str):
    handler.visible_namespace(req, namespace, 'get_metadef_objects')
    objects = object_api.object_list(handler.context(req), namespace)
    return handler.respond({
        'objects': [view(namespace, o) for o in objects],
        'schema': schemas.schema_url('objects')})


def _values(req) -> dict:
    data = handler.strip_read_only(handler.body(req, schemas.OBJECT))
    namespaces._check_required(data)
    return data


def create(req, namespace: str):
    handler.writable_namespace(req, namespace, 'add_metadef_object')
    obj = object_api.object_create(handler.context(req), namespace,
                                   _values(req))
    return handler.respond(view(namespace, obj), status=201)


def show(req, namespace: str, name: str):
    handler.visible_namespace(req, namespace, 'get_metadef_object')
    obj = object_api.object_get(handler.context(req), namespace, name)
    return handler.respond(view(namespace, obj))


def update(req, namespace: str, name: str):
    handler.writable_namespace(req, namespace, 'modify_metadef_object')
    obj = object_api.object_update(handler.context(req), namespace, name,
                                   _values(req))
    return handler.respond(view(namespace, obj))


def delete(req, namespace: str, name: str):
    handler.writable_namespace(req, namespace, 'delete_metadef_object')
    object_api.object_delete(handler.context(req), namespace, name)
    return handler.no_content()


def delete_all(req, namespace: str):
    handler.writable_namespace(req, namespace, 'delete_metadef_object')
    object_api.object_delete_all(handler.context(req), namespace)
    return handler.no_content()


ROUTES = [
    handler.Route('GET', _BASE, index),
    handler.Route('POST', _BASE, create),
    handler.Route('DELETE', _BASE, delete_all),
    handler.Route('GET', _BASE + '/{name}', show),
    handler.Route('PUT', _BASE + '/{name}', update),
    handler.Route('DELETE', _BASE + '/{name}', delete),
]
