"""The placement family's OpenAPI 3.1 document (blazar_ext.api.openapi).

One document for every microversion (1.0 to 1.39). Request bodies and
query strings are the schemas the handlers validate with; where a
microversion changed one, the request schema is an ``anyOf`` of every
version's shape and the operation's notes say which version takes which.
Response schemas accept every version's shape; the notes say which
fields appear from which version. Served at ``GET /placement/openapi.json``
(``/openapi.json`` on blazar-ext-placement-api) without a token.
"""

import copy
import dataclasses
import functools

from blazar_ext.api import openapi
from blazar_ext.api.placement import microversion
from blazar_ext.api.placement.schemas import aggregate
from blazar_ext.api.placement.schemas import allocation
from blazar_ext.api.placement.schemas import inventory
from blazar_ext.api.placement.schemas import query
from blazar_ext.api.placement.schemas import reshaper
from blazar_ext.api.placement.schemas import resource_class
from blazar_ext.api.placement.schemas import resource_provider
from blazar_ext.api.placement.schemas import trait

SERVER = '/placement'


def _object(properties: dict, required=None, **extra) -> dict:
    """A closed object: exactly these properties, ``required`` (all when
    None) among them."""
    return {'type': 'object', 'properties': properties,
            'required': list(properties) if required is None else required,
            'additionalProperties': False, **extra}


def _map(values: dict, keys: str = '^[A-Z0-9_]+$') -> dict:
    """An object whose keys match ``keys`` and whose values are ``values``."""
    return {'type': 'object', 'patternProperties': {keys: values},
            'additionalProperties': False}


_STRING = {'type': 'string'}
_INT = {'type': 'integer'}
_UUID = {'type': 'string', 'format': 'uuid'}
_NULLABLE_UUID = {'type': ['string', 'null'], 'format': 'uuid'}
_GENERATION = {'resource_provider_generation': _INT}
_LINKS = {'type': 'array', 'items': _object({'rel': _STRING,
                                             'href': _STRING})}
_CLASS_AMOUNTS = _map(_INT)

# Response bodies.
VERSIONS = _object({'versions': {'type': 'array', 'minItems': 1, 'items':
                    _object({'id': _STRING, 'min_version': _STRING,
                             'max_version': _STRING, 'status': _STRING,
                             'links': _LINKS})}})
DOCUMENT = {'type': 'object',
            'required': ['openapi', 'info', 'servers', 'paths',
                         'components'],
            'properties': {'openapi': {'const': openapi.OPENAPI_VERSION},
                           'info': {'type': 'object',
                                    'required': ['title', 'version']},
                           'servers': {'type': 'array', 'minItems': 1,
                                       'items': _object({'url': _STRING})},
                           'paths': {'type': 'object'},
                           'components': {'type': 'object'}}}
PROVIDER = _object(
    {'uuid': _UUID, 'name': _STRING, 'generation': _INT, 'links': _LINKS,
     'parent_provider_uuid': _NULLABLE_UUID, 'root_provider_uuid': _UUID},
    required=['uuid', 'name', 'generation', 'links'])
PROVIDERS = _object({'resource_providers': {'type': 'array',
                                            'items': PROVIDER}})
_INVENTORY_FIELDS = {'total': _INT, 'reserved': _INT, 'min_unit': _INT,
                     'max_unit': _INT, 'step_size': _INT,
                     'allocation_ratio': {'type': 'number'}}
INVENTORIES = _object({'inventories': _map(_object(_INVENTORY_FIELDS)),
                       **_GENERATION})
INVENTORY = _object({**_INVENTORY_FIELDS, **_GENERATION})
PROVIDER_USAGES = _object({'usages': _CLASS_AMOUNTS, **_GENERATION})
AGGREGATES = _object({'aggregates': {'type': 'array', 'items': _UUID,
                                     'uniqueItems': True}, **_GENERATION},
                     required=['aggregates'])
PROVIDER_ALLOCATIONS = _object({
    'allocations': _map(_object({'resources': _CLASS_AMOUNTS}), '.'),
    **_GENERATION})
