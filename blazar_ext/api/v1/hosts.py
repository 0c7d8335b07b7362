"""/v1/os-hosts: register, describe and unregister reservable hosts."""

import itertools
import urllib.parse

import pecan
from pecan import rest

from blazar_ext.api.v1 import allocations as v1_allocations
from blazar_ext.api.v1 import availability as v1_availability
from blazar_ext.api.v1 import calendar as v1_calendar
from blazar_ext.api.v1 import maintenance as v1_maintenance
from blazar_ext.api.v1 import properties as v1_properties
from blazar_ext.api.v1.schemas import host as schema
from blazar_ext.api.v1 import views
from blazar_ext.api import validation
from blazar_ext.db.api import host as host_api
from blazar_ext import exceptions
from blazar_ext.plugins import physical_host
from blazar_ext.policies import oshosts as oshosts_policies
from blazar_ext import policy
from blazar_ext.query import language
from blazar_ext.rpc import manager_client


def show_private(context) -> bool:
    """Whether the caller may see (and name) private capabilities."""
    return policy.authorize(context, oshosts_policies.GET_PRIVATE,
                            do_raise=False)


def _service_state(values: dict) -> None:
    """``reservable`` as a boolean; a reason only to take a host out."""
    if isinstance(values.get('reservable'), str):
        values['reservable'] = values['reservable'].lower() == 'true'
    if 'reservable_reason' in values and values.get('reservable') is not \
            False:
        raise exceptions.Invalid(
            reason='reservable_reason is the reason for taking a host out '
                   'of service: give it with reservable false')


# Fields a listing can show without reading any capability.
_COLUMN_FIELDS = frozenset(views.HOST_COLUMNS + ('id', 'created_at',
                                                 'updated_at'))


def _list_query(request) -> dict:
    """The listing's query parameters, validated; each given once."""
    query = request.GET.mixed()
    validation.validate(schema.LIST_QUERY, query)
    return query


def _check_names(values: dict, known: tuple) -> None:
    """Upstream's limit on capability names, and capability values that
    read as NaN or an infinity refused."""
    for name, value in values.items():
        if name in known:
            continue
        if len(name) > schema.MAX_CAPABILITY_NAME:
            raise exceptions.Invalid(
                reason='Extra capability key too long: %s is longer than %d '
                       'characters' % (exceptions.cut(name, 80),
                                       schema.MAX_CAPABILITY_NAME))
        if isinstance(value, str) and language.spells_non_finite(value):
            # Not a number to the property language, so it would compare
            # as text ("inf" >= "4"): refused rather than matched by
            # accident.
            raise exceptions.Invalid(
                reason="'%s': %r reads as NaN or an infinity, which is not a "
                       'number a capability can hold; use a finite number '
                       'or a word' % (exceptions.cut(name, 80), value))


def _check_update(values: dict) -> None:
    """An update sets capabilities or the service state, nothing else."""
    for name in schema.INVENTORY_FIELDS:
        if name in values:
            raise exceptions.Invalid(
                reason='%s cannot be changed on a registered host: it is '
                       'part of the host\'s inventory, taken from its '
                       'registration (host create --extra %s=N), so '
                       'unregister the host and register it again to '
                       'change it' % (name, name))
    for name in values:
        if name in schema.RESERVED_NAMES and \
                name not in schema.SERVICE_FIELDS:
            raise exceptions.Invalid(
                reason='%s cannot be changed on a registered host; only '
                       'extra capabilities and reservable can' % name)
    _check_names(values, schema.SERVICE_FIELDS)


class HostsController(rest.RestController):

    # /v1/os-hosts/properties (python-blazarclient's host property commands).
    properties = v1_properties.TypePropertiesController(
        physical_host.RESOURCE_TYPE)
    # /v1/os-hosts/allocations and /v1/os-hosts/{host_id}/allocation.
    allocations = v1_allocations.HostAllocationsController()
    allocation = v1_allocations.HostAllocationController()
    # /v1/os-hosts/availability: when matching hosts are free.
    availability = v1_availability.HostAvailabilityController()
    # /v1/os-hosts/calendar: what the reservation calendar draws.
    calendar = v1_calendar.HostCalendarController()
    # /v1/os-hosts/{host_id}/maintenance.
    maintenance = v1_maintenance.MaintenanceController()

    @pecan.expose('json')
    def get_all(self):
        context = pecan.request.context
        policy.authorize(context, oshosts_policies.GET)
        query = _list_query(pecan.request)
        limit = int(query['limit']) if 'limit' in query else None
        fields = (frozenset(query['fields'].split(','))
                  if 'fields' in query else None)
        pages = host_api.host_pages(
            context, show_private(context), marker=query.get('marker'),
            limit=limit,
            capabilities=None if fields is None else fields - _COLUMN_FIELDS,
            columns=views.listed_columns(fields))
        # The first page now: a bad marker is a 400 before any byte is
        # sent. The rest is read and sent a page at a time.
        first = next(pages, None)
        pages = itertools.chain([first] if first else [], pages)

        url = pecan.request.path_url  # the request is gone when it streams

        def next_href(last_id, count):
            if limit is None or count < limit:
                return None
            return '%s?%s' % (url, urllib.parse.urlencode(
                dict(query, marker=str(last_id))))
        response = pecan.response
        response.content_type = 'application/json'
        response.app_iter = views.host_list_chunks(pages, next_href)
        return response

    @pecan.expose('json')
    def get_one(self, host_id):
        context = pecan.request.context
        policy.authorize(context, oshosts_policies.GET)
        host = host_api.host_get(context, host_id)
        return {'host': views.host(host, show_private(context))}

    @pecan.expose('json')
    def post(self):
        context = pecan.request.context
        policy.authorize(context, oshosts_policies.POST)
        values = validation.request_json(pecan.request)
        if isinstance(values, dict):
            _check_names(values, tuple(schema.CREATE['properties']))
        validation.validate(schema.CREATE, values)
        for field in schema.INTEGER_FIELDS:
            if isinstance(values.get(field), str):
                values[field] = int(values[field])
            if (values.get(field) or 0) > schema.MAX_INT:
                raise exceptions.Invalid(
                    reason="'%s': %s is greater than the maximum of %d"
                           % (field, values[field], schema.MAX_INT))
        host = manager_client.get_client().resource_call(
            context, physical_host.RESOURCE_TYPE, 'create',
            {'values': values})
        pecan.response.status = 201
        return {'host': views.host(host, show_private(context))}

    @pecan.expose('json')
    def put(self, host_id):
        context = pecan.request.context
        policy.authorize(context, oshosts_policies.PUT)
        values = validation.request_json(pecan.request)
        if isinstance(values, dict):
            _check_update(values)
        validation.validate(schema.UPDATE, values)
        _service_state(values)
        host = manager_client.get_client().resource_call(
            context, physical_host.RESOURCE_TYPE, 'update',
            {'id': host_id, 'values': values})
        return {'host': views.host(host, show_private(context))}

    @pecan.expose(content_type='application/json')
    def delete(self, host_id):
        context = pecan.request.context
        policy.authorize(context, oshosts_policies.DELETE)
        manager_client.get_client().resource_call(
            context, physical_host.RESOURCE_TYPE, 'delete', {'id': host_id})
        pecan.response.status = 204
        return ''
