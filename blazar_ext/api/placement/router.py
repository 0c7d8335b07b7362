"""The placement URL map, on ``routes`` as upstream Placement does
(through blazar_ext.api.routing, shared with metadefs).

Each path lists the methods it serves; any other method on a known path
is a 405 with an ``Allow`` header naming the ones that exist.
"""

from blazar_ext.api.middleware import metrics
from blazar_ext.api.placement import errors
from blazar_ext.api.placement.handlers import aggregate
from blazar_ext.api.placement.handlers import allocation
from blazar_ext.api.placement.handlers import allocation_candidate
from blazar_ext.api.placement.handlers import inventory
from blazar_ext.api.placement.handlers import provider_trait
from blazar_ext.api.placement.handlers import reshaper
from blazar_ext.api.placement.handlers import resource_class
from blazar_ext.api.placement.handlers import resource_provider
from blazar_ext.api.placement.handlers import root
from blazar_ext.api.placement.handlers import trait
from blazar_ext.api.placement.handlers import usage
from blazar_ext.api import routing

_RP = '/resource_providers/{uuid}'
ROUTES = {
    '': {'GET': root.home},
    '/': {'GET': root.home},
    '/openapi.json': {'GET': root.openapi_document},
    '/resource_providers': {'GET': resource_provider.list_providers,
                            'POST': resource_provider.create},
    _RP: {'GET': resource_provider.show, 'PUT': resource_provider.update,
          'DELETE': resource_provider.delete},
    _RP + '/inventories': {
        'GET': inventory.list_inventories, 'POST': inventory.create,
        'PUT': inventory.set_all, 'DELETE': inventory.delete_all},
    _RP + '/inventories/{resource_class}': {
        'GET': inventory.show, 'PUT': inventory.update,
        'DELETE': inventory.delete},
    _RP + '/usages': {'GET': usage.provider_usages},
    _RP + '/aggregates': {'GET': aggregate.list_aggregates,
                          'PUT': aggregate.set_aggregates},
    _RP + '/allocations': {'GET': allocation.list_for_provider},
    _RP + '/traits': {'GET': provider_trait.list_traits,
                      'PUT': provider_trait.set_traits,
                      'DELETE': provider_trait.delete_traits},
    '/resource_classes': {'GET': resource_class.list_classes,
                          'POST': resource_class.create},
    '/resource_classes/{name}': {
        'GET': resource_class.show, 'PUT': resource_class.update,
        'DELETE': resource_class.delete},
    '/traits': {'GET': trait.list_traits},
    '/traits/{name}': {'GET': trait.show, 'PUT': trait.create,
                       'DELETE': trait.delete},
    '/allocations': {'POST': allocation.set_many},
    '/allocations/{consumer_uuid}': {
        'GET': allocation.show, 'PUT': allocation.set_for_consumer,
        'DELETE': allocation.delete},
    '/usages': {'GET': usage.project_usages},
    '/reshaper': {'POST': reshaper.reshape},
    '/allocation_candidates': {
        'GET': allocation_candidate.list_candidates},
}


def _not_allowed(methods):
    allow = ', '.join(sorted(methods))

    def handler(req, **_):
        raise errors.HTTPError(
            405, 'The method %s is not allowed for this resource.'
            % req.method, allow=allow)
    return handler


def router() -> routing.Router:
    """The placement Router: the table above, Placement's 405."""
    return routing.Router(routing.table(ROUTES), _not_allowed)


def match(placement_router: routing.Router, req):
    """(handler, path variables) for the request; a 404 if none."""
    found = placement_router.match(req.path_info, req.environ)
    if found is None:
        raise errors.HTTPError(404, 'The resource could not be found.')
    handler, variables, template = found
    metrics.set_route(req.environ, template)
    return handler, variables
