"""Bodies of POST and PUT /resource_providers."""

import copy

from blazar_ext.api.placement.schemas import common

NAME = {'type': 'string', 'maxLength': 200, 'minLength': 1}

POST = {
    'type': 'object',
    'properties': {'name': NAME, 'uuid': common.UUID_PATTERN},
    'required': ['name'],
    'additionalProperties': False,
}
PUT = {
    'type': 'object',
    'properties': {'name': NAME},
    'required': ['name'],
    'additionalProperties': False,
}

# 1.14: providers may have a parent.
POST_1_14 = copy.deepcopy(POST)
POST_1_14['properties']['parent_provider_uuid'] = {
    'anyOf': [common.UUID_PATTERN, {'type': 'null'}]}
PUT_1_14 = copy.deepcopy(PUT)
PUT_1_14['properties']['parent_provider_uuid'] = {
    'anyOf': [common.UUID_PATTERN, {'type': 'null'}]}
