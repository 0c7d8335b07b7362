"""/resource_providers/{uuid}/usages and /usages (1.9)."""

from blazar_ext.api.placement import microversion
from blazar_ext.api.placement.schemas import query as query_schemas
from blazar_ext.api.placement import wsgi_util
from blazar_ext.db.api.placement import usage as usage_api
from blazar_ext.policies import placement_usage as rules
from blazar_ext import policy


def provider_usages(req, uuid):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.RESOURCE_PROVIDERS_USAGES)
    return wsgi_util.json_response(req, usage_api.provider_usages(context,
                                                                  uuid))


@microversion.version_range('1.9')
def project_usages(req):
    context = wsgi_util.context(req)
    params = wsgi_util.query(req, query_schemas.USAGES_QUERY)
    policy.authorize(context, rules.USAGES,
                     {'project_id': params['project_id']})
    by_type = usage_api.project_usages(
        context, params['project_id'], params.get('user_id'),
        params.get('consumer_type'))
    if microversion.at_least(req, '1.38'):
        return wsgi_util.json_response(req, {'usages': by_type})
    totals = {}
    for usages in by_type.values():
        for name, used in usages.items():
            if name != 'consumer_count':
                totals[name] = totals.get(name, 0) + used
    return wsgi_util.json_response(req, {'usages': totals})
