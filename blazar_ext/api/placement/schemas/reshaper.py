"""Body of POST /reshaper (1.30)."""

import copy

from blazar_ext.api.placement.schemas import allocation
from blazar_ext.api.placement.schemas import common
from blazar_ext.api.placement.schemas import inventory


def post(allocation_put: dict) -> dict:
    """The body for the allocations shape of the request's version."""
    allocations = copy.deepcopy(allocation.post_many(allocation_put))
    allocations['minProperties'] = 0
    return {
        'type': 'object',
        'properties': {
            'inventories': {
                'type': 'object',
                'patternProperties': {common.UUID_KEY: inventory.PUT_ALL},
                # Nothing to reshape without inventories.
                'minProperties': 1,
                'additionalProperties': False,
            },
            'allocations': allocations,
        },
        'required': ['inventories', 'allocations'],
        'additionalProperties': False,
    }
