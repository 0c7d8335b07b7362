"""The reservation API's OpenAPI document, served at GET /v1/openapi.json.

``OPERATIONS`` describes every route of api/v1/routes.py, those of every
resource plugin that mounts a controller included (enabled or not): the
request and query schemas are the objects the handlers validate with,
the responses those of schemas/responses.py. A route missing here fails
tests/unit/test_v1_openapi.py; a response that does not match fails the
functional test that made it (tests/conformance.py).
"""

import functools

import pecan
from pecan import rest

from blazar_ext.api import openapi
from blazar_ext.api.v1.schemas import budget as budget_schema
from blazar_ext.api.v1.schemas import device as device_schema
from blazar_ext.api.v1.schemas import floatingip as floatingip_schema
from blazar_ext.api.v1.schemas import host as host_schema
from blazar_ext.api.v1.schemas import lease as lease_schema
from blazar_ext.api.v1.schemas import lease_plan as plan_schema
from blazar_ext.api.v1.schemas import lease_series as series_schema
from blazar_ext.api.v1.schemas import maintenance as maintenance_schema
from blazar_ext.api.v1.schemas import property as property_schema
from blazar_ext.api.v1.schemas import query
from blazar_ext.api.v1.schemas import responses as r
from blazar_ext.api.v1.schemas import subscription as subscription_schema

Operation = openapi.Operation

TITLE = 'Blazar reservation API (v1)'
VERSION = '1.0'
PATH = '/v1/openapi.json'

_LEASE = '/v1/leases/{lease_id}'
_SERIES = '/v1/lease-series/{series_id}'
_BUDGET = '/v1/budgets/{budget_id}'
_SUBSCRIPTION = '/v1/subscriptions/{subscription_id}'
_SUBSCRIBE = subscription_schema.documented(subscription_schema.CREATE)
_RESUBSCRIBE = subscription_schema.documented(subscription_schema.UPDATE)
_PROPERTIES = '/v1/{resource_type}/properties'
_HOSTS = '/v1/os-hosts'
_HOST = _HOSTS + '/{host_id}'
_FIPS = '/v1/floatingips'
_FIP = _FIPS + '/{floatingip_id}'
_DEVICES = '/v1/devices'
_DEVICE = _DEVICES + '/{device_id}'

# The lease create body: fixed dates, a recurrence, or a search window.
_LEASE_CREATE = {'anyOf': [lease_schema.CREATE, series_schema.CREATE,
                           plan_schema.FLEXIBLE_CREATE]}
_NO_BODY = {204: None}


def _type_properties(prefix: str, what: str) -> dict:
    """<collection>/properties: the properties of one resource type, in
    python-blazarclient's shape."""
    return {
        ('GET', prefix + '/properties'): Operation(
            'List the %s properties.' % what, {200: r.TYPE_PROPERTIES},
            query=property_schema.LIST_QUERY),
        ('GET', prefix + '/properties/{name}'): Operation(
            'Show a %s property and its values.' % what,
            {200: r.TYPE_PROPERTY}),
        ('PATCH', prefix + '/properties/{name}'): Operation(
            'Make a %s property private or public.' % what,
            {200: r.TYPE_PROPERTY_UPDATED},
            request=property_schema.UPDATE),
    }


def _maintenance(resource: str, what: str) -> dict:
    """The maintenance window routes below one resource's path."""
    one = resource + '/maintenance/{maintenance_id}'
    change = Operation('Move or shorten a maintenance window.',
                       {200: r.WINDOW_CHANGE},
                       request=maintenance_schema.UPDATE)
    return {
        ('GET', resource + '/maintenance'): Operation(
            'The maintenance windows of %s.' % what, {200: r.WINDOWS}),
        ('POST', resource + '/maintenance'): Operation(
            'Schedule a maintenance window on %s (200 and nothing '
            'written with ``dry_run``).' % what,
            {201: r.WINDOW_CHANGE, 200: r.WINDOW_CHANGE},
            request=maintenance_schema.CREATE),
        ('GET', one): Operation('Show a maintenance window.',
                                {200: r.ONE_WINDOW}),
        ('PUT', one): change,
        ('PATCH', one): change,
        ('DELETE', one): Operation('Cancel a maintenance window.',
                                   _NO_BODY),
    }


def _calendar(prefix: str, what: str) -> dict:
    return {('GET', prefix + '/calendar'): Operation(
        'What the reservation calendar draws for %s over a window.' % what,
        {200: r.CALENDAR}, query=query.CALENDAR)}