PROVIDER_TRAITS = _object({'traits': {'type': 'array', 'items': _STRING},
                           **_GENERATION})
RESOURCE_CLASS = _object({'name': _STRING, 'links': _LINKS})
RESOURCE_CLASSES = _object({'resource_classes': {'type': 'array',
                                                 'items': RESOURCE_CLASS}})
TRAITS = _object({'traits': {'type': 'array', 'items': _STRING}})
CONSUMER_ALLOCATIONS = _object(
    {'allocations': _map(_object({'generation': _INT,
                                  'resources': _CLASS_AMOUNTS}), '.'),
     'project_id': _STRING, 'user_id': _STRING,
     'consumer_generation': {'type': ['integer', 'null']},
     'consumer_type': _STRING},
    required=['allocations'])
USAGES = _object({'usages': {'anyOf': [
    _CLASS_AMOUNTS,
    _map(_object({'consumer_count': _INT},
                 additionalProperties=_INT), '.')]}})
_REQUEST_LIST = {'type': 'array', 'items': _object({
    'resource_provider': _object({'uuid': _UUID}),
    'resources': _CLASS_AMOUNTS})}
_REQUEST_DICT = _map(_object({'resources': _CLASS_AMOUNTS}), '.')
ALLOCATION_CANDIDATES = _object({
    'allocation_requests': {'type': 'array', 'items': _object(
        {'allocations': {'anyOf': [_REQUEST_LIST, _REQUEST_DICT]},
         'mappings': _map({'type': 'array', 'items': _UUID},
                          '^[a-zA-Z0-9_-]{0,64}$')},
        required=['allocations'])},
    'provider_summaries': _map(_object(
        {'resources': _map(_object({'capacity': _INT, 'used': _INT})),
         'traits': {'type': 'array', 'items': _STRING},
         'parent_provider_uuid': _NULLABLE_UUID,
         'root_provider_uuid': _UUID},
        required=['resources']), '.')})

ERROR = _object({'errors': {'type': 'array', 'minItems': 1, 'items': {
    'type': 'object',
    'properties': {'status': _INT, 'title': _STRING, 'detail': _STRING,
                   'code': _STRING,
                   'request_id': {'type': ['string', 'null']},
                   'min_version': _STRING, 'max_version': _STRING},
    'required': ['status', 'title', 'detail'],
    'additionalProperties': False}}})
# Authentication's own answers (keystonemiddleware's shape, and the same
# from noauth): before the request reaches the family.
AUTH_ERROR = _object({'error': _object({'code': _INT, 'title': _STRING,
                                        'message': _STRING})})


def _newest(versions: dict) -> dict:
    """The newest of a {first microversion: query schema} table."""
    return versions[max(versions, key=lambda v: tuple(map(int,
                                                          v.split('.'))))]


def _any_of(*schemas) -> dict:
    return {'anyOf': list(schemas)}


_PUT_ALLOCATIONS = (allocation.PUT_LIST, allocation.PUT_LIST_1_8,
                    allocation.PUT_DICT, allocation.PUT_1_28,
                    allocation.PUT_1_34, allocation.PUT_1_38)
_PUT_ALLOCATIONS_NOTES = (
    'Body by microversion: 1.0-1.7 a list of {resource_provider, '
    'resources}; 1.8 adds required project_id and user_id; 1.12 a dict '
    'keyed by provider uuid; 1.28 consumer_generation (required) and '
    'empty allocations; 1.34 optional mappings; 1.38 consumer_type '
    '(required). The body must match its version\'s shape, one of the '
    'anyOf entries.')
_SINCE = 'Since microversion %s.'
_RP_LINKS = ('Provider links: self, inventories, usages; aggregates from '
             '1.1, traits from 1.6, allocations from 1.11. '
             'parent_provider_uuid and root_provider_uuid from 1.14.')
_GEN_NOTES = 'resource_provider_generation is in the body from 1.19.'


