"""/resource_providers and /resource_providers/{uuid}."""

import re

from blazar_ext.api import gc_pause
from blazar_ext.api.placement import errors
from blazar_ext.api.placement import microversion
from blazar_ext.api.placement import query_params
from blazar_ext.api.placement.schemas import query as query_schemas
from blazar_ext.api.placement.schemas import resource_provider as schema
from blazar_ext.api.placement import text_columns
from blazar_ext.api.placement import wsgi_util
from blazar_ext.db.api.placement import resource_provider as rp_api
from blazar_ext import exceptions
from blazar_ext.policies import placement_resource_provider as rules
from blazar_ext import policy


def serialize(req, provider: dict) -> dict:
    """A provider as Placement shows it at the request's microversion."""
    base = wsgi_util.url(req, '/resource_providers/%s' % provider['uuid'])
    links = [('self', base), ('inventories', base + '/inventories'),
             ('usages', base + '/usages')]
    if microversion.at_least(req, '1.1'):
        links.append(('aggregates', base + '/aggregates'))
    if microversion.at_least(req, '1.6'):
        links.append(('traits', base + '/traits'))
    if microversion.at_least(req, '1.11'):
        links.append(('allocations', base + '/allocations'))
    body = {'uuid': provider['uuid'], 'name': provider['name'],
            'generation': provider['generation'],
            'links': [{'rel': rel, 'href': href} for rel, href in links]}
    if microversion.at_least(req, '1.14'):
        body['parent_provider_uuid'] = provider['parent_provider_uuid']
        body['root_provider_uuid'] = provider['root_provider_uuid']
    return body


# Characters a uuid column may hold that JSON writes as they are.
_PLAIN = re.compile(r'[0-9A-Za-z-]*\Z')


def _in_string(uuids) -> list:
    """Uuids as they go inside a JSON string: as they are when every one
    is plain (as the API makes them), else escaped."""
    uuids = list(uuids)
    if _PLAIN.match(''.join(uuids)):
        return uuids
    return [text_columns.quote(u)[1:-1] for u in uuids]


def _list_text(req, providers: rp_api.ProviderColumns) -> text_columns.Body:
    """The list as JSON text, written column by column (text_columns).

    Same document as serialize() for each provider, without the nested
    dicts and lists, or a format per provider, that made thousands slow
    to answer.
    """
    uuids, names, generations, parents, roots = providers
    # Most providers are roots: their root column is their uuid column.
    roots_are_uuids = roots == uuids
    uuids = _in_string(uuids)
    roots = uuids if roots_are_uuids else _in_string(roots)
    prefix = text_columns.quote(
        wsgi_util.url(req, '/resource_providers/'))[1:-1]
    pieces = ['{"uuid":"', uuids, '","name":', text_columns.quoted(names),
              ',"generation":', list(map(str, generations)),
              ',"links":[{"rel":"self","href":"' + prefix, uuids]
    for rel, since in (('inventories', '1.0'), ('usages', '1.0'),
                       ('aggregates', '1.1'), ('traits', '1.6'),
                       ('allocations', '1.11')):
        if microversion.at_least(req, since):
            pieces += ['"},{"rel":"%s","href":"%s' % (rel, prefix), uuids,
                       '/' + rel]
    if microversion.at_least(req, '1.14'):
        pieces += ['"}],"parent_provider_uuid":', text_columns.nullable(
            parents), ',"root_provider_uuid":"', roots, '"}']
    else:
        pieces.append('"}]}')
    return text_columns.document(
        '{"resource_providers":[', text_columns.Items(pieces, len(uuids)),
        ']}')


def list_providers(req):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.LIST)
    params = wsgi_util.query(req, query_schemas.RESOURCE_PROVIDERS_QUERY)
    filters = {'name': params.get('name'), 'uuid': params.get('uuid'),
               'in_tree': params.get('in_tree')}
    if 'member_of' in params:
        filters['member_of'], filters['forbidden_aggregates'] = (
            query_params.member_of(req, req.GET.getall('member_of')))
    if 'resources' in params:
        filters['resources'] = query_params.resources(params['resources'])
    if 'required' in params:
        filters['required'] = query_params.traits(req, 'required')
    # Thousands of rows and columns, none garbage until the answer is
    # written: no full collection walks the process meanwhile.
    with gc_pause.paused():
        try:
            providers = rp_api.list_providers(context, **filters)
        except (exceptions.TraitNotFound,
                exceptions.InvalidProviderRequest) as exc:
            raise errors.HTTPError(400, 'Invalid query string parameters: '
                                   '%s' % exc)
        body = _list_text(req, providers)
    return wsgi_util.json_response(req, body)


def create(req):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.CREATE)
    data = wsgi_util.json_body(
        req, schema.POST_1_14 if microversion.at_least(req, '1.14')
        else schema.POST)
    rp_uuid = wsgi_util.canonical_uuid(data.get('uuid'))
    parent = wsgi_util.canonical_uuid(data.get('parent_provider_uuid'))
    if rp_uuid is not None and rp_uuid == parent:
        raise errors.HTTPError(
            400, 'Unable to create resource provider "%s", %s: parent '
                 'provider UUID cannot be same as UUID. Please choose a '
                 'different parent provider UUID.' % (data['name'], rp_uuid))
    provider = rp_api.create(context, data['name'], rp_uuid, parent)
    location = wsgi_util.url(req, '/resource_providers/%s'
                             % provider['uuid'])
    if microversion.at_least(req, '1.20'):
        return wsgi_util.json_response(req, serialize(req, provider),
                                       location=location)
    return wsgi_util.empty_response(201, location=location)


def show(req, uuid):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.SHOW)
    return wsgi_util.json_response(req, serialize(req, rp_api.get(
        context, uuid)))


def update(req, uuid):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.UPDATE)
    nested = microversion.at_least(req, '1.14')
    data = wsgi_util.json_body(req, schema.PUT_1_14 if nested
                               else schema.PUT)
    if (nested and data.get('parent_provider_uuid', 1) is None
            and not microversion.at_least(req, '1.37')):
        current = rp_api.get(context, uuid)
        if current['parent_provider_uuid'] is not None:
            raise errors.HTTPError(
                400, 'Unable to save resource provider %s: Object action '
                     'update failed because: un-parenting a provider is not '
                     'currently allowed.' % uuid)
    provider = rp_api.update(
        context, uuid, data['name'],
        wsgi_util.canonical_uuid(data.get('parent_provider_uuid')),
        set_parent=nested and 'parent_provider_uuid' in data,
        allow_reparent=microversion.at_least(req, '1.37'))
    return wsgi_util.json_response(req, serialize(req, provider))


def delete(req, uuid):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.DELETE)
    try:
        rp_api.delete(context, uuid)
    except exceptions.ResourceProviderNotFound:
        raise errors.HTTPError(404, 'No resource provider with uuid %s '
                                    'found for delete' % uuid)
    return wsgi_util.empty_response()
