"""Request schemas for /v1/subscriptions.

Event names are checked against notifications.catalog by the controller
(the message lists the known ones) and the secret apart from the schema
(a schema error would quote it).
"""

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
