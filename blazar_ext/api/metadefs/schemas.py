"""The ten schema documents served under /v2/schemas/metadefs.

They are plain data, and the same documents validate request bodies, so
what a client reads is what the server enforces. ``operators`` (the
multivalue-operators spec) is an optional array of strings on every
property definition, top-level and inside objects. Property definitions
reject unknown keys, so a typo is a 400 instead of silently stored.
"""

import copy

from blazar_ext.api.metadefs import handler
from blazar_ext.api import routing
from blazar_ext.db.api.metadefs import namespace as ns_api
from blazar_ext.db.api.metadefs import tag as tag_api

_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string', None]

# Inline rather than a $ref, so a consumer reading the property schema sees
# the type at once.
OPERATORS = {
    'type': 'array', 'items': {'type': 'string'},
    'description': 'Operators suited to this property when it is used in a '
                   'request, e.g. <or>, <in>, <all-in>. Optional; not '
                   'checked by the catalog.'}

DEFINITIONS = {
    'positiveInteger': {'type': 'integer', 'minimum': 0},
    'positiveIntegerDefault0': {
        'allOf': [{'$ref': '#/definitions/positiveInteger'},
                  {'default': 0}]},
    'stringArray': {'type': 'array', 'items': {'type': 'string'},
                    'uniqueItems': True},
    'property': {
        'type': 'object',
        'propertyNames': {'minLength': 1, 'maxLength': 255},
        'additionalProperties': {
            'type': 'object',
            'required': ['title', 'type'],
            'additionalProperties': False,
            'properties': {
                'name': {'type': 'string', 'minLength': 1,
                         'maxLength': 255},
                'title': {'type': 'string'},
                'description': {'type': 'string'},
                'operators': OPERATORS,
                'type': {'type': ['string', 'null'], 'enum': _TYPES},
                'required': {'$ref': '#/definitions/stringArray'},
                'minimum': {'type': 'number'},
                'maximum': {'type': 'number'},
                'maxLength': {'$ref': '#/definitions/positiveInteger'},
                'minLength': {
                    '$ref': '#/definitions/positiveIntegerDefault0'},
                'pattern': {'type': 'string', 'format': 'regex'},
                'enum': {'type': 'array', 'items': {'type': 'string'}},
                'readonly': {'type': 'boolean'},
                'default': {},
                'items': {
                    'type': 'object',
                    'additionalProperties': False,
                    'properties': {
                        'type': {'type': 'string',
                                 'enum': [t for t in _TYPES if t]},
                        'enum': {'type': 'array',
                                 'items': {'type': 'string'}},
                    },
                },
                'maxItems': {'$ref': '#/definitions/positiveInteger'},
                'minItems': {
                    '$ref': '#/definitions/positiveIntegerDefault0'},
                'uniqueItems': {'type': 'boolean', 'default': False},
                'additionalItems': {'type': 'boolean'},
            },
        },
    },
}

_TIMESTAMPS = {
    'created_at': {'type': 'string', 'readOnly': True,
                   'description': 'Date and time of creation.',
                   'format': 'date-time'},
    'updated_at': {'type': 'string', 'readOnly': True,
                   'description': 'Date and time of the last change.',
                   'format': 'date-time'},
}

_NAME = {'type': 'string', 'maxLength': 80, 'minLength': 1}

RESOURCE_TYPE_ASSOCIATION = {
    'name': 'resource_type_association',
    'type': 'object',
    'required': ['name'],
    'properties': dict({
        'name': dict(_NAME, description='Resource type name, e.g. '
                                        'OS::Blazar::Host.'),
        'prefix': {'type': 'string', 'maxLength': 80,
                   'description': 'Prefix of the property names when the '
                                  'namespace is applied to this resource '
                                  'type.'},
        'properties_target': {'type': 'string', 'maxLength': 80,
                              'description': 'Where the properties apply '
                                             'on the resource type.'},
    }, **_TIMESTAMPS),
}

_OBJECT_PROPERTIES = dict({
    'name': {'type': 'string', 'maxLength': 255, 'minLength': 1},
    'description': {'type': 'string'},
    'required': {'$ref': '#/definitions/stringArray'},
    'properties': {'$ref': '#/definitions/property'},
    'schema': {'type': 'string', 'readOnly': True},
    'self': {'type': 'string', 'readOnly': True},
}, **_TIMESTAMPS)

_TAG_PROPERTIES = dict({
    'name': {'type': 'string', 'maxLength': 255, 'minLength': 1},
}, **_TIMESTAMPS)

NAMESPACE = {
    'name': 'namespace',
    'type': 'object',
    'additionalProperties': False,
    'required': ['namespace'],
    'properties': dict({
        'namespace': dict(_NAME, description='Unique name of the '
                                             'namespace.'),
        'display_name': {'type': 'string', 'maxLength': 80},
        'description': {'type': 'string', 'maxLength': 500},
        'visibility': {'type': 'string', 'enum': ['public', 'private'],
                       'description': 'Who may read the namespace.'},
        'protected': {'type': 'boolean',
                      'description': 'A protected namespace and its '
                                     'contents cannot be deleted.'},
        'owner': {'type': 'string', 'maxLength': 255,
                  'description': 'Project owning the namespace.'},
        'schema': {'type': 'string', 'readOnly': True},
        'self': {'type': 'string', 'readOnly': True},
        'resource_type_associations': {
            'type': 'array',
            'items': {'type': 'object',
                      'required': ['name'],
                      'properties': RESOURCE_TYPE_ASSOCIATION['properties']},
        },
        'properties': {'$ref': '#/definitions/property'},
        'objects': {
            'type': 'array',
            'items': {'type': 'object', 'required': ['name'],
                      'properties': _OBJECT_PROPERTIES},
        },
        'tags': {
            'type': 'array',
            'items': {'type': 'object', 'required': ['name'],
                      'properties': _TAG_PROPERTIES},
        },
    }, **_TIMESTAMPS),
    'definitions': DEFINITIONS,
}

