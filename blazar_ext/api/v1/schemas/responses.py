"""Response schemas of the reservation API (Blazar v1), for its OpenAPI
document (api/v1/openapi.py) and the functional tests' conformance check.

Objects whose keys the code fixes are closed (``additionalProperties``
false), so a key added to a view without its schema fails the check;
those a plugin or an operator extends (a host's or device's extra
capabilities, a reservation's per-type fields) are open.
"""

from blazar_ext.db.api.budgets import budget as budget_api
from blazar_ext.db.api import lease_series as series_api
from blazar_ext.db.api import maintenance as maintenance_api
from blazar_ext.notifications import catalog
from blazar_ext import states


def _constants(cls: type) -> list:
    """The string constants of a states class, in upper or lower case."""
    return sorted({value for name, value in vars(cls).items()
                   if name.isupper() and isinstance(value, str)})


def obj(properties: dict, required=None, additional=False) -> dict:
    """An object of ``properties``; all required unless told otherwise."""
    return {'type': 'object', 'properties': properties,
            'required': sorted(properties if required is None
                               else required),
            'additionalProperties': additional}


def array(items: dict) -> dict:
    return {'type': 'array', 'items': items}


def nullable(schema: dict) -> dict:
    return {'anyOf': [schema, {'type': 'null'}]}


