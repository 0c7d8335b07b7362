"""Request schemas for /v1/subscriptions.

Event names are checked against notifications.catalog by the controller
(the message lists the known ones) and the secret apart from the schema
(a schema error would quote it). The OpenAPI document shows the names
as an enum (``documented``).
"""

import copy

from blazar_ext.notifications import catalog

# Lead times of lease.ending_soon, in seconds: a minute to 90 days.
LEAD_TIME = {'type': 'integer', 'minimum': 60, 'maximum': 90 * 86400}
DEFAULT_LEAD_TIMES = [3600]
SECRET_MIN, SECRET_MAX = 16, 255

_PROPERTIES = {
    'url': {'type': 'string', 'minLength': 1, 'maxLength': 2048},
    'events': {'type': 'array', 'minItems': 1, 'maxItems': 64,
               'uniqueItems': True,
               'items': {'type': 'string', 'minLength': 1,
                         'maxLength': 64}},
    'lead_times': {'type': 'array', 'minItems': 1, 'maxItems': 10,
                   'uniqueItems': True, 'items': LEAD_TIME},
}

CREATE = {
    'type': 'object',
    'properties': dict(_PROPERTIES, all_projects={'type': 'boolean'}),
    'required': ['url', 'events'],
    'additionalProperties': False,
}

UPDATE = {
    'type': 'object',
    'properties': _PROPERTIES,
    'additionalProperties': False,
}


def event_name() -> dict:
    """An event name as the OpenAPI document shows it: one of the
    catalog's."""
    return {'type': 'string', 'enum': catalog.names()}


def documented(schema: dict) -> dict:
    """``schema`` with the event names as an enum, for the OpenAPI
    document (the controller checks them, with a clearer message)."""
    schema = copy.deepcopy(schema)
    schema['properties']['events']['items'] = event_name()
    return schema
