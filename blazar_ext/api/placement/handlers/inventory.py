"""/resource_providers/{uuid}/inventories[/{resource_class}]."""

from blazar_ext.api.placement import errors
from blazar_ext.api.placement import microversion
from blazar_ext.api.placement.schemas import inventory as schema
from blazar_ext.api.placement import wsgi_util
from blazar_ext.db.api.placement import inventory as inv_api
from blazar_ext import exceptions
from blazar_ext.policies import placement_inventory as rules
from blazar_ext import policy


def _reserved_may_equal(req) -> bool:
    # 1.26: reserved may equal total (a provider fully reserved).
    return microversion.at_least(req, '1.26')


def _bad_class(exc):
    return errors.HTTPError(400, 'Unknown resource class in inventory '
                                 'for resource provider: %s' % exc)


def list_inventories(req, uuid):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.LIST)
    return wsgi_util.json_response(req, inv_api.get_inventories(context,
                                                                uuid))


def show(req, uuid, resource_class):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.SHOW)
    return wsgi_util.json_response(
        req, inv_api.get_inventory(context, uuid, resource_class))


def create(req, uuid):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.CREATE)
    data = wsgi_util.json_body(req, schema.POST)
    name = data.pop('resource_class')
    data.pop('resource_provider_generation', None)
    try:
        inv = inv_api.create_inventory(context, uuid, name, data,
                                       _reserved_may_equal(req))
    except exceptions.ResourceClassNotFound as exc:
        raise _bad_class(exc)
    except exceptions.InventoryExists as exc:
        raise errors.HTTPError(409, 'Update conflict: %s' % exc)
    except exceptions.InvalidProviderRequest as exc:
        raise errors.HTTPError(400, 'Unable to create inventory for '
                                    'resource provider %s: %s' % (uuid, exc))
    return wsgi_util.json_response(
        req, inv, status=201,
        location=wsgi_util.url(req, '/resource_providers/%s/inventories/%s'
                               % (uuid, name)))


def set_all(req, uuid):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.UPDATE)
    data = wsgi_util.json_body(req, schema.PUT_ALL)
    try:
        result = inv_api.set_inventories(
            context, uuid, data['inventories'],
            data['resource_provider_generation'], _reserved_may_equal(req))
    except exceptions.ResourceClassNotFound as exc:
        raise _bad_class(exc)
    return wsgi_util.json_response(req, result)


def update(req, uuid, resource_class):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.UPDATE)
    data = wsgi_util.json_body(req, schema.PUT_ONE)
    generation = data.pop('resource_provider_generation')
    try:
        inv = inv_api.update_inventory(context, uuid, resource_class, data,
                                       generation, _reserved_may_equal(req))
    except exceptions.ResourceClassNotFound as exc:
        raise _bad_class(exc)
    except exceptions.InventoryNotFound:
        raise errors.HTTPError(
            400, 'No inventory record with resource class %s for resource '
                 'provider %s' % (resource_class, uuid))
    except exceptions.InvalidProviderRequest as exc:
        raise errors.HTTPError(400, 'Unable to update inventory for '
                                    'resource provider %s: %s' % (uuid, exc))
    return wsgi_util.json_response(req, inv)


def delete(req, uuid, resource_class):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.DELETE)
    try:
        inv_api.delete_inventory(context, uuid, resource_class)
    except exceptions.InventoryNotFound:
        raise errors.HTTPError(404, 'No inventory of class %s found for '
                                    'delete' % resource_class)
    return wsgi_util.empty_response()


@microversion.version_range('1.5', absent_status=405)
def delete_all(req, uuid):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.DELETE)
    inv_api.delete_inventories(context, uuid)
    return wsgi_util.empty_response()
