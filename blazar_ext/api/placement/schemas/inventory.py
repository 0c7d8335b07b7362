"""Inventory bodies."""

import copy

from blazar_ext.api.placement.schemas import common

MAX_INT = 2147483647

BASE_INVENTORY = {
    'type': 'object',
    'properties': {
        'total': {'type': 'integer', 'maximum': MAX_INT, 'minimum': 1},
        'reserved': {'type': 'integer', 'maximum': MAX_INT, 'minimum': 0},
        'min_unit': {'type': 'integer', 'maximum': MAX_INT, 'minimum': 1},
        'max_unit': {'type': 'integer', 'maximum': MAX_INT, 'minimum': 1},
        'step_size': {'type': 'integer', 'maximum': MAX_INT, 'minimum': 1},
        'allocation_ratio': {'type': 'number', 'maximum': 3.40282e+38,
                             'exclusiveMinimum': 0},
    },
    'required': ['total'],
    'additionalProperties': False,
}

POST = copy.deepcopy(BASE_INVENTORY)
POST['properties']['resource_class'] = common.RESOURCE_CLASS
POST['required'].append('resource_class')
# Accepted, as Placement does, and not checked: a POST adds one class.
POST['properties']['resource_provider_generation'] = common.GENERATION

PUT_ONE = copy.deepcopy(BASE_INVENTORY)
PUT_ONE['properties']['resource_provider_generation'] = common.GENERATION
PUT_ONE['required'].append('resource_provider_generation')

PUT_ALL = {
    'type': 'object',
    'properties': {
        'resource_provider_generation': common.GENERATION,
        'inventories': {
            'type': 'object',
            'patternProperties': {'^[A-Z0-9_]+$': BASE_INVENTORY},
            'additionalProperties': False,
        },
    },
    'required': ['resource_provider_generation', 'inventories'],
    'additionalProperties': False,
}
