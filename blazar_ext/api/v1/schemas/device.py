"""Request schemas for /v1/devices (the physical:device plugin)."""

# Device columns and fields a capability may not take.
RESERVED_NAMES = ['id', 'name', 'device_type', 'vendor', 'model',
                  'reservable', 'reservable_reason', 'reservable_by',
                  'created_at', 'updated_at', 'resource_provider',
                  'resource_provider_uuid', 'traits']
COLUMNS = ('name', 'device_type', 'vendor', 'model')
# Given at registration only: true (a provider named after the device,
# adopted if one exists, else created) or an existing provider's uuid.
CREATE_ONLY = ('resource_provider',)
SERVICE_FIELDS = ('reservable', 'reservable_reason')
# As for hosts (upstream Blazar's limit on extra capability names).
MAX_CAPABILITY_NAME = 64

_TEXT = {'type': 'string', 'minLength': 1, 'maxLength': 255,
         'pattern': r'^\S(.*\S)?$'}

CREATE = {
    'type': 'object',
    'properties': {
        'name': _TEXT,
        'device_type': _TEXT,
        'vendor': {'type': 'string', 'maxLength': 255},
        'model': {'type': 'string', 'maxLength': 255},
        'resource_provider': {'anyOf': [
            {'type': 'boolean'},
            {'type': 'string', 'format': 'uuid', 'maxLength': 36}]},
    },
    'propertyNames': {'minLength': 1, 'maxLength': MAX_CAPABILITY_NAME,
                      'not': {'enum': [n for n in RESERVED_NAMES
                                       if n not in COLUMNS + CREATE_ONLY]}},
    'additionalProperties': {'type': ['string', 'number', 'boolean']},
    'required': ['name', 'device_type'],
}

# Capabilities (null removes one) and the service state.
UPDATE = {
    'type': 'object',
    'minProperties': 1,
    'properties': {
        'reservable': {'anyOf': [
            {'type': 'boolean'},
            {'type': 'string', 'pattern': '^([Tt][Rr][Uu][Ee]|'
                                          '[Ff][Aa][Ll][Ss][Ee])$'}]},
        'reservable_reason': {'type': 'string', 'maxLength': 255},
    },
    'propertyNames': {'minLength': 1, 'maxLength': MAX_CAPABILITY_NAME,
                      'not': {'enum': [n for n in RESERVED_NAMES
                                       if n not in SERVICE_FIELDS]}},
    'additionalProperties': {'type': ['string', 'number', 'boolean',
                                      'null']},
}
