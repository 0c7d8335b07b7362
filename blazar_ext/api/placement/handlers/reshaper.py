"""POST /reshaper (1.30): move inventories and allocations atomically."""

from blazar_ext.api.placement import error_codes
from blazar_ext.api.placement import errors
from blazar_ext.api.placement.handlers import allocation
from blazar_ext.api.placement import microversion
from blazar_ext.api.placement.schemas import reshaper as schema
from blazar_ext.api.placement import wsgi_util
from blazar_ext.db.api.placement import allocation as alloc_api
from blazar_ext.db.api.placement import reshaper as reshaper_api
from blazar_ext import exceptions
from blazar_ext.policies import placement_reshaper as rules
from blazar_ext import policy


@microversion.version_range('1.30')
def reshape(req):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.RESHAPE)
    data = wsgi_util.json_body(req, schema.post(allocation.put_schema(req)))
    inventories = {
        wsgi_util.canonical_uuid(uuid): (
            body['resource_provider_generation'], body['inventories'])
        for uuid, body in data['inventories'].items()}
    allocations = {
        wsgi_util.canonical_uuid(uuid): allocation.request(req, context,
                                                           body)
        for uuid, body in data['allocations'].items()}
    try:
        reshaper_api.reshape(context, inventories, allocations)
    except exceptions.ResourceProviderNotFound as exc:
        raise errors.HTTPError(
            400, 'Resource provider %s in inventories not found: %s'
            % (exc.kwargs.get('uuid'), exc),
            error_codes.RESOURCE_PROVIDER_NOT_FOUND)
    except reshaper_api.GenerationMismatch as exc:
        raise errors.HTTPError(409, str(exc), error_codes.CONCURRENT_UPDATE)
    except exceptions.ConcurrentUpdateDetected as exc:
        raise errors.HTTPError(409, 'update conflict: %s' % exc,
                               error_codes.CONCURRENT_UPDATE)
    except exceptions.InventoryInUse as exc:
        raise errors.HTTPError(409, 'update conflict: %s' % exc,
                               error_codes.INVENTORY_INUSE)
    except alloc_api.ConstraintViolated as exc:
        raise errors.HTTPError(409, str(exc))
    except (exceptions.ResourceClassNotFound,
            exceptions.InvalidProviderRequest) as exc:
        raise errors.HTTPError(400, 'malformed reshaper data: %s' % exc)
    return wsgi_util.empty_response()
