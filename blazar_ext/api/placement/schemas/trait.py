"""Trait names and PUT /resource_providers/{uuid}/traits."""

from blazar_ext.api.placement.schemas import common

TRAIT = {'type': 'string', 'minLength': 1, 'maxLength': 255,
         'pattern': '^[A-Z0-9_]+$'}
CUSTOM_TRAIT = {'type': 'string', 'minLength': 1, 'maxLength': 255,
                'pattern': '^CUSTOM_[A-Z0-9_]+$'}

SET_PROVIDER_TRAITS = {
    'type': 'object',
    'properties': {
        'traits': {'type': 'array', 'items': TRAIT, 'uniqueItems': True},
        'resource_provider_generation': common.GENERATION,
    },
    'required': ['traits', 'resource_provider_generation'],
    'additionalProperties': False,
}
