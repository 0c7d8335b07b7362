"""/metadefs/namespaces/{namespace}/tags."""

from oslo_utils import strutils

from blazar_ext.api.metadefs import handler
from blazar_ext.api.metadefs import schemas
from blazar_ext.api import validation
from blazar_ext.db.api import metadef_tag as tag_api

_BASE = '/metadefs/namespaces/{namespace}/tags'


def index(req, namespace: str):
    handler.visible_namespace(req, namespace, 'get_metadef_tags')
    tags = tag_api.tag_list(handler.context(req), namespace)
    return handler.respond({'tags': tags})


def create_many(req, namespace: str):
    """POST (or PUT) .../tags {"tags": [{"name": ...}]}.

    The tags replace the namespace's tags unless X-Openstack-Append is
    true, in which case they are added.
    """
    handler.writable_namespace(req, namespace, 'add_metadef_tags')
    data = handler.body(req, schemas.TAGS_REQUEST)
    append = strutils.bool_from_string(
        req.headers.get('X-Openstack-Append', 'false'))
    names = [t['name'] for t in data['tags']]
    tags = tag_api.tag_create_many(handler.context(req), namespace, names,
                                   append=append)
    return handler.respond({'tags': tags}, status=201)


def create(req, namespace: str, name: str):
    handler.writable_namespace(req, namespace, 'add_metadef_tag')
    validation.validate(schemas.TAG['properties']['name'], name)
    tag = tag_api.tag_create(handler.context(req), namespace, name)
    return handler.respond(tag, status=201)


def show(req, namespace: str, name: str):
    handler.visible_namespace(req, namespace, 'get_metadef_tag')
    return handler.respond(
        tag_api.tag_get(handler.context(req), namespace, name))


def update(req, namespace: str, name: str):
    handler.writable_namespace(req, namespace, 'modify_metadef_tag')
    data = handler.body(req, schemas.TAG)
    tag = tag_api.tag_update(handler.context(req), namespace, name,
                             data['name'])
    return handler.respond(tag)


def delete(req, namespace: str, name: str):
    handler.writable_namespace(req, namespace, 'delete_metadef_tag')
    tag_api.tag_delete(handler.context(req), namespace, name)
    return handler.no_content()


def delete_all(req, namespace: str):
    handler.writable_namespace(req, namespace, 'delete_metadef_tags')
    tag_api.tag_delete_all(handler.context(req), namespace)
    return handler.no_content()


ROUTES = [
    handler.Route('GET', _BASE, index),
    handler.Route('POST', _BASE, create_many),
    handler.Route('PUT', _BASE, create_many),
    handler.Route('DELETE', _BASE, delete_all),
    handler.Route('GET', _BASE + '/{name}', show),
    handler.Route('POST', _BASE + '/{name}', create),
    handler.Route('PUT', _BASE + '/{name}', update),
    handler.Route('DELETE', _BASE + '/{name}', delete),
]
