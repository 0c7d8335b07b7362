"""/allocations/{consumer_uuid}, POST /allocations (1.13), and
/resource_providers/{uuid}/allocations."""

from oslo_config import cfg

from blazar_ext.api.placement import errors
from blazar_ext.api.placement import microversion
from blazar_ext.api.placement import query_params
from blazar_ext.api.placement.schemas import allocation as schema
from blazar_ext.api.placement import wsgi_util
from blazar_ext.db.api.placement import allocation as alloc_api
from blazar_ext.policies import placement_allocation as rules
from blazar_ext import policy

CONF = cfg.CONF


def put_schema(req) -> dict:
    for version, body in (('1.38', schema.PUT_1_38),
                          ('1.34', schema.PUT_1_34),
                          ('1.28', schema.PUT_1_28),
                          ('1.12', schema.PUT_DICT),
                          ('1.8', schema.PUT_LIST_1_8)):
        if microversion.at_least(req, version):
            return body
    return schema.PUT_LIST


def request(req, context, data: dict) -> dict:
    """A PUT body of any version in the db layer's terms.

    Before 1.8 a body names no project or user: the consumer gets
    [placement_api] incomplete_consumer_project_id and _user_id, as
    Placement records them.
    """
    allocations = data['allocations']
    if isinstance(allocations, list):
        allocations = {a['resource_provider']['uuid']: a for a in
                       allocations}
    if data.get('project_id') is None:
        project_id = CONF.placement_api.incomplete_consumer_project_id
        user_id = CONF.placement_api.incomplete_consumer_user_id
    else:
        project_id, user_id = data['project_id'], data['user_id']
    return {
        'allocations': {wsgi_util.canonical_uuid(uuid): dict(a['resources'])
                        for uuid, a in allocations.items()},
        'project_id': project_id,
        'user_id': user_id,
        'consumer_generation': data.get('consumer_generation'),
        'check_generation': microversion.at_least(req, '1.28'),
        'consumer_type': data.get('consumer_type'),
    }


def _consumer(consumer_uuid: str) -> str:
    if not query_params.is_uuid(consumer_uuid):
        raise errors.HTTPError(
            400, 'Malformed consumer_uuid: %r is not a UUID.' % consumer_uuid)
    # A dashless uuid names the same consumer, as in Placement.
    return wsgi_util.canonical_uuid(consumer_uuid)


def show(req, consumer_uuid):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.ALLOCATIONS_LIST)
    consumer_uuid = _consumer(consumer_uuid)
    result = alloc_api.get_consumer_allocations(context, consumer_uuid)
    body = {'allocations': result['allocations']}
    if microversion.at_least(req, '1.12') and result['allocations']:
        body['project_id'] = result['project_id']
        body['user_id'] = result['user_id']
    if microversion.at_least(req, '1.28') and result['allocations']:
        body['consumer_generation'] = result['consumer_generation']
    if microversion.at_least(req, '1.38') and result['allocations']:
        body['consumer_type'] = result['consumer_type'] or 'unknown'
    return wsgi_util.json_response(req, body)


def set_for_consumer(req, consumer_uuid):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.ALLOCATIONS_UPDATE)
    consumer_uuid = _consumer(consumer_uuid)
    data = wsgi_util.json_body(req, put_schema(req))
    alloc_api.replace_allocations(
        context, {consumer_uuid: request(req, context, data)})
    return wsgi_util.empty_response()


@microversion.version_range('1.13')
def set_many(req):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.ALLOCATIONS_MANAGE)
    data = wsgi_util.json_body(req, schema.post_many(put_schema(req)))
    alloc_api.replace_allocations(context, {
        wsgi_util.canonical_uuid(uuid): request(req, context, body)
        for uuid, body in data.items()})
    return wsgi_util.empty_response()


def delete(req, consumer_uuid):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.ALLOCATIONS_DELETE)
    consumer_uuid = _consumer(consumer_uuid)
    alloc_api.delete_allocations(context, consumer_uuid)
    return wsgi_util.empty_response()


def list_for_provider(req, uuid):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.RESOURCE_PROVIDERS_ALLOCATIONS_LIST)
    return wsgi_util.json_response(
        req, alloc_api.get_provider_allocations(context, uuid))
