"""Request schemas for /v1/leases (python-blazarclient's bodies).

Dates and per-type reservation fields are checked in the manager, which
gives messages naming the field; these schemas check the shape.
"""

_DATE = {'type': 'string', 'minLength': 1, 'maxLength': 64}
_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 80,
         'pattern': r'^\S(.*\S)?$'}
_PROPERTIES = {'type': ['string', 'array']}
_COUNT = {'type': ['integer', 'string']}

_RESERVATION = {
    'type': 'object',
    'properties': {
        'id': {'type': 'string'},
        'resource_type': {'type': 'string', 'minLength': 1},
        'min': _COUNT,
        'max': _COUNT,
        'hypervisor_properties': _PROPERTIES,
        'resource_properties': _PROPERTIES,
        'before_end': {'type': ['string', 'null']},
        # Placement's ``required`` syntax: 'HW_CPU_X86_AVX,!CUSTOM_GPU'.
        'traits': {'type': ['string', 'array', 'null'],
                   'items': {'type': 'string'}},
        'network_id': {'type': 'string'},
        'amount': _COUNT,
        'required_floatingips': {'type': ['array', 'string'],
                                 'items': {'type': 'string'}},
    },
}

CREATE = {
    'type': 'object',
    'properties': {
        'name': _NAME,
        'start_date': _DATE,
        'end_date': _DATE,
        'before_end_date': {'type': ['string', 'null']},
        # As upstream, a lease may have no reservation.
        'reservations': {
            'type': 'array',
            'items': dict(_RESERVATION, required=['resource_type'])},
        'events': {'type': 'array'},
    },
    'required': ['name', 'start_date', 'end_date'],
}

UPDATE = {
    'type': 'object',
    'properties': {
        'name': _NAME,
        'start_date': _DATE,
        'end_date': _DATE,
        'before_end_date': {'type': ['string', 'null']},
        'reservations': {
            'type': 'array',
            'items': dict(_RESERVATION, required=['id'])},
    },
    'minProperties': 1,
}
