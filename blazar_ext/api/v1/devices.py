"""/v1/devices, routed by the physical:device plugin: register, describe,
take out of service and unregister devices; /v1/devices/properties
(properties discovery), /v1/devices/allocations and /v1/devices/calendar.

Reads go to the database; writes are the manager's generic resource call.
A device shows its extra capabilities as top-level keys, as a host does,
private ones only to callers allowed ``blazar:devices:get_private``.
"""

from oslo_utils import timeutils
import pecan
from pecan import rest

from blazar_ext.api import routing
from blazar_ext.api.v1 import calendar as v1_calendar
from blazar_ext.api.v1 import properties as v1_properties
from blazar_ext.api.v1.schemas import device as schema
from blazar_ext.api.v1 import views
from blazar_ext.api import validation
from blazar_ext.db.api import device as device_api
from blazar_ext import exceptions
from blazar_ext.plugins.device import RESOURCE_TYPE
from blazar_ext.policies import devices as device_policies
from blazar_ext import policy
from blazar_ext.query import language
from blazar_ext.rpc import manager_client

# The device's own fields, in the order shown.
FIELDS = ('id', 'name', 'device_type', 'vendor', 'model', 'reservable',
          'reservable_reason', 'resource_provider_uuid', 'traits')


def show_private(context) -> bool:
    return policy.authorize(context, device_policies.GET_PRIVATE,
                            do_raise=False)


def view(device: dict, private: bool) -> dict:
    """A device with its (visible) capabilities as top-level keys."""
    body = {name: device.get(name) for name in FIELDS}
    body['created_at'] = views.record_time(device.get('created_at'))
    body['updated_at'] = views.record_time(device.get('updated_at'))
    for name, capability in sorted(device['capabilities'].items()):
        if private or not capability['private']:
            body.setdefault(name, capability['value'])
    return body


def _check_values(values: dict) -> None:
    """Capability values the property language would misread refused, as
    for hosts."""
    for name, value in values.items():
        if isinstance(value, str) and language.spells_non_finite(value):
            raise exceptions.Invalid(
                reason="'%s': %r reads as NaN or an infinity, which is not "
                       'a number a capability can hold; use a finite '
                       'number or a word' % (exceptions.cut(name, 80),
                                             exceptions.cut(value, 80)))


def _service_state(values: dict) -> None:
    """``reservable`` as a boolean; a reason only to take a device out."""
    if isinstance(values.get('reservable'), str):
        values['reservable'] = values['reservable'].lower() == 'true'
    if 'reservable_reason' in values and values.get('reservable') is not \
            False:
        raise exceptions.Invalid(
            reason='reservable_reason is the reason for taking a device out '
                   'of service: give it with reservable false')


def _call(context, operation: str, payload: dict):
    return manager_client.get_client().resource_call(
        context, RESOURCE_TYPE, operation, payload)


class DeviceAllocationsController(rest.RestController):
    """/v1/devices/allocations: each device with the reservations holding
    it in leases not ended."""

    @pecan.expose('json')
    def get_all(self, **_query):
        context = pecan.request.context
        policy.authorize(context, device_policies.GET_ALLOCATIONS)
        rows = device_api.allocation_list(context, start=timeutils.utcnow())
        by_device = {d['id']: [] for d in device_api.device_list(context)}
        for row in rows:
            by_device.setdefault(row['device_id'], []).append({
                'id': row['reservation_id'], 'lease_id': row['lease_id'],
                'start_date': views.timestamp(row['start_date']),
                'end_date': views.timestamp(row['end_date'])})
        return {'allocations': [
            {'resource_id': device_id, 'reservations': reservations}
            for device_id, reservations in by_device.items()]}


class DeviceCalendarController(rest.RestController):
    """/v1/devices/calendar?start=&end=[&limit=&marker=]: what the
    reservation calendar draws, as /v1/os-hosts/calendar."""

    @pecan.expose('json')
    def get_all(self, **_query):
        return v1_calendar._answer(device_policies.CALENDAR,
                                   device_api.device_calendar)


class DevicesController(rest.RestController):

    # /v1/devices/properties: the devices' capabilities (as
    # /v1/physical:device/properties, in the client's shape).
    properties = v1_properties.TypePropertiesController(RESOURCE_TYPE)
    allocations = DeviceAllocationsController()
    calendar = DeviceCalendarController()

    @pecan.expose('json')
    def get_all(self):
        context = pecan.request.context
        policy.authorize(context, device_policies.GET)
        private = show_private(context)
        return {'devices': [view(d, private)
                            for d in device_api.device_list(context)]}

    @pecan.expose('json')
    def get_one(self, device_id):
        context = pecan.request.context
        policy.authorize(context, device_policies.GET)
        return {'device': view(device_api.device_get(context, device_id),
                               show_private(context))}

    @pecan.expose('json')
    def post(self):
        context = pecan.request.context
        policy.authorize(context, device_policies.POST)
        values = validation.request_json(pecan.request)
        validation.validate(schema.CREATE, values)
        _check_values(values)
        device = _call(context, 'create', {'values': values})
        pecan.response.status = 201
        return {'device': view(device, show_private(context))}

    @pecan.expose('json')
    def put(self, device_id):
        context = pecan.request.context
        policy.authorize(context, device_policies.PUT)
        values = validation.request_json(pecan.request)
        validation.validate(schema.UPDATE, values)
        _check_values(values)
        _service_state(values)
        device = _call(context, 'update', {'id': device_id,
                                           'values': values})
        return {'device': view(device, show_private(context))}

    @pecan.expose(content_type='application/json')
    def delete(self, device_id):
        context = pecan.request.context
        policy.authorize(context, device_policies.DELETE)
        _call(context, 'delete', {'id': device_id})
        pecan.response.status = 204
        return ''


_DEVICE = '/{device_id}'
# Below /v1/devices, for the v1 route table (api/v1/routes.py).
DevicesController.ROUTES = (
    routing.Route('GET', '', DevicesController.get_all),
    routing.Route('POST', '', DevicesController.post),
    routing.Route('GET', _DEVICE, DevicesController.get_one),
    routing.Route('PUT', _DEVICE, DevicesController.put),
    routing.Route('DELETE', _DEVICE, DevicesController.delete),
    routing.Route('GET', '/properties',
                  v1_properties.TypePropertiesController.get_all),
    routing.Route('GET', '/properties/{name}',
                  v1_properties.TypePropertiesController.get_one),
    routing.Route('PATCH', '/properties/{name}',
                  v1_properties.TypePropertiesController.patch),
    routing.Route('GET', '/allocations', DeviceAllocationsController.get_all),
    routing.Route('GET', '/calendar', DeviceCalendarController.get_all),
)
