"""GET /allocation_candidates (1.10)."""

import re

from blazar_ext.api.placement import microversion
from blazar_ext.api.placement import query_params
from blazar_ext.api.placement import wsgi_util
from blazar_ext.db.api.placement import allocation_candidate as ac_api
from blazar_ext import exceptions
from blazar_ext.policies import placement_allocation_candidate as rules
from blazar_ext import policy

PARAMS = {'resources': '1.10', 'limit': '1.16', 'required': '1.17',
          'member_of': '1.21', 'group_policy': '1.25', 'in_tree': '1.31',
          'root_required': '1.35'}


def _limit(value: str) -> int:
    if not re.fullmatch('[1-9][0-9]*', value):
        raise wsgi_util.HTTPError(
            400, "Invalid query string parameters: '%s' does not match "
                 "'^[1-9][0-9]*$' (limit)" % value)
    # More than any database holds is no limit; SQL takes 64 bits at most.
    return min(int(value), 2 ** 31 - 1)


def _requests(req, candidates: list, resources: dict) -> list:
    if microversion.at_least(req, '1.12'):
        out = [{'allocations': {uuid: {'resources': dict(resources)}}}
               for uuid in candidates]
        if microversion.at_least(req, '1.34'):
            for entry, uuid in zip(out, candidates):
                entry['mappings'] = {'': [uuid]}
        return out
    return [{'allocations': [{'resource_provider': {'uuid': uuid},
                              'resources': dict(resources)}]}
            for uuid in candidates]


def _summaries(req, summaries: dict, resources: dict) -> dict:
    every_class = microversion.at_least(req, '1.27')
    out = {}
    for uuid, summary in summaries.items():
        entry = {'resources': {
            name: value for name, value in summary['resources'].items()
            if every_class or name in resources}}
        if microversion.at_least(req, '1.17'):
            entry['traits'] = summary['traits']
        if microversion.at_least(req, '1.29'):
            entry['parent_provider_uuid'] = summary['parent_provider_uuid']
            entry['root_provider_uuid'] = summary['root_provider_uuid']
        out[uuid] = entry
    return out


@microversion.version_range('1.10')
def list_candidates(req):
    """Providers that alone can satisfy the request, best first."""
    context = wsgi_util.context(req)
    policy.authorize(context, rules.LIST)
    params = wsgi_util.query(req, PARAMS)
    if 'resources' not in params:
        raise wsgi_util.HTTPError(
            400, "Invalid query string parameters: 'resources' is a "
                 "required property")
    resources = query_params.resources(params['resources'])
    filters = {'resources': resources}
    if 'limit' in params:
        filters['limit'] = _limit(params['limit'])
    if 'required' in params:
        filters['required'] = query_params.required(req, params['required'])
    if 'root_required' in params:
        filters['root_required'] = query_params.required(
            req, params['root_required'], 'root_required')
    if 'member_of' in params:
        filters['member_of'], filters['forbidden_aggregates'] = (
            query_params.member_of(req, params['member_of']))
    if 'in_tree' in params:
        filters['in_tree'] = query_params.uuid(params['in_tree'], 'in_tree')
    try:
        result = ac_api.get_candidates(context, **filters)
    except (exceptions.TraitNotFound,
            exceptions.InvalidProviderRequest) as exc:
        raise wsgi_util.HTTPError(400, 'Invalid query string parameters: '
                                  '%s' % exc)
    return wsgi_util.json_response(req, {
        'allocation_requests': _requests(req, result['candidates'],
                                         resources),
        'provider_summaries': _summaries(req, result['summaries'],
                                         resources)})
