"""/resource_providers and /resource_providers/{uuid}."""

import json
import re

from blazar_ext.api.placement import errors
from blazar_ext.api.placement import microversion
from blazar_ext.api.placement import query_params
from blazar_ext.api.placement.schemas import query as query_schemas
from blazar_ext.api.placement.schemas import resource_provider as schema
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


_quote = json.encoder.encode_basestring_ascii


# Characters a uuid column may hold that JSON writes as they are.
_PLAIN = re.compile(r'[0-9A-Za-z-]*\Z')


def _list_text(req, providers: list) -> str:
    """The list as JSON text, one format per provider.

    Same document as serialize() for each provider, without the nested
    dicts and lists that made thousands of providers slow to answer.
    Uuids go in as they are when every one is plain (as the API makes
    them); names are always quoted.
    """
    rels = ['self', 'inventories', 'usages']
    for rel, since in (('aggregates', '1.1'), ('traits', '1.6'),
                       ('allocations', '1.11')):
        if microversion.at_least(req, since):
            rels.append(rel)
    prefix = _quote(wsgi_util.url(req, '/resource_providers/'))[1:-1]
    links = ','.join('{"rel":"%s","href":"%s%%s%s"}'
                     % (rel, prefix.replace('%', '%%'),
                        '' if rel == 'self' else '/' + rel)
                     for rel in rels)
    # Positional: the provider's uuid, name, generation, the uuid once
    # per link, then (1.14) parent and root.
    template = '{"uuid":"%%s","name":%%s,"generation":%%d,"links":[%s]' % links
    with_tree = microversion.at_least(req, '1.14')
    if with_tree:
        template += ',"parent_provider_uuid":%s,"root_provider_uuid":"%s"'
    template += '}'
    uuids = [p['uuid'] for p in providers]
    if with_tree:
        uuids += [p['root_provider_uuid'] for p in providers]
        uuids += [p['parent_provider_uuid'] or '' for p in providers]
    if _PLAIN.match(''.join(uuids)):
        escaped = str
    else:
        def escaped(value):
            return _quote(value)[1:-1]
    count = len(rels)
    items = []
    for provider in providers:
        uuid = escaped(provider['uuid'])
        values = (uuid, _quote(provider['name']),
                  provider['generation']) + (uuid,) * count
        if with_tree:
            parent = provider['parent_provider_uuid']
            values += ('null' if parent is None
                       else '"%s"' % escaped(parent),
                       escaped(provider['root_provider_uuid']))
        items.append(template % values)
    return '{"resource_providers":[%s]}' % ','.join(items)


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
    try:
        providers = rp_api.list_providers(context, **filters)
    except (exceptions.TraitNotFound,
            exceptions.InvalidProviderRequest) as exc:
        raise errors.HTTPError(400, 'Invalid query string parameters: '
                               '%s' % exc)
    return wsgi_util.json_response(req, _list_text(req, providers))


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
