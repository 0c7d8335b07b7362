"""The OpenAPI document of the metadefs family, served at
GET /v2/metadefs/openapi.json without authentication.

Request bodies and query strings are the very schemas the handlers
validate with (schemas.py); the response schemas are here. Paths are the
route tables' templates, relative to the family's server, /v2.
"""

import copy
import functools

import webob

from blazar_ext.api.metadefs import handler
from blazar_ext.api.metadefs import schemas
from blazar_ext.api.metadefs import versions
from blazar_ext.api import openapi
from blazar_ext.api import routing

PATH = '/metadefs/openapi.json'

_STRING = {'type': 'string'}
_TIMESTAMP = {'type': 'string', 'format': 'date-time'}
_TIMESTAMPS = {'created_at': _TIMESTAMP, 'updated_at': _TIMESTAMP}

# A property definition as the API answers it: what a request may hold,
# but ``default`` is always text (Glance stores it as text).
PROPERTY_DEFINITION = copy.deepcopy(schemas.DEFINITIONS['property'][
    'additionalProperties'])
PROPERTY_DEFINITION['properties']['default'] = _STRING
PROPERTY_MAP = {'type': 'object',
                'propertyNames': {'minLength': 1},
                'additionalProperties': PROPERTY_DEFINITION}

PROPERTY = dict(PROPERTY_DEFINITION, required=['name', 'title', 'type'])

PROPERTIES = {
    'type': 'object', 'additionalProperties': False,
    'required': ['properties'],
    'properties': {'properties': {
        'type': 'object', 'additionalProperties': PROPERTY}},
}


def _closed(properties: dict, required: list) -> dict:
    """An object schema holding exactly ``properties``, ``required`` ones
    always."""
    return {'type': 'object', 'additionalProperties': False,
            'required': required, 'properties': properties}


_LINKS = {'schema': _STRING, 'self': _STRING}

# An object as namespace creation answers it; shown on its own or in a
# namespace it has its links too.
_OBJECT_FIELDS = dict({
    'name': schemas.OBJECT['properties']['name'],
    'description': schemas.OBJECT['properties']['description'],
    'required': {'type': 'array', 'items': _STRING},
    'properties': PROPERTY_MAP,
}, **_TIMESTAMPS)
_OBJECT_REQUIRED = ['name', 'required', 'properties', 'created_at',
                    'updated_at']
OBJECT = _closed(dict(_OBJECT_FIELDS, **_LINKS),
                 _OBJECT_REQUIRED + ['schema', 'self'])
OBJECTS = _closed({'objects': {'type': 'array', 'items': OBJECT},
                   'schema': _STRING}, ['objects', 'schema'])

TAG = _closed(dict({'name': schemas.TAG['properties']['name']},
                   **_TIMESTAMPS), ['name', 'created_at', 'updated_at'])
TAGS = _closed({'tags': {'type': 'array', 'items': TAG}}, ['tags'])

_ASSOCIATION_FIELDS = schemas.RESOURCE_TYPE_ASSOCIATION['properties']
ASSOCIATION = _closed(dict(
    {k: _ASSOCIATION_FIELDS[k]
     for k in ('name', 'prefix', 'properties_target')}, **_TIMESTAMPS),
    ['name', 'created_at', 'updated_at'])
ASSOCIATIONS = _closed(
    {'resource_type_associations': {'type': 'array', 'items': ASSOCIATION}},
    ['resource_type_associations'])

RESOURCE_TYPE = _closed(dict({'name': _STRING}, **_TIMESTAMPS),
                        ['name', 'created_at', 'updated_at'])
RESOURCE_TYPES = _closed(
    {'resource_types': {'type': 'array', 'items': RESOURCE_TYPE}},
    ['resource_types'])

_NAMESPACE_OWN = {k: schemas.NAMESPACE['properties'][k]
                  for k in ('namespace', 'display_name', 'description',
                            'visibility', 'protected', 'owner')}
_NAMESPACE_FIELDS = dict(_NAMESPACE_OWN, resource_type_associations={
    'type': 'array', 'items': ASSOCIATION}, **_TIMESTAMPS, **_LINKS)
_NAMESPACE_REQUIRED = ['namespace', 'visibility', 'protected', 'owner',
                       'created_at', 'updated_at', 'schema', 'self']
# A namespace's own fields (a listing, an update).
NAMESPACE = _closed(_NAMESPACE_FIELDS, _NAMESPACE_REQUIRED)
# With what it holds (show, create); an object has its links when shown.
NAMESPACE_FULL = _closed(dict(
    _NAMESPACE_FIELDS,
    properties=PROPERTY_MAP,
    objects={'type': 'array', 'items': _closed(
        dict(_OBJECT_FIELDS, **_LINKS), _OBJECT_REQUIRED)},
    tags={'type': 'array', 'items': TAG}), _NAMESPACE_REQUIRED)
