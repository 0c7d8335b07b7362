"""Request schemas for /v1/budgets and /v1/rates."""

from blazar_ext.db.api.budgets import budget as budget_api

_ID = {'type': 'string', 'minLength': 1, 'maxLength': 255}
_REASON = {'type': 'string', 'minLength': 1, 'maxLength': 1024}

CREATE = {
    'type': 'object',
    'properties': {
        'project_id': _ID,
        'user_id': {'type': ['string', 'null'], 'maxLength': 255},
        'credits': {'type': 'number', 'minimum': 0,
                    'maximum': budget_api.MAX_CREDITS},
        'period': {'enum': list(budget_api.PERIODS) + [None]},
        'reason': _REASON,
    },
    'required': ['project_id', 'credits'],
    'additionalProperties': False,
}

ADJUST = {
    'type': 'object',
    'properties': {
        'amount': {'type': 'number', 'minimum': -budget_api.MAX_CREDITS,
                   'maximum': budget_api.MAX_CREDITS,
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
