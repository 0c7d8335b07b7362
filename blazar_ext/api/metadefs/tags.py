"""/metadefs/namespaces/{namespace}/tags."""

from oslo_utils import strutils

from blazar_ext.api.metadefs import handler
from blazar_ext.api.metadefs import schemas
from blazar_ext.api import routing
from blazar_ext.api import validation
from blazar_ext.db.api.metadefs import tag as tag_api
from blazar_ext import exceptions
from blazar_ext.policies import metadefs as rules

_BASE = '/metadefs/namespaces/{namespace}/tags'


def list_params(req, schema: dict) -> dict:
    """Glance's limit, sort_key and sort_dir of a listing, as ``schema``
    (schemas.TAGS_QUERY, OBJECTS_QUERY) states them; bad ones 400 with
    Glance's messages. Other parameters are ignored, as Glance does."""
    params = req.GET
    declared = schema['properties']
    out = {}
    if 'limit' in params:
        try:
            out['limit'] = int(params['limit'])
        except ValueError:
            raise exceptions.Invalid(
                reason='limit param must be an integer (got %r)'
                       % exceptions.cut(params['limit'], 80))
        if out['limit'] < declared['limit']['minimum']:
            raise exceptions.Invalid(reason='limit param must be positive')
    if 'sort_key' in params:
        sort_keys = declared['sort_key']['enum']
        if params['sort_key'] not in sort_keys:
            raise exceptions.Invalid(
                reason='Invalid sort key: %s. It must be one of the '
                       'following: %s.' % (exceptions.cut(
                           params['sort_key'], 80), ', '.join(sort_keys)))
        out['sort_key'] = params['sort_key']
    if 'sort_dir' in params:
        if params['sort_dir'] not in declared['sort_dir']['enum']:
            raise exceptions.Invalid(
                reason='Invalid sort direction: %s' % exceptions.cut(
                    params['sort_dir'], 80))
        out['sort_dir'] = params['sort_dir']
    return out


def index(req, namespace: str):
    handler.visible_namespace(req, namespace, rules.GET_TAGS)
    tags = tag_api.tag_list(handler.context(req), namespace,
                            **list_params(req, schemas.TAGS_QUERY))
    return handler.respond({'tags': tags})


def create_many(req, namespace: str):
    """POST (or PUT) .../tags {"tags": [{"name": ...}]}.

    The tags replace the namespace's tags unless X-Openstack-Append is
    true, in which case they are added.
    """
    handler.writable_namespace(req, namespace, rules.ADD_TAGS)
    data = handler.body(req, schemas.TAGS_REQUEST)
    append = strutils.bool_from_string(
        req.headers.get('X-Openstack-Append', 'false'))
    names = [t['name'] for t in data['tags']]
    tags = tag_api.tag_create_many(handler.context(req), namespace, names,
                                   append=append)
    return handler.respond({'tags': tags}, status=201)


def create(req, namespace: str, name: str):
    handler.writable_namespace(req, namespace, rules.ADD_TAG)
    validation.validate(schemas.TAG['properties']['name'], name)
    tag = tag_api.tag_create(handler.context(req), namespace, name)
    return handler.respond(tag, status=201)


def show(req, namespace: str, name: str):
    handler.visible_namespace(req, namespace, rules.GET_TAG)
    return handler.respond(
        tag_api.tag_get(handler.context(req), namespace, name))


def update(req, namespace: str, name: str):
    handler.writable_namespace(req, namespace, rules.MODIFY_TAG)
    data = handler.body(req, schemas.TAG)
    tag = tag_api.tag_update(handler.context(req), namespace, name,
                             data['name'])
    return handler.respond(tag)


def delete(req, namespace: str, name: str):
    handler.writable_namespace(req, namespace, rules.DELETE_TAG)
    tag_api.tag_delete(handler.context(req), namespace, name)
    return handler.no_content()


def delete_all(req, namespace: str):
    handler.writable_namespace(req, namespace, rules.DELETE_TAGS)
    tag_api.tag_delete_all(handler.context(req), namespace)
    return handler.no_content()


ROUTES = [
    routing.Route('GET', _BASE, index),
    routing.Route('POST', _BASE, create_many),
    routing.Route('PUT', _BASE, create_many),
    routing.Route('DELETE', _BASE, delete_all),
    routing.Route('GET', _BASE + '/{name}', show),
    routing.Route('POST', _BASE + '/{name}', create),
    routing.Route('PUT', _BASE + '/{name}', update),
    routing.Route('DELETE', _BASE + '/{name}', delete),
]