NAMESPACES = _closed(
    {'namespaces': {'type': 'array', 'items': NAMESPACE},
     'first': _STRING, 'next': _STRING, 'schema': _STRING},
    ['namespaces', 'first', 'schema'])

SCHEMA_DOCUMENT = {
    'type': 'object', 'required': ['name', 'properties'],
    'properties': {
        'name': {'enum': sorted({document['name'] for document
                                 in schemas.DOCUMENTS.values()})},
        'properties': {'type': 'object'},
    },
}

OPENAPI_DOCUMENT = {'type': 'object',
                    'required': ['openapi', 'info', 'paths']}


def _collection(kind: str, listing: dict, item: dict, body: dict | None,
                query: dict | None = None, name: str = 'name') -> dict:
    """The six routes of a namespace's objects or properties."""
    base = '/metadefs/namespaces/{namespace}/' + kind
    one = '%s/{%s}' % (base, name)
    return {
        ('GET', base): openapi.Operation(
            'List the namespace\'s %s.' % kind, {200: listing}, query=query),
        ('POST', base): openapi.Operation(
            'Add one of the namespace\'s %s.' % kind, {201: item},
            request=body),
        ('DELETE', base): openapi.Operation(
            'Delete all the namespace\'s %s (not in a protected one).'
            % kind, {204: None}),
        ('GET', one): openapi.Operation('Show one.', {200: item}),
        ('PUT', one): openapi.Operation(
            'Replace one (the body\'s name may rename it).', {200: item},
            request=body),
        ('DELETE', one): openapi.Operation(
            'Delete one (not in a protected namespace).', {204: None}),
    }


_NAMESPACES = '/metadefs/namespaces'
_NAMESPACE = _NAMESPACES + '/{namespace}'
_TAGS = _NAMESPACE + '/tags'
_ASSOCIATIONS = _NAMESPACE + '/resource_types'

_NAME_RULE = ('A name (the namespace, an object, a property, a tag) may '
              'not hold "/": no URL could address it.')

OPERATIONS = {
    ('GET', _NAMESPACES): openapi.Operation(
        'List the namespaces the caller sees, newest first by default.',
        {200: NAMESPACES}, query=schemas.NAMESPACES_QUERY,
        notes='``next`` is there when there may be another page.'),
    ('POST', _NAMESPACES): openapi.Operation(
        'Create a namespace, with embedded properties, objects, tags and '
        'resource type associations.', {201: NAMESPACE_FULL},
        request=schemas.NAMESPACE, notes=_NAME_RULE),
    ('GET', _NAMESPACE): openapi.Operation(
        'Show a namespace with its properties, objects and tags.',
        {200: NAMESPACE_FULL}, query=schemas.RESOURCE_TYPE_QUERY),
    ('PUT', _NAMESPACE): openapi.Operation(
        'Update the namespace\'s own fields; embedded definitions in the '
        'body are ignored.', {200: NAMESPACE}, request=schemas.NAMESPACE,
        notes=_NAME_RULE),
    ('DELETE', _NAMESPACE): openapi.Operation(
        'Delete a namespace and what it holds (not a protected one).',
        {204: None}),
    ('GET', _TAGS): openapi.Operation(
        'List the namespace\'s tags.', {200: TAGS},
        query=schemas.TAGS_QUERY),
    ('POST', _TAGS): openapi.Operation(
        'Replace the namespace\'s tags (add them with the header '
        'X-Openstack-Append: true).', {201: TAGS},
        request=schemas.TAGS_REQUEST),
    ('PUT', _TAGS): openapi.Operation(
        'As POST: replace (or, with X-Openstack-Append: true, add to) the '
        'namespace\'s tags.', {201: TAGS}, request=schemas.TAGS_REQUEST),
    ('DELETE', _TAGS): openapi.Operation(
        'Delete all the namespace\'s tags (not in a protected one).',
        {204: None}),
    ('GET', _TAGS + '/{name}'): openapi.Operation('Show a tag.',
                                                  {200: TAG}),
    ('POST', _TAGS + '/{name}'): openapi.Operation(
        'Add the tag named in the path (no body).', {201: TAG}),
    ('PUT', _TAGS + '/{name}'): openapi.Operation(
        'Rename a tag.', {200: TAG}, request=schemas.TAG),
    ('DELETE', _TAGS + '/{name}'): openapi.Operation(
        'Delete a tag (not in a protected namespace).', {204: None}),
    ('GET', '/metadefs/resource_types'): openapi.Operation(
        'List every resource type known to the catalog.',
        {200: RESOURCE_TYPES}),
    ('GET', _ASSOCIATIONS): openapi.Operation(
        'List the namespace\'s resource type associations.',
        {200: ASSOCIATIONS}),
    ('POST', _ASSOCIATIONS): openapi.Operation(
        'Associate the namespace with a resource type (made if new).',
        {201: ASSOCIATION}, request=schemas.RESOURCE_TYPE),
    ('DELETE', _ASSOCIATIONS + '/{name}'): openapi.Operation(
        'Remove the namespace\'s association with a resource type.',
        {204: None}),
    ('GET', '/schemas/metadefs/{name}'): openapi.Operation(
        'A JSON schema of the catalog: namespace(s), object(s), '
        'property, properties, tag(s), resource_type(s).',
        {200: SCHEMA_DOCUMENT}),
    ('GET', PATH): openapi.Operation(
        'This document.', {200: OPENAPI_DOCUMENT}, public=True),
    **_collection('objects', OBJECTS, OBJECT, schemas.OBJECT,
                  query=schemas.OBJECTS_QUERY),
    **_collection('properties', PROPERTIES, PROPERTY, schemas.PROPERTY),
}
# A property is shown as a resource type names it (with its prefix).
OPERATIONS[('GET', _NAMESPACE + '/properties/{name}')] = openapi.Operation(
    'Show one property; with ?resource_type, its name with that '
    'association\'s prefix.', {200: PROPERTY},
    query=schemas.RESOURCE_TYPE_QUERY)

