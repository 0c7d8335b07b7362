"""Allocation bodies for each microversion's shape."""

import copy

from blazar_ext.api.placement.schemas import common

RESOURCES = {
    'type': 'object', 'minProperties': 1,
    'patternProperties': {'^[0-9A-Z_]+$': {'type': 'integer',
                                           'minimum': 1,
                                           'maximum': common.MAX_INT}},
    'additionalProperties': False,
}
ID = {'type': 'string', 'minLength': 1, 'maxLength': 255}

# 1.0 - 1.11: a list of {resource_provider: {uuid}, resources}.
PUT_LIST = {
    'type': 'object',
    'properties': {
        'allocations': {
            'type': 'array', 'minItems': 1,
            'items': {
                'type': 'object',
                'properties': {
                    'resource_provider': {
                        'type': 'object',
                        'properties': {'uuid': common.UUID_PATTERN},
                        'required': ['uuid'],
                        'additionalProperties': False},
                    'resources': RESOURCES,
                },
                'required': ['resource_provider', 'resources'],
                'additionalProperties': False,
            },
        },
        'project_id': ID,
        'user_id': ID,
    },
    'required': ['allocations'],
    'additionalProperties': False,
}
PUT_LIST_1_8 = copy.deepcopy(PUT_LIST)
PUT_LIST_1_8['required'] += ['project_id', 'user_id']

# 1.12: a dict keyed by provider uuid.
ALLOCATIONS_DICT = {
    'type': 'object', 'minProperties': 1,
    'patternProperties': {common.UUID_KEY: {
        'type': 'object',
        'properties': {'generation': common.GENERATION,
                       'resources': RESOURCES},
        'required': ['resources'],
        'additionalProperties': False}},
    'additionalProperties': False,
}
PUT_DICT = {
    'type': 'object',
    'properties': {'allocations': ALLOCATIONS_DICT, 'project_id': ID,
                   'user_id': ID},
    'required': ['allocations', 'project_id', 'user_id'],
    'additionalProperties': False,
}
# 1.28: consumer generation; empty allocations allowed (delete).
PUT_1_28 = copy.deepcopy(PUT_DICT)
PUT_1_28['properties']['allocations']['minProperties'] = 0
PUT_1_28['properties']['consumer_generation'] = {
    'type': ['integer', 'null']}
PUT_1_28['required'].append('consumer_generation')
# 1.34: optional mappings, request group suffix -> provider uuids (from
# an allocation candidate); validated, not stored, as in Placement.
PUT_1_34 = copy.deepcopy(PUT_1_28)
PUT_1_34['properties']['mappings'] = {
    'type': 'object', 'minProperties': 1,
    # '' is the unnamed group.
    'patternProperties': {'^[a-zA-Z0-9_-]{0,64}$': {
        'type': 'array', 'minItems': 1,
        'items': {'type': 'string', 'format': 'uuid'}}},
    'additionalProperties': False}
# 1.38: consumer type.
PUT_1_38 = copy.deepcopy(PUT_1_34)
PUT_1_38['properties']['consumer_type'] = {
    'type': 'string', 'pattern': '^[A-Z0-9_]+$', 'minLength': 1,
    'maxLength': 255}
PUT_1_38['required'].append('consumer_type')


def post_many(one: dict) -> dict:
    """POST /allocations: {consumer uuid: the PUT body of that version}."""
    entry = copy.deepcopy(one)
    entry['properties']['allocations']['minProperties'] = 0
    return {'type': 'object', 'minProperties': 1,
            'patternProperties': {common.UUID_KEY: entry},
            'additionalProperties': False}