_PROPERTY_DEFINITION = DEFINITIONS['property']['additionalProperties']

PROPERTY = dict(
    copy.deepcopy(_PROPERTY_DEFINITION),
    name='property',
    required=['name', 'title', 'type'],
    definitions=DEFINITIONS)

OBJECT = {
    'name': 'object',
    'type': 'object',
    'additionalProperties': False,
    'required': ['name'],
    'properties': _OBJECT_PROPERTIES,
    'definitions': DEFINITIONS,
}

TAG = {
    'name': 'tag',
    'type': 'object',
    'additionalProperties': False,
    'required': ['name'],
    'properties': _TAG_PROPERTIES,
}

# Served at /schemas/metadefs/resource_type under Glance's own name.
RESOURCE_TYPE = dict(RESOURCE_TYPE_ASSOCIATION,
                     name='resource_type_association',
                     additionalProperties=False)

# Request bodies that have no served document of their own.
TAGS_REQUEST = {
    'type': 'object',
    'required': ['tags'],
    'additionalProperties': False,
    'properties': {'tags': {'type': 'array', 'items': TAG}},
}

# Query strings, as Glance takes them. The namespaces listing refuses an
# unknown parameter; the others ignore one, as Glance does.
NAMESPACES_QUERY = {
    'type': 'object',
    'properties': {
        'limit': {'type': 'integer', 'minimum': 0},
        'marker': {'type': 'string'},
        'sort_key': {'enum': list(ns_api.SORT_KEYS)},
        'sort_dir': {'enum': ['asc', 'desc']},
        'visibility': {'enum': ['public', 'private']},
        'resource_types': {
            'type': 'string',
            'description': 'Comma-separated resource type names: only the '
                           'namespaces associated with one of them.'},
    },
    'additionalProperties': False,
}


def _listing_query(sort_keys, minimum_limit: int) -> dict:
    return {
        'type': 'object',
        'properties': {
            'limit': {'type': 'integer', 'minimum': minimum_limit},
            'sort_key': {'enum': list(sort_keys)},
            'sort_dir': {'enum': ['asc', 'desc']},
        },
    }


TAGS_QUERY = _listing_query(tag_api.SORT_KEYS, 0)
# Glance refuses limit=0 on objects (and then lists them all, in creation
# order, whatever the limit and sort).
OBJECTS_QUERY = _listing_query(('created_at', 'updated_at', 'name'), 1)

# GET of a namespace or a property: names as they apply to a resource
# type (its association's prefix).
RESOURCE_TYPE_QUERY = {
    'type': 'object',
    'properties': {
        'resource_type': {
            'type': 'string',
            'description': 'A resource type the namespace is associated '
                           'with: property names carry its prefix.'},
    },
}


def _collection(name: str, item: dict, extra: dict | None = None) -> dict:
    links = {
        'first': {'type': 'string'},
        'next': {'type': 'string'},
        'schema': {'type': 'string'},
    }
    item = {k: v for k, v in item.items() if k != 'definitions'}
    document = {
        'name': name,
        'properties': dict({name: {'type': 'array', 'items': item}},
                           **links, **(extra or {})),
        'links': [{'rel': 'first', 'href': '{first}'},
                  {'rel': 'next', 'href': '{next}'},
                  {'rel': 'describedby', 'href': '{schema}'}],
    }
    if '$ref' in str(item):
        document['definitions'] = DEFINITIONS
    return document


def _properties_collection() -> dict:
    return {
        'name': 'properties',
        'properties': {
            'properties': {'$ref': '#/definitions/property'},
            'first': {'type': 'string'},
            'next': {'type': 'string'},
            'schema': {'type': 'string'},
        },
        'links': [{'rel': 'first', 'href': '{first}'},
                  {'rel': 'next', 'href': '{next}'},
                  {'rel': 'describedby', 'href': '{schema}'}],
        'definitions': DEFINITIONS,
    }


DOCUMENTS = {
    'namespace': NAMESPACE,
    'namespaces': _collection('namespaces', NAMESPACE),
    'property': PROPERTY,
    'properties': _properties_collection(),
    'object': OBJECT,
    'objects': _collection('objects', OBJECT),
    'tag': TAG,
    'tags': _collection('tags', TAG),
    'resource_type': RESOURCE_TYPE,
    'resource_types': _collection('resource_type_associations',
                                  RESOURCE_TYPE),
}


def schema_url(name: str) -> str:
    return '%s/schemas/metadefs/%s' % (handler.PREFIX, name)


def show(req, name: str):
    """GET /schemas/metadefs/{name}."""
    if name not in DOCUMENTS:
        return handler.error(404, 'No metadefs schema named %s; known: %s.'
                             % (name, ', '.join(sorted(DOCUMENTS))))
    return handler.respond(DOCUMENTS[name])


ROUTES = [routing.Route('GET', '/schemas/metadefs/{name}', show)]