CORE = {
    ('GET', '/'): Operation(
        'The API versions (300 Multiple Choices, as Blazar).',
        {300: r.VERSIONS}, public=True),
    ('GET', '/v1'): Operation('The v1 version.', {200: r.VERSION},
                              public=True),
    ('GET', PATH): Operation('This document.', {200: r.OPENAPI},
                             public=True),
    ('GET', '/v1/leases'): Operation(
        "List leases (the caller's project's, or every project's for "
        'those allowed).', {200: r.LEASES}, query=query.LEASES),
    ('POST', '/v1/leases'): Operation(
        'Create a lease; with ``recurrence``, a lease series (the first '
        'occurrence answers); with ``not_after`` and no dates, the first '
        'slot that fits.', {201: r.CREATED_LEASE}, request=_LEASE_CREATE),
    ('GET', _LEASE): Operation('Show a lease.', {200: r.ONE_LEASE}),
    ('PUT', _LEASE): Operation('Update a lease.', {200: r.ONE_LEASE},
                               request=lease_schema.UPDATE),
    ('DELETE', _LEASE): Operation('Delete a lease.', _NO_BODY),
    ('POST', '/v1/leases/quote'): Operation(
        'Price a lease create body; nothing changes.', {200: r.QUOTE},
        request=lease_schema.CREATE),
    ('POST', '/v1/leases/plan'): Operation(
        'When a lease request fits.', {200: r.PLAN},
        request=plan_schema.PLAN),
    ('GET', _LEASE + '/extension'): Operation(
        'How far a lease could be extended.', {200: r.EXTENSION}),
    ('GET', '/v1/lease-series'): Operation(
        'List lease series.', {200: r.SERIES_LIST}),
    ('GET', _SERIES): Operation('Show a lease series.', {200: r.SERIES}),
    ('PATCH', _SERIES): Operation(
        "Change a series' future occurrences.", {200: r.SERIES_UPDATED},
        request=series_schema.UPDATE),
    ('DELETE', _SERIES): Operation(
        'Delete a series and its future occurrences.', _NO_BODY),
    ('POST', _SERIES + '/skip'): Operation(
        'Skip the occurrence of one local date.', {200: r.SERIES},
        request=series_schema.SKIP),
    ('GET', '/v1/maintenance'): Operation(
        'Every maintenance window, of hosts and floating IPs.',
        {200: r.WINDOWS}),
    ('GET', _PROPERTIES): Operation(
        'List the properties of a resource type (the discovery spec).',
        {200: r.SPEC_PROPERTIES}, query=property_schema.LIST_QUERY),
    ('GET', _PROPERTIES + '/{name}'): Operation(
        'Show a property and its values.', {200: r.SPEC_PROPERTY}),
    ('PATCH', _PROPERTIES + '/{name}'): Operation(
        'Make a property private or public.', _NO_BODY,
        request=property_schema.UPDATE),
    ('GET', '/v1/budgets'): Operation('List budgets.', {200: r.BUDGETS},
                                      query=query.BUDGETS),
    ('POST', '/v1/budgets'): Operation(
        'Create a budget.', {201: r.ONE_BUDGET},
        request=budget_schema.CREATE),
    ('GET', _BUDGET): Operation('Show a budget.', {200: r.ONE_BUDGET}),
    ('DELETE', _BUDGET): Operation('Delete a budget.', _NO_BODY),
    ('POST', _BUDGET + '/adjust'): Operation(
        "Add to or take from a budget's credits.", {200: r.ONE_BUDGET},
        request=budget_schema.ADJUST),
    ('GET', _BUDGET + '/ledger'): Operation(
        "A budget's ledger, oldest first.", {200: r.LEDGER}),
    ('GET', '/v1/rates'): Operation(
        'What resources cost in credits per hour.', {200: r.RATES}),
    ('PUT', '/v1/rates'): Operation(
        'Replace the rates.', {200: r.RATES}, request=budget_schema.RATES),
    ('GET', '/v1/subscriptions'): Operation(
        'List webhook subscriptions.', {200: r.SUBSCRIPTIONS}),
    ('POST', '/v1/subscriptions'): Operation(
        'Subscribe a URL to lease events (``secret`` signs the '
        'deliveries and is never shown).', {201: r.ONE_SUBSCRIPTION},
        request=_SUBSCRIBE),
    ('GET', _SUBSCRIPTION): Operation(
        'Show a subscription.', {200: r.ONE_SUBSCRIPTION}),
    ('PATCH', _SUBSCRIPTION): Operation(
        'Change a subscription.', {200: r.ONE_SUBSCRIPTION},
        request=_RESUBSCRIBE),
    ('DELETE', _SUBSCRIPTION): Operation('Unsubscribe.', _NO_BODY),
    ('GET', _SUBSCRIPTION + '/deliveries'): Operation(
        "A subscription's deliveries and their attempts.",
        {200: r.DELIVERIES}),
}