STRING = {'type': 'string'}
OPT_STRING = {'type': ['string', 'null']}
BOOLEAN = {'type': 'boolean'}
INTEGER = {'type': 'integer'}
NUMBER = {'type': 'number'}
# A lease date or event time: 'YYYY-MM-DDTHH:MM:SS.ffffff'.
STAMP = {'type': 'string',
         'pattern': r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$'}
# A row's created_at or updated_at: 'YYYY-MM-DD HH:MM:SS.ffffff'.
RECORD = {'type': 'string',
          'pattern': r'^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$'}
# A row as a write returns it (upstream's manager answer): either.
ROW_TIME = {'type': 'string',
            'pattern': r'^\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d\.\d{6}$'}
# A window parameter's date: 'YYYY-MM-DD HH:MM'.
MINUTE = {'type': 'string', 'pattern': r'^\d{4}-\d\d-\d\d \d\d:\d\d$'}
# Capability values as stored (text) or given (numbers, booleans).
CAPABILITY_VALUE = {'type': ['string', 'number', 'boolean', 'null']}


def _stamped(properties: dict, time: dict = RECORD) -> dict:
    return dict(properties, created_at=time, updated_at=nullable(time))


# --- versions --------------------------------------------------------------

VERSION = obj({
    'id': STRING, 'status': STRING,
    'links': array(obj({'href': STRING, 'rel': STRING})),
    'min_version': STRING, 'max_version': STRING})
VERSIONS = obj({'versions': array(VERSION)})
OPENAPI = obj({'openapi': STRING, 'info': {'type': 'object'},
               'paths': {'type': 'object'}},
              required=['openapi', 'info', 'paths'], additional=True)

# --- leases ----------------------------------------------------------------

LEASE_STATUS = {'enum': _constants(states.Lease)
                + [maintenance_api.HOLD_STATUS]}
RESERVATION = obj(_stamped({
    'id': STRING, 'lease_id': STRING,
    'status': {'enum': _constants(states.Reservation)},
    'resource_id': OPT_STRING, 'resource_type': STRING,
    'missing_resources': {'type': ['boolean', 'null']},
    'resources_changed': {'type': ['boolean', 'null']}}),
    # Each type adds its own fields (min, max, amount, flavor, ...).
    additional=True)
EVENT = obj(_stamped({
    'id': STRING, 'lease_id': STRING,
    'event_type': {'enum': sorted(states.Event.ORDER)},
    'status': {'enum': ['UNDONE', 'IN_PROGRESS', 'DONE', 'ERROR']},
    'time': STAMP}))
_LEASE_FIELDS = _stamped({
    'id': STRING, 'name': STRING, 'status': LEASE_STATUS,
    'degraded': {'type': ['boolean', 'null']},
    'user_id': OPT_STRING, 'project_id': OPT_STRING, 'trust_id': OPT_STRING,
    'start_date': STAMP, 'end_date': STAMP,
    'reservations': array(RESERVATION), 'events': array(EVENT)})
LEASE = obj(_LEASE_FIELDS)
# POST /v1/leases with ``recurrence``: the first occurrence.
SERIES_LEASE = obj(dict(_LEASE_FIELDS, series_id=STRING,
                        skipped=array(STRING)))
ONE_LEASE = obj({'lease': LEASE})
CREATED_LEASE = obj({'lease': {'anyOf': [LEASE, SERIES_LEASE]}})
LEASES = obj({'leases': array(LEASE)})

_PRICED = {'type': 'object', 'additionalProperties': True}
QUOTE = obj({'quote': obj({
    'cost': NUMBER, 'currency': {'const': 'credits'},
    'start_date': MINUTE, 'end_date': MINUTE,
    # One per rate applied: resource type, count, hours, cost...
    'rate_lines': array(_PRICED),
    'budgets': array(obj({'id': STRING, 'project_id': STRING,
                          'user_id': OPT_STRING, 'balance': NUMBER,
                          'balance_after': NUMBER}))})})

PLAN = obj({'options': array(obj(
    {'start_date': MINUTE, 'end_date': MINUTE, 'duration': INTEGER,
     'latest_end_date': MINUTE,
     # with_resources: per reservation, the ids it would take.
     'resources': array(array({'type': ['string', 'integer']}))},
    required=['start_date', 'end_date', 'duration']))})

_EXTENDED = {'latest_end_date': MINUTE, 'latest_end_date_moving': MINUTE,
             'moving_helps': BOOLEAN}
EXTENSION = obj({'extension': obj(dict(
    _EXTENDED, lease_id=STRING, end_date=MINUTE,
    limited_by={'enum': ['resources', 'enforcement', 'horizon']},
    reservations=array(obj(dict(_EXTENDED, id=STRING,
                                resource_type=STRING)))))})

# --- lease series ----------------------------------------------------------

_OCCURRENCE = obj({
    'lease_id': OPT_STRING, 'start_date': STAMP, 'end_date': STAMP,
    # The lease's status when one is booked, else why there is none.
    'status': {'anyOf': [LEASE_STATUS, {'enum': [
        'DELETED', series_api.SKIPPED, series_api.UNAVAILABLE,
        series_api.CANCELLED]}]}})
_SERIES_FIELDS = _stamped({
    'id': STRING, 'name': STRING, 'user_id': OPT_STRING,
    'project_id': OPT_STRING, 'recurrence': STRING, 'timezone': STRING,
    'booking': {'enum': ['all', 'available']},
    'status': {'enum': [series_api.ACTIVE, series_api.DELETED]},
    'start_date': STAMP, 'end_date': STAMP,
    # As the create body gave them.
    'reservations': array({'type': 'object'}),
    'occurrences': array(_OCCURRENCE)})
SERIES = obj({'lease_series': obj(_SERIES_FIELDS)})
SERIES_LIST = obj({'lease_series': array(obj(_SERIES_FIELDS))})
# PATCH: the occurrences that could not take the change.
SERIES_UPDATED = obj({'lease_series': obj(dict(
    _SERIES_FIELDS, failed=array({'type': 'object'})))})

# --- hosts -----------------------------------------------------------------

_COUNT = {'type': ['integer', 'null']}
_HOST_FIELDS = _stamped({
    'id': STRING, 'hypervisor_hostname': OPT_STRING, 'vcpus': _COUNT,
    'cpu_info': OPT_STRING, 'hypervisor_type': OPT_STRING,
    'hypervisor_version': _COUNT, 'memory_mb': _COUNT, 'local_gb': _COUNT,
    'service_name': OPT_STRING, 'availability_zone': STRING,
    'status': OPT_STRING, 'trust_id': OPT_STRING,
    'reservable': BOOLEAN, 'disabled': BOOLEAN,
    'reservable_reason': OPT_STRING})
# Extra capabilities are top-level keys.
HOST = obj(_HOST_FIELDS, additional=CAPABILITY_VALUE)
ONE_HOST = obj({'host': HOST})
_LINKS = array(obj({'rel': {'const': 'next'}, 'href': STRING}))
# ?fields= picks the keys a listed host shows.
HOSTS = obj({'hosts': array(obj(_HOST_FIELDS, required=[],
                                additional=CAPABILITY_VALUE)),
             'hosts_links': _LINKS}, required=['hosts'])

_ALLOCATED = array(obj({'id': STRING, 'lease_id': STRING,
                        'start_date': STAMP, 'end_date': STAMP}))
HOST_ALLOCATION = obj({'resource_id': STRING,
                       'reservable': {'type': ['boolean', 'null']},
                       'reservations': _ALLOCATED})
HOST_ALLOCATIONS = obj({'allocations': array(HOST_ALLOCATION)})
ONE_HOST_ALLOCATION = obj({'allocation': HOST_ALLOCATION})

_FREE = {'start': MINUTE, 'end': MINUTE}
AVAILABILITY = obj({'availability': obj({
    'start': MINUTE, 'end': MINUTE, 'count': INTEGER, 'duration': INTEGER,
    'matching_hosts': INTEGER,
    'free_hosts': array(obj(dict(_FREE, hosts=INTEGER))),
    'slots': array(obj(_FREE)),
    'earliest': nullable(obj(_FREE))})})

# Leases and allocations are rows under their field names.
# /calendar/tabs.json: the calendar_tab of each enabled resource plugin.
CALENDAR_TABS = obj({'tabs': array(obj({
    'key': STRING, 'label': STRING, 'column': STRING, 'noun': STRING,
    'path': STRING, 'resource_type': STRING}))})
CALENDAR = obj({'calendar': obj({
    'start': MINUTE, 'end': MINUTE, 'resource_count': INTEGER,
    # Per type: a host's reservable_reason, a floating IP's network.
    'resources': array(obj(
        {'id': STRING, 'name': STRING, 'reservable': BOOLEAN,
         'disabled': BOOLEAN},
        additional=True)),
    'lease_fields': array(STRING),
    'leases': array({'type': 'array'}),
    'allocation_fields': array(STRING),
    'allocations': array({
        'type': 'array', 'items': False,
        'prefixItems': [STRING, MINUTE, MINUTE, OPT_STRING]})})})

# --- maintenance -----------------------------------------------------------

_WINDOW_FIELDS = {
    'id': STRING, 'resource_type': STRING, 'start_date': STAMP,
    'end_date': STAMP, 'reason': OPT_STRING,
    'status': {'enum': [maintenance_api.SCHEDULED, maintenance_api.ACTIVE,
                        maintenance_api.DONE, maintenance_api.CANCELLED]},
    'lease_id': OPT_STRING}
# The manager's answer to a change carries no row times; the resource is
# named by host_id (physical:host) or floatingip_id (virtual:floatingip).
WINDOW = obj(_stamped(dict(_WINDOW_FIELDS, host_id=STRING,
                           floatingip_id=STRING)),
             required=list(_WINDOW_FIELDS))
ONE_WINDOW = obj({'maintenance': WINDOW})
WINDOWS = obj({'maintenances': array(WINDOW)})
_MOVE = {'lease_id': STRING, 'reservation_id': STRING,
         'resource_type': STRING, 'from': {'type': ['string', 'integer']}}
WINDOW_CHANGE = obj({
    'maintenance': WINDOW, 'dry_run': BOOLEAN,
    'moved': array(obj(dict(_MOVE, to={'type': ['string', 'integer']}))),
    'unmovable': array(obj(_MOVE))})

# --- floating IPs ----------------------------------------------------------

FLOATINGIP = obj(_stamped({
    'id': STRING, 'floating_network_id': STRING,
    'floating_ip_address': STRING, 'subnet_id': OPT_STRING,
    'reservable': BOOLEAN}, ROW_TIME))
ONE_FLOATINGIP = obj({'floatingip': FLOATINGIP})
FLOATINGIPS = obj({'floatingips': array(FLOATINGIP)})
_FIP_ALLOCATION = obj({'resource_id': STRING, 'reservations': _ALLOCATED})
FLOATINGIP_ALLOCATIONS = obj({'allocations': array(_FIP_ALLOCATION)})
ONE_FLOATINGIP_ALLOCATION = obj({'allocation': _FIP_ALLOCATION})

# --- devices (the physical:device plugin) ----------------------------------

DEVICE = obj(_stamped({
    'id': STRING, 'name': STRING, 'device_type': STRING,
    'vendor': OPT_STRING, 'model': OPT_STRING, 'reservable': BOOLEAN,
    'reservable_reason': OPT_STRING,
    # Its resource provider (null if none) and that provider's traits.
    'resource_provider_uuid': OPT_STRING,
    'traits': array(STRING)}), additional=CAPABILITY_VALUE)
ONE_DEVICE = obj({'device': DEVICE})
DEVICES = obj({'devices': array(DEVICE)})
DEVICE_ALLOCATIONS = FLOATINGIP_ALLOCATIONS

# --- resource properties ---------------------------------------------------

# What the metadefs catalog says of a property, when it does.
_CATALOG = {'title': STRING, 'type': STRING, 'items_type': STRING,
            'operators': array(STRING)}


def _property(values: dict) -> dict:
    return obj(dict(_CATALOG, property=STRING, private=BOOLEAN,
                    values=values), required=['property', 'private'])


# /v1/{resource_type}/properties: values as [{"value": v}].
_SPEC_VALUES = array(obj({'value': STRING}))
SPEC_PROPERTIES = array(_property(_SPEC_VALUES))
SPEC_PROPERTY = dict(_property(_SPEC_VALUES),
                     required=['property', 'private', 'values'])
# <collection>/properties: values as plain strings.
_PROPERTY = _property(array(STRING))
TYPE_PROPERTIES = obj({'resource_properties': array(_PROPERTY)})
TYPE_PROPERTY = obj({'resource_property': dict(
    _PROPERTY, required=['property', 'private', 'values'])})
# PATCH: upstream Blazar's record keys too.
TYPE_PROPERTY_UPDATED = obj({'resource_property': obj(_stamped(dict(
    _PROPERTY['properties'], id=STRING, resource_type=STRING,
    property_name=STRING), ROW_TIME), required=[
    'property', 'private', 'values', 'id', 'resource_type',
    'property_name', 'created_at', 'updated_at'])})

# --- budgets and rates -----------------------------------------------------

BUDGET = obj(_stamped({
    'id': STRING, 'project_id': STRING, 'user_id': OPT_STRING,
    'credits': NUMBER, 'spent': NUMBER, 'balance': NUMBER,
    'period': {'enum': list(budget_api.PERIODS) + [None]},
    'period_start': nullable(RECORD)}))
ONE_BUDGET = obj({'budget': BUDGET})
BUDGETS = obj({'budgets': array(BUDGET)})
LEDGER = obj({'ledger': array(obj({
    'id': {'type': ['string', 'integer']}, 'lease_id': OPT_STRING,
    'kind': {'enum': [budget_api.CHARGE, budget_api.REFUND,
                      budget_api.ADJUST, budget_api.CREATE,
                      budget_api.RENEW]},
    'amount': NUMBER, 'balance': NUMBER, 'reason': OPT_STRING,
    'created_at': RECORD}))})

RATE = obj({'resource_type': STRING,
            # A property filter (physical:host rates), parsed.
            'properties': {'type': ['array', 'null']},
            'credits_per_hour': NUMBER, 'credits_per_vcpu_hour': NUMBER,
            'credits_per_gb_hour': NUMBER})
RATES = obj({'rates': array(RATE), 'source': {'enum': ['file', 'api']},
             'default_rate': NUMBER,
             # The rates file cannot be read (no rates then).
             'error': STRING},
            required=['rates', 'source', 'default_rate'])

# --- subscriptions ---------------------------------------------------------

SUBSCRIPTION = obj(_stamped({
    'id': STRING, 'project_id': OPT_STRING, 'user_id': OPT_STRING,
    'url': STRING,
    'events': array({'type': 'string', 'enum': catalog.names()}),
    'lead_times': array(INTEGER),
    'all_projects': BOOLEAN}, STAMP))
ONE_SUBSCRIPTION = obj({'subscription': SUBSCRIPTION})
SUBSCRIPTIONS = obj({'subscriptions': array(SUBSCRIPTION)})
_ATTEMPT = obj({'attempted_at': nullable(STAMP),
                'status_code': {'type': ['integer', 'null']},
                'error': OPT_STRING,
                'duration_ms': {'type': ['integer', 'number', 'null']}})
DELIVERIES = obj({'deliveries': array(obj({
    'id': {'type': ['string', 'integer']}, 'event_id': STRING,
    'event_type': STRING, 'subject': OPT_STRING, 'status': STRING,
    'attempts': INTEGER, 'last_status_code': {'type': ['integer', 'null']},
    'last_error': OPT_STRING, 'next_attempt_at': nullable(STAMP),
    'delivered_at': nullable(STAMP), 'created_at': STAMP,
    'attempt_log': array(_ATTEMPT)}))})

# --- errors ----------------------------------------------------------------

# api/v1/errors.render: error_name is the status of a 4xx, the title in
# capitals of a 5xx; a routing error also carries upstream's "error".
V1_ERROR = obj({'error_code': INTEGER, 'error_message': STRING,
                'error_name': {'type': ['integer', 'string']},
                'error': INTEGER},
               required=['error_code', 'error_message', 'error_name'])
# What authentication answers before the API (keystonemiddleware, and
# noauth as it): {"error": {"code", "title", "message"}}.
AUTH_ERROR = obj({'error': obj({'code': INTEGER, 'title': STRING,
                                'message': STRING})})
ERROR = {'description': "Blazar's error shape; a request refused by "
                        "authentication (401) answers keystonemiddleware's.",
         'oneOf': [V1_ERROR, AUTH_ERROR]}
