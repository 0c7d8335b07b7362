"""Request schemas for /v1/os-hosts."""

_CAPABILITY_VALUE = {'type': ['string', 'number', 'boolean']}

# Names of host columns and fields that a capability may not take.
RESERVED_NAMES = ['id', 'name', 'hypervisor_hostname', 'vcpus', 'memory_mb',
                  'local_gb', 'cpu_info', 'hypervisor_type',
                  'hypervisor_version', 'service_name', 'availability_zone',
                  'status', 'trust_id', 'reservable', 'disabled',
                  'created_at', 'updated_at', 'reservable_reason']
# Upstream Blazar refuses longer extra capability names ("Extra capability
# key too long").
MAX_CAPABILITY_NAME = 64
# Host columns that describe its inventory; they come from the registration
# (the [manager] host_inventory source) and feed its resource provider.
INVENTORY_FIELDS = ('vcpus', 'memory_mb', 'local_gb')
# python-blazarclient sends every --extra value as a string: '16' is 16.
# The columns are 32-bit integers on every database.
MAX_INT = 2 ** 31 - 1
_NON_NEGATIVE_INT = {'anyOf': [
    {'type': 'integer', 'minimum': 0, 'maximum': MAX_INT},
    {'type': 'string', 'pattern': '^[0-9]{1,10}$'}]}
INTEGER_FIELDS = ('vcpus', 'memory_mb', 'local_gb', 'hypervisor_version')
_TEXT = {'type': 'string', 'maxLength': 255}

CREATE = {
    'type': 'object',
    'properties': {
        # A host is also a Placement resource provider of the same name,
        # whose names Placement caps at 200 characters.
        'name': {'type': 'string', 'minLength': 1, 'maxLength': 200,
                 'pattern': r'^\S(.*\S)?$'},
        'vcpus': _NON_NEGATIVE_INT,
        'memory_mb': _NON_NEGATIVE_INT,
        'local_gb': _NON_NEGATIVE_INT,
        'hypervisor_version': _NON_NEGATIVE_INT,
        'cpu_info': {'type': 'string'},
        'hypervisor_type': _TEXT,
        'service_name': _TEXT,
        'availability_zone': _TEXT,
    },
    'propertyNames': {'minLength': 1, 'maxLength': 255,
                      'not': {'enum': ['id', 'hypervisor_hostname', 'status',
                                       'trust_id', 'reservable', 'disabled',
                                       'created_at', 'updated_at',
                                       'reservable_reason']}},
    'additionalProperties': _CAPABILITY_VALUE,
    'required': ['name'],
}

# Taking a host out of service and back: ``reservable`` (the client's
# ``--extra reservable=false`` sends the string) and, going out, why.
SERVICE_FIELDS = ('reservable', 'reservable_reason')

# A flat map of capability names to values; null removes a capability.
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
    'propertyNames': {'minLength': 1, 'maxLength': 255,
                      'not': {'enum': [n for n in RESERVED_NAMES
                                       if n not in SERVICE_FIELDS]}},
    'additionalProperties': {'type': ['string', 'number', 'boolean',
                                      'null']},
}

# GET /v1/os-hosts query: pagination and a field filter, extensions to
# Blazar's API (its client sends none of them, and gets every host).
# Other parameters are ignored, as upstream Blazar ignores them.
LIST_QUERY = {
    'type': 'object',
    'properties': {
        'limit': {'type': 'string', 'pattern': '^[1-9][0-9]{0,8}$'},
        'marker': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'fields': {'type': 'string', 'minLength': 1, 'maxLength': 8192,
                   'pattern': r'^[^,]+(,[^,]+)*$'},
    },
    'additionalProperties': True,
}
