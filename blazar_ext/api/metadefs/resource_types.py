"""/metadefs/resource_types and a namespace's resource type associations."""

from blazar_ext.api.metadefs import handler
from blazar_ext.api.metadefs import schemas
from blazar_ext.api import routing
from blazar_ext.db.api.metadefs import resource_type as rt_api
from blazar_ext.policies import metadefs as rules
from blazar_ext import policy

_BASE = '/metadefs/namespaces/{namespace}/resource_types'


def index(req):
    """GET /metadefs/resource_types: every known resource type."""
    ctx = handler.context(req)
    policy.authorize(ctx, rules.LIST_RESOURCE_TYPES)
    return handler.respond({'resource_types': rt_api.resource_type_list(ctx)})


def associations(req, namespace: str):
    # As Glance: list_metadef_resource_types decides whether the list may
    # be read, get_metadef_resource_type which associations show.
    ns = handler.visible_namespace(req, namespace,
                                   rules.LIST_RESOURCE_TYPES)
    shown = (rt_api.association_list(handler.context(req), namespace)
             if handler.allowed(req, ns, rules.GET_RESOURCE_TYPE) else [])
    return handler.respond({'resource_type_associations': shown})


def associate(req, namespace: str):
    handler.writable_namespace(req, namespace,
                               rules.ADD_RESOURCE_TYPE_ASSOCIATION)
    data = handler.strip_read_only(handler.body(req, schemas.RESOURCE_TYPE))
    assoc = rt_api.associate(handler.context(req), namespace, data)
    return handler.respond(assoc, status=201)


def deassociate(req, namespace: str, name: str):
    handler.writable_namespace(req, namespace,
                               rules.REMOVE_RESOURCE_TYPE_ASSOCIATION)
    rt_api.deassociate(handler.context(req), namespace, name)
    return handler.no_content()


ROUTES = [
    routing.Route('GET', '/metadefs/resource_types', index),
    routing.Route('GET', _BASE, associations),
    routing.Route('POST', _BASE, associate),
    routing.Route('DELETE', _BASE + '/{name}', deassociate),
]
