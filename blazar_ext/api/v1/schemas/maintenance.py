"""Request schemas for host maintenance windows. Dates are checked in the
manager, whose messages name the field."""

_DATE = {'type': 'string', 'minLength': 1, 'maxLength': 64}
_DRY_RUN = {'type': ['boolean', 'string']}

CREATE = {
    'type': 'object',
    'properties': {
        'start_date': _DATE,
        'end_date': _DATE,
        'reason': {'type': ['string', 'null'], 'maxLength': 255},
        'dry_run': _DRY_RUN,
    },
    'required': ['start_date', 'end_date'],
    'additionalProperties': False,
}

UPDATE = {
    'type': 'object',
    'properties': {
        'start_date': _DATE,
        'end_date': _DATE,
        'dry_run': _DRY_RUN,
    },
    'additionalProperties': False,
    'minProperties': 1,
}