def _providers() -> dict:
    return {
        ('GET', '/resource_providers'): openapi.Operation(
            'List resource providers.', {200: PROVIDERS},
            query=_newest(query.RESOURCE_PROVIDERS_QUERY),
            notes='Query: member_of from 1.3, resources from 1.4, in_tree '
                  'from 1.14, required from 1.18 (forbidden traits from '
                  '1.22, any-of from 1.39). ' + _RP_LINKS),
        ('POST', '/resource_providers'): openapi.Operation(
            'Create a resource provider.', {200: PROVIDER, 201: None},
            request=_any_of(resource_provider.POST,
                            resource_provider.POST_1_14),
            notes='201 without a body before 1.20, 200 with the provider '
                  'from 1.20. parent_provider_uuid in the body from 1.14. '
                  + _RP_LINKS),
        ('GET', '/resource_providers/{uuid}'): openapi.Operation(
            'Show a resource provider.', {200: PROVIDER}, notes=_RP_LINKS),
        ('PUT', '/resource_providers/{uuid}'): openapi.Operation(
            'Update a resource provider.', {200: PROVIDER},
            request=_any_of(resource_provider.PUT,
                            resource_provider.PUT_1_14),
            notes='parent_provider_uuid in the body from 1.14; re-parenting '
                  'and un-parenting from 1.37. ' + _RP_LINKS),
        ('DELETE', '/resource_providers/{uuid}'): openapi.Operation(
            'Delete a resource provider.', {204: None}),
    }


def _inventories() -> dict:
    rp = '/resource_providers/{uuid}/inventories'
    return {
        ('GET', rp): openapi.Operation(
            'List a provider\'s inventories.', {200: INVENTORIES}),
        ('POST', rp): openapi.Operation(
            'Add one inventory.', {201: INVENTORY}, request=inventory.POST,
            notes='reserved may equal total from 1.26.'),
        ('PUT', rp): openapi.Operation(
            'Replace every inventory.', {200: INVENTORIES},
            request=inventory.PUT_ALL,
            notes='reserved may equal total from 1.26.'),
        ('DELETE', rp): openapi.Operation(
            'Delete every inventory.', {204: None}, notes=_SINCE % '1.5'),
        ('GET', rp + '/{resource_class}'): openapi.Operation(
            'Show one inventory.', {200: INVENTORY}),
        ('PUT', rp + '/{resource_class}'): openapi.Operation(
            'Update one inventory.', {200: INVENTORY},
            request=inventory.PUT_ONE,
            notes='reserved may equal total from 1.26.'),
        ('DELETE', rp + '/{resource_class}'): openapi.Operation(
            'Delete one inventory.', {204: None}),
    }


def _provider_parts() -> dict:
    rp = '/resource_providers/{uuid}'
    return {
        ('GET', rp + '/usages'): openapi.Operation(
            'A provider\'s usages.', {200: PROVIDER_USAGES}),
        ('GET', rp + '/aggregates'): openapi.Operation(
            'A provider\'s aggregates.', {200: AGGREGATES},
            notes=_SINCE % '1.1' + ' ' + _GEN_NOTES),
        ('PUT', rp + '/aggregates'): openapi.Operation(
            'Set a provider\'s aggregates.', {200: AGGREGATES},
            request=_any_of(aggregate.PUT, aggregate.PUT_1_19),
            notes=(_SINCE % '1.1' + ' The body is a list of aggregate '
                   'uuids before 1.19, an object with the provider '
                   'generation from 1.19. ' + _GEN_NOTES)),
        ('GET', rp + '/allocations'): openapi.Operation(
            'The allocations against a provider.',
            {200: PROVIDER_ALLOCATIONS}),
        ('GET', rp + '/traits'): openapi.Operation(
            'A provider\'s traits.', {200: PROVIDER_TRAITS},
            notes=_SINCE % '1.6'),
        ('PUT', rp + '/traits'): openapi.Operation(
            'Set a provider\'s traits.', {200: PROVIDER_TRAITS},
            request=trait.SET_PROVIDER_TRAITS, notes=_SINCE % '1.6'),
        ('DELETE', rp + '/traits'): openapi.Operation(
            'Remove every trait of a provider.', {204: None},
            notes=_SINCE % '1.6'),
    }


