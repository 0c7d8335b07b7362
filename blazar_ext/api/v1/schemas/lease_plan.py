"""Request schemas for POST /v1/leases/plan and flexible lease creates:
a lease create body with a duration and a search window instead of
dates. Values are checked in blazar_ext.manager.plan, whose messages name
the field; these schemas check the shape."""

from blazar_ext.api.v1.schemas import lease

_SECONDS = {'type': 'integer'}
_DATE = {'type': 'string', 'minLength': 1, 'maxLength': 64}

_SEARCH = {
    'duration': _SECONDS,
    'min_duration': _SECONDS,
    'max_duration': _SECONDS,
    'not_before': _DATE,
    'not_after': _DATE,
}

PLAN = {
    'type': 'object',
    'properties': dict(
        _SEARCH,
        name=lease.CREATE['properties']['name'],
        reservations=lease.CREATE['properties']['reservations'],
        limit={'type': 'integer'},
        prefer={'type': 'string'},
        with_resources={'type': 'boolean'}),
    'required': ['reservations', 'not_after'],
    'additionalProperties': False,
}

# POST /v1/leases with not_after instead of start_date/end_date.
FLEXIBLE_CREATE = {
    'type': 'object',
    'properties': dict(
        _SEARCH,
        name=lease.CREATE['properties']['name'],
        reservations=lease.CREATE['properties']['reservations'],
        before_end_date={'type': ['string', 'null']},
        events={'type': 'array'}),
    'required': ['name', 'reservations', 'not_after'],
    'additionalProperties': False,
}


def is_flexible(values) -> bool:
    """A lease create that asks for a slot rather than fixed dates."""
    return (isinstance(values, dict) and 'not_after' in values
            and 'start_date' not in values and 'end_date' not in values)
