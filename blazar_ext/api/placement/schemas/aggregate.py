"""PUT /resource_providers/{uuid}/aggregates (a list before 1.19)."""

from blazar_ext.api.placement.schemas import common

AGGREGATES = {'type': 'array', 'items': common.UUID_PATTERN,
              'uniqueItems': True}
PUT = AGGREGATES
PUT_1_19 = {
    'type': 'object',
    'properties': {'aggregates': AGGREGATES,
                   'resource_provider_generation': common.GENERATION},
    'required': ['aggregates', 'resource_provider_generation'],
    'additionalProperties': False,
}
