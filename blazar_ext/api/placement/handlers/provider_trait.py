"""/resource_providers/{uuid}/traits (1.6)."""

from blazar_ext.api.placement import errors
from blazar_ext.api.placement import microversion
from blazar_ext.api.placement.schemas import trait as schema
from blazar_ext.api.placement import wsgi_util
from blazar_ext.db.api.placement import trait as trait_api
from blazar_ext import exceptions
from blazar_ext.policies import placement_trait as rules
from blazar_ext import policy


@microversion.version_range('1.6')
def list_traits(req, uuid):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.RESOURCE_PROVIDERS_TRAITS_LIST)
    return wsgi_util.json_response(
        req, trait_api.get_provider_traits(context, uuid))


@microversion.version_range('1.6')
def set_traits(req, uuid):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.RESOURCE_PROVIDERS_TRAITS_UPDATE)
    data = wsgi_util.json_body(req, schema.SET_PROVIDER_TRAITS)
    try:
        result = trait_api.set_provider_traits(
            context, uuid, data['traits'],
            data['resource_provider_generation'])
    except exceptions.ConcurrentUpdateDetected:
        raise errors.generation_conflict()
    except exceptions.TraitNotFound as exc:
        # An unknown trait in the body is bad input, not a missing URL.
        raise errors.HTTPError(400, str(exc))
    return wsgi_util.json_response(req, result)


@microversion.version_range('1.6')
def delete_traits(req, uuid):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.RESOURCE_PROVIDERS_TRAITS_DELETE)
    trait_api.delete_provider_traits(context, uuid)
    return wsgi_util.empty_response()
