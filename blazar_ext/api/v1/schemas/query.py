"""Query strings of the v1 routes whose parameters are checked in code
(their messages name the parameter and what it takes): the parameter
names the handlers accept come from these schemas, and the OpenAPI
document shows them."""

_MINUTE = {'type': 'string', 'minLength': 1,
           'description': "'YYYY-MM-DD HH:MM' (UTC)"}
_COUNT = {'type': 'string', 'pattern': '^[0-9]+$'}
MAX_COUNT = 2 ** 31 - 1
# A calendar page is a screenful or two of rows.
MAX_CALENDAR_LIMIT = 1000


def _query(properties: dict, required=(), others: bool = False) -> dict:
    return {'type': 'object', 'properties': properties,
            'required': list(required), 'additionalProperties': others}


# GET /v1/os-hosts/availability (unknown parameters refused).
AVAILABILITY = _query({
    'start': dict(_MINUTE, description="'YYYY-MM-DD HH:MM' or 'now'"),
    'end': _MINUTE,
    'count': dict(_COUNT, description='hosts wanted at once, 1 to %d'
                  % MAX_COUNT),
    'duration': dict(_COUNT, description='minutes; the window by default'),
    'resource_properties': {'type': 'string'},
    'hypervisor_properties': {'type': 'string'},
    # Repeatable, as Placement's ``required``.
    'traits': {'type': 'array', 'items': {'type': 'string'}},
}, required=('start', 'end'))

# GET <collection>/calendar (unknown parameters refused).
CALENDAR = _query({
    'start': dict(_MINUTE, description="'YYYY-MM-DD HH:MM' or 'now'"),
    'end': _MINUTE,
    'limit': dict(_COUNT, description='resources per page, 1 to %d'
                  % MAX_CALENDAR_LIMIT),
    'marker': {'type': 'string',
               'description': 'the name the previous page ended with'},
}, required=('start', 'end'))

# GET <collection>/allocations and <collection>/{id}/allocation; other
# parameters are ignored, as upstream Blazar ignores them.
ALLOCATIONS = _query({'lease_id': {'type': 'string'},
                      'reservation_id': {'type': 'string'}}, others=True)

# GET /v1/leases: the leases needing an operator, or the others.
LEASES = _query({'degraded': {
    'type': 'string', 'pattern': '^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$'}},
    others=True)

# GET /v1/budgets: one project's (for those who may see every project's).
BUDGETS = _query({'project_id': {'type': 'string'}}, others=True)