def _classes_and_traits() -> dict:
    return {
        ('GET', '/resource_classes'): openapi.Operation(
            'List resource classes.', {200: RESOURCE_CLASSES},
            notes=_SINCE % '1.2'),
        ('POST', '/resource_classes'): openapi.Operation(
            'Create a custom resource class.', {201: None},
            request=resource_class.POST, notes=_SINCE % '1.2'),
        ('GET', '/resource_classes/{name}'): openapi.Operation(
            'Show a resource class.', {200: RESOURCE_CLASS},
            notes=_SINCE % '1.2'),
        ('PUT', '/resource_classes/{name}'): openapi.Operation(
            'Rename (1.2-1.6) or create-or-check (1.7) a custom class.',
            {200: RESOURCE_CLASS, 201: None, 204: None},
            request=resource_class.POST,
            notes='1.2-1.6: the body names the new name, the answer is '
                  'the renamed class (200). From 1.7: no body, the path\'s '
                  'name is created (201) or already exists (204).'),
        ('DELETE', '/resource_classes/{name}'): openapi.Operation(
            'Delete a custom resource class.', {204: None},
            notes=_SINCE % '1.2'),
        ('GET', '/traits'): openapi.Operation(
            'List traits.', {200: TRAITS}, query=query.TRAITS_QUERY['1.6'],
            notes=(_SINCE % '1.6' + ' name is in:A,B or startswith:PREFIX; '
                   'associated is true or false.')),
        ('GET', '/traits/{name}'): openapi.Operation(
            'Whether a trait exists.', {204: None}, notes=_SINCE % '1.6'),
        ('PUT', '/traits/{name}'): openapi.Operation(
            'Create a custom trait.', {201: None, 204: None},
            notes=(_SINCE % '1.6' + ' 201 when created, 204 when it '
                   'existed.')),
        ('DELETE', '/traits/{name}'): openapi.Operation(
            'Delete a custom trait.', {204: None}, notes=_SINCE % '1.6'),
    }


def _allocations() -> dict:
    return {
        ('POST', '/allocations'): openapi.Operation(
            'Set the allocations of several consumers.', {204: None},
            request=_any_of(*[allocation.post_many(body) for body in
                              _PUT_ALLOCATIONS[2:]]),
            notes=(_SINCE % '1.13' + ' Each consumer\'s entry is the PUT '
                   '/allocations/{consumer_uuid} body of the version (empty '
                   'allocations remove them). ' + _PUT_ALLOCATIONS_NOTES)),
        ('GET', '/allocations/{consumer_uuid}'): openapi.Operation(
            'A consumer\'s allocations.', {200: CONSUMER_ALLOCATIONS},
            notes='When the consumer has allocations: project_id and '
                  'user_id from 1.12, consumer_generation from 1.28, '
                  'consumer_type from 1.38.'),
        ('PUT', '/allocations/{consumer_uuid}'): openapi.Operation(
            'Set a consumer\'s allocations.', {204: None},
            request=_any_of(*_PUT_ALLOCATIONS),
            notes=_PUT_ALLOCATIONS_NOTES),
        ('DELETE', '/allocations/{consumer_uuid}'): openapi.Operation(
            'Delete a consumer\'s allocations.', {204: None}),
        ('POST', '/reshaper'): openapi.Operation(
            'Move inventories and allocations in one transaction.',
            {204: None},
            request=_any_of(*[reshaper.post(body) for body in
                              _PUT_ALLOCATIONS[3:]]),
            notes=(_SINCE % '1.30' + ' Allocations as POST /allocations of '
                   'the version (1.28 shape; mappings from 1.34, '
                   'consumer_type from 1.38).')),
    }