# physical:host, mounted at /v1/os-hosts.
HOSTS = {
    ('GET', _HOSTS): Operation(
        'List hosts, their extra capabilities as keys; pages with '
        '``limit`` and ``marker``, keys picked with ``fields``.',
        {200: r.HOSTS}, query=host_schema.LIST_QUERY),
    ('POST', _HOSTS): Operation('Register a host.', {201: r.ONE_HOST},
                                request=host_schema.CREATE),
    ('GET', _HOST): Operation('Show a host.', {200: r.ONE_HOST}),
    ('PUT', _HOST): Operation(
        'Set extra capabilities (null removes one) or the service state.',
        {200: r.ONE_HOST}, request=host_schema.UPDATE),
    ('DELETE', _HOST): Operation('Unregister a host.', _NO_BODY),
    ('GET', _HOSTS + '/allocations'): Operation(
        'Each host and the reservations holding it.',
        {200: r.HOST_ALLOCATIONS}, query=query.ALLOCATIONS),
    ('GET', _HOST + '/allocation'): Operation(
        'The reservations holding a host.', {200: r.ONE_HOST_ALLOCATION},
        query=query.ALLOCATIONS),
    ('GET', _HOSTS + '/availability'): Operation(
        'When ``count`` matching hosts are free.', {200: r.AVAILABILITY},
        query=query.AVAILABILITY),
}
HOSTS.update(_maintenance(_HOST, 'a host'))
HOSTS.update(_type_properties(_HOSTS, 'host'))
HOSTS.update(_calendar(_HOSTS, 'hosts'))

# virtual:floatingip, mounted at /v1/floatingips.
FLOATINGIPS = {
    ('GET', _FIPS): Operation('List floating IPs.', {200: r.FLOATINGIPS}),
    ('POST', _FIPS): Operation(
        'Register a floating IP.', {201: r.ONE_FLOATINGIP},
        request=floatingip_schema.CREATE),
    ('GET', _FIP): Operation('Show a floating IP.', {200: r.ONE_FLOATINGIP}),
    ('DELETE', _FIP): Operation('Unregister a floating IP.', _NO_BODY),
    ('GET', _FIPS + '/allocations'): Operation(
        'Each floating IP and the reservations holding it.',
        {200: r.FLOATINGIP_ALLOCATIONS}, query=query.ALLOCATIONS),
    ('GET', _FIP + '/allocation'): Operation(
        'The reservations holding a floating IP.',
        {200: r.ONE_FLOATINGIP_ALLOCATION}, query=query.ALLOCATIONS),
}
FLOATINGIPS.update(_calendar(_FIPS, 'floating IPs'))
FLOATINGIPS.update(_maintenance(_FIP, 'a floating IP'))

# physical:device, mounted at /v1/devices.
DEVICES = {
    ('GET', _DEVICES): Operation('List devices.', {200: r.DEVICES}),
    ('POST', _DEVICES): Operation('Register a device.', {201: r.ONE_DEVICE},
                                  request=device_schema.CREATE),
    ('GET', _DEVICE): Operation('Show a device.', {200: r.ONE_DEVICE}),
    ('PUT', _DEVICE): Operation(
        'Set extra capabilities (null removes one) or the service state.',
        {200: r.ONE_DEVICE}, request=device_schema.UPDATE),
    ('DELETE', _DEVICE): Operation('Unregister a device.', _NO_BODY),
    ('GET', _DEVICES + '/allocations'): Operation(
        'Each device and the reservations holding it.',
        {200: r.DEVICE_ALLOCATIONS}),
}
DEVICES.update(_type_properties(_DEVICES, 'device'))
DEVICES.update(_calendar(_DEVICES, 'devices'))

# The reservation calendar's page (api/calendar), beside the API: its
# files are not JSON, its errors are this family's.
PAGES = {
    ('GET', '/calendar'): Operation(
        'Redirects to /calendar/.', {301: None}, public=True),
    ('GET', '/calendar/'): Operation(
        'The reservation calendar page.', {200: {'type': 'string'}},
        public=True, content_type='text/html'),
    ('GET', '/calendar/tabs.json'): Operation(
        "The page's tabs: one per enabled resource type with a calendar.",
        {200: r.CALENDAR_TABS}, public=True),
    ('GET', '/calendar/{file}'): Operation(
        "The page's script, style sheet and icon.",
        {200: {'type': 'string'}, 304: None}, public=True,
        content_type='*/*'),
}

OPERATIONS = {**CORE, **HOSTS, **FLOATINGIPS, **DEVICES, **PAGES}

DESCRIPTION = (
    "OpenStack Blazar's reservation API, as python-blazarclient calls "
    'it, with blazar_ext\'s extensions. A resource type\'s collection '
    '(/v1/os-hosts, /v1/floatingips, /v1/devices) is served when its '
    'plugin is enabled. Errors answer {"error_code", "error_message", '
    '"error_name"}.')


@functools.lru_cache(maxsize=None)
def document() -> dict:
    """The OpenAPI 3.1 document of the v1 family (built once)."""
    return openapi.document(TITLE, VERSION, '/', OPERATIONS, r.ERROR,
                            DESCRIPTION)


class OpenAPIController(rest.RestController):
    """GET /v1/openapi.json, without authentication."""

    @pecan.expose('json')
    def get_all(self):
        return document()
