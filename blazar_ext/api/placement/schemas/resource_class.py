"""Body of POST /resource_classes."""

from blazar_ext.api.placement.schemas import common

POST = {
    'type': 'object',
    'properties': {'name': common.CUSTOM_RESOURCE_CLASS},
    'required': ['name'],
    'additionalProperties': False,
}
