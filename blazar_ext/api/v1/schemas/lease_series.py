"""Request schemas for lease series: a lease create with ``recurrence``,
and /v1/lease-series changes. Rules, time zones and dates are checked in
the manager, whose messages name the field."""

from blazar_ext.api.v1.schemas import lease

CREATE = dict(lease.CREATE, properties=dict(
    lease.CREATE['properties'],
    recurrence={'type': 'string', 'minLength': 1, 'maxLength': 255},
    timezone={'type': 'string', 'minLength': 1, 'maxLength': 64},
    booking={'type': 'string', 'enum': ['all', 'available']}))

UPDATE = {
    'type': 'object',
    'properties': {
        'name': lease.CREATE['properties']['name'],
        # Matched by position with the series' reservations.
        'reservations': {
            'type': 'array',
            'items': {'type': 'object', 'properties': {
                'min': lease._COUNT,
                'max': lease._COUNT,
                'hypervisor_properties': lease._PROPERTIES,
                'resource_properties': lease._PROPERTIES,
                'amount': lease._COUNT,
            }, 'additionalProperties': False}},
    },
    'additionalProperties': False,
    'minProperties': 1,
}

SKIP = {
    'type': 'object',
    'properties': {'date': {'type': 'string', 'minLength': 1,
                            'maxLength': 10}},
    'required': ['date'],
    'additionalProperties': False,
}