def _queries() -> dict:
    return {
        ('GET', '/usages'): openapi.Operation(
            'A project\'s (and user\'s) usages.', {200: USAGES},
            query=_newest(query.USAGES_QUERY),
            notes=(_SINCE % '1.9' + ' Before 1.38 usages are {class: '
                   'amount}; from 1.38 {consumer type: {consumer_count, '
                   'class: amount}} and consumer_type may filter.')),
        ('GET', '/allocation_candidates'): openapi.Operation(
            'Allocation candidates for request groups.',
            {200: ALLOCATION_CANDIDATES},
            query=_newest(query.ALLOCATION_CANDIDATES_QUERY),
            notes=(_SINCE % '1.10' + ' Query: limit from 1.16, required '
                   'from 1.17, member_of from 1.21, numbered groups '
                   '(resourcesN, requiredN, member_ofN) and group_policy '
                   'from 1.25, in_tree from 1.31, word suffixes from 1.33, '
                   'root_required from 1.35, same_subtree from 1.36. '
                   'Answer: allocations are a list before 1.12, a dict '
                   'from 1.12; mappings from 1.34. Provider summaries: '
                   'only the requested classes before 1.27, every class '
                   'from 1.27; traits from 1.17; parent_provider_uuid and '
                   'root_provider_uuid from 1.29.')),
    }


def _root() -> dict:
    version = openapi.Operation(
        'The version document: the microversion range served.',
        {200: VERSIONS}, public=True)
    return {
        ('GET', ''): version,
        ('GET', '/'): version,
        ('GET', '/openapi.json'): openapi.Operation(
            'This OpenAPI document.', {200: DOCUMENT}, public=True,
            notes='The same for every microversion.'),
    }


def _authenticated(operations: dict) -> dict:
    """Every operation but the public ones may answer authentication's
    401 (a missing or refused token)."""
    return {key: operation if operation.public else dataclasses.replace(
        operation, responses={**operation.responses, 401: AUTH_ERROR})
        for key, operation in operations.items()}


OPERATIONS = _authenticated({
    **_root(), **_providers(), **_inventories(), **_provider_parts(),
    **_classes_and_traits(), **_allocations(), **_queries()})


def _request_groups(doc: dict) -> None:
    """Query parameters named by pattern (resourcesN, requiredN, ...) as
    one exploded object parameter: the builder lists named ones only."""
    schema = _newest(query.ALLOCATION_CANDIDATES_QUERY)
    operation = doc['paths']['/allocation_candidates']['get']
    operation['parameters'].append({
        'name': 'request_groups', 'in': 'query', 'required': False,
        'style': 'form', 'explode': True,
        'description': 'resources, required, member_of and in_tree, '
                       'unsuffixed or with a request group suffix.',
        'schema': {'type': 'object', 'patternProperties': copy.deepcopy(
            schema['patternProperties']), 'additionalProperties': False}})


@functools.lru_cache(maxsize=None)
def document() -> dict:
    """The placement family's OpenAPI document (do not mutate it)."""
    doc = openapi.document(
        'blazar_ext Placement-compatible API',
        '%d.%d' % microversion.MAX_VERSION, SERVER, OPERATIONS, ERROR,
        description='OpenStack Placement\'s API, microversions %d.%d to '
                    '%d.%d (header OpenStack-API-Version: placement X.Y). '
                    'Each operation\'s description says which fields and '
                    'parameters appear from which microversion. Errors: '
                    'code from 1.23.'
                    % (microversion.MIN_VERSION + microversion.MAX_VERSION))
    _request_groups(doc)
    # As Placement (webob), an error is a small HTML page to a client
    # whose Accept prefers text/html to JSON.
    doc['components']['responses']['Error']['content']['text/html'] = {
        'schema': {'type': 'string'}}
    for item in doc['paths'].values():
        for operation in item.values():
            if '401' in operation['responses']:
                operation['responses']['401']['description'] = (
                    'No token, or one refused: authentication\'s error '
                    'shape, not the family\'s.')
    # From 1.7 the PUT takes no body (create-or-check the path's name).
    doc['paths']['/resource_classes/{name}']['put']['requestBody'][
        'required'] = False
    return doc