ERROR = {
    'type': 'object', 'additionalProperties': False, 'required': ['error'],
    'properties': {'error': _closed(
        {'code': {'type': 'integer', 'minimum': 400, 'maximum': 599},
         'title': _STRING, 'message': _STRING},
        ['code', 'title', 'message'])},
}

_DESCRIPTION = (
    'The metadata definitions catalog, compatible with OpenStack Glance\'s '
    'metadefs v2 API (python-glanceclient\'s md-* commands). Every error '
    'is JSON: {"error": {"code", "title", "message"}}, the message being '
    'what the client prints.')


@functools.lru_cache(maxsize=None)
def document() -> dict:
    """The family's OpenAPI 3.1 document."""
    doc = openapi.document('Blazar-ext metadata definitions (Glance '
                           'metadefs compatible)', versions.VERSION, '/v2',
                           OPERATIONS, ERROR, _DESCRIPTION)
    _add_parameters(doc)
    return _components_definitions(doc)


_APPEND = {'name': 'X-Openstack-Append', 'in': 'header', 'required': False,
           'description': 'true: add the tags to the namespace\'s instead '
                          'of replacing them.',
           'schema': {'type': 'string', 'default': 'false'}}


def _add_parameters(doc: dict) -> None:
    """What the shared builder cannot say: the tags' append header, and
    the tag name a path creates, checked as a body's would be."""
    tags = doc['paths'][_TAGS]
    for method in ('post', 'put'):
        tags[method]['parameters'].append(dict(_APPEND))
    for parameter in doc['paths'][_TAGS + '/{name}']['post']['parameters']:
        if parameter['name'] == 'name':
            parameter['schema'] = copy.deepcopy(
                schemas.TAG['properties']['name'])


_DEFINITIONS_REF = '#/definitions/'
_COMPONENTS_REF = '#/components/schemas/'


def _components_definitions(doc: dict) -> dict:
    """``schemas.DEFINITIONS``, which the catalog's schemas reference as
    ``#/definitions/<name>``, moved to the document's components (where
    an OpenAPI reference resolves)."""
    doc['components']['schemas'].update(
        copy.deepcopy(schemas.DEFINITIONS))
    pending = [doc]
    while pending:
        node = pending.pop()
        if isinstance(node, list):
            pending.extend(node)
        elif isinstance(node, dict):
            if node.get('definitions') == schemas.DEFINITIONS:
                del node['definitions']
            ref = node.get('$ref')
            if isinstance(ref, str) and ref.startswith(_DEFINITIONS_REF):
                node['$ref'] = _COMPONENTS_REF + ref[len(_DEFINITIONS_REF):]
            pending.extend(node.values())
    return doc


def show(req: webob.Request) -> webob.Response:
    """GET /metadefs/openapi.json."""
    return handler.respond(document())


ROUTES = [routing.Route('GET', PATH, show)]
