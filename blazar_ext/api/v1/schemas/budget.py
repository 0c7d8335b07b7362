"""Request schemas for /v1/budgets and /v1/rates."""

from blazar_ext.db.api import budget as budget_api

_ID = {'type': 'string', 'minLength': 1, 'maxLength': 255}
_REASON = {'type': 'string', 'minLength': 1, 'maxLength': 1024}

CREATE = {
    'type': 'object',
    'properties': {
        'project_id': _ID,
        'user_id': {'type': ['string', 'null'], 'maxLength': 255},
        'credits': {'type': 'number', 'minimum': 0,
                    'maximum': 1e15},
        'period': {'enum': list(budget_api.PERIODS) + [None]},
        'reason': _REASON,
    },
    'required': ['project_id', 'credits'],
    'additionalProperties': False,
}

ADJUST = {
    'type': 'object',
    'properties': {
        'amount': {'type': 'number', 'minimum': -1e15, 'maximum': 1e15,
                   'not': {'const': 0}},
        'reason': _REASON,
    },
    'required': ['amount', 'reason'],
    'additionalProperties': False,
}

RATES = {
    'type': 'object',
    'properties': {'rates': {'type': 'array', 'maxItems': 1000,
                             'items': {'type': 'object'}}},
    'required': ['rates'],
    'additionalProperties': False,
}
