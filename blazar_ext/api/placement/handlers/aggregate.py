"""/resource_providers/{uuid}/aggregates (1.1; generations from 1.19)."""

from blazar_ext.api.placement import errors
from blazar_ext.api.placement import microversion
from blazar_ext.api.placement.schemas import aggregate as schema
from blazar_ext.api.placement import wsgi_util
from blazar_ext.db.api.placement import aggregate as agg_api
from blazar_ext.db.api.placement import provider_base
from blazar_ext import exceptions
from blazar_ext.policies import placement_aggregate as rules
from blazar_ext import policy


def _serialize(req, result: dict) -> dict:
    if microversion.at_least(req, '1.19'):
        return result
    return {'aggregates': result['aggregates']}


@microversion.version_range('1.1')
def list_aggregates(req, uuid):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.LIST)
    return wsgi_util.json_response(
        req, _serialize(req, agg_api.get_aggregates(context, uuid)))


@microversion.version_range('1.1')
def set_aggregates(req, uuid):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.UPDATE)
    # An unknown provider is a 404 whatever the body, as in Placement.
    provider_base.check_exists(context, uuid)
    if microversion.at_least(req, '1.19'):
        data = wsgi_util.json_body(req, schema.PUT_1_19)
        try:
            result = agg_api.set_aggregates(
                context, uuid, data['aggregates'],
                data['resource_provider_generation'])
        except exceptions.ConcurrentUpdateDetected:
            raise errors.generation_conflict()
    else:
        data = wsgi_util.json_body(req, schema.PUT)
        result = agg_api.set_aggregates(context, uuid, data)
    return wsgi_util.json_response(req, _serialize(req, result))
