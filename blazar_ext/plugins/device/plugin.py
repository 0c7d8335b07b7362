"""The physical:device plugin: registering devices, holding them for
reservations, taking them out of service and healing.

Allocation methods run inside the manager's writer transaction and raise
NotEnoughResources (409) to roll it back.
"""

import datetime

from oslo_config import cfg
from oslo_log import log as logging
from oslo_serialization import jsonutils

from blazar_ext.db.api import device as device_api
from blazar_ext.db.api import healing as healing_api
from blazar_ext.db.models import device as device_models
from blazar_ext import exceptions
from blazar_ext.plugins import base
from blazar_ext.plugins.device import RESOURCE_TYPE
from blazar_ext.query import traits as trait_query

LOG = logging.getLogger(__name__)

# The registration key naming the device's resource provider: true (one
# named after the device) or an existing provider's uuid.
PROVIDER = 'resource_provider'

# Counts go to SQL (LIMIT) and to 32-bit columns.
MAX_COUNT = 2 ** 31 - 1


def _invalid(reason: str) -> exceptions.Invalid:
    return exceptions.Invalid(reason='%s reservation: %s'
                              % (RESOURCE_TYPE, reason))


def _count(spec: dict, key: str) -> int:
    value = spec.get(key)
    if isinstance(value, str) and value.strip().isdecimal():
        value = int(value)
    if (isinstance(value, bool) or not isinstance(value, int)
            or not 1 <= value <= MAX_COUNT):
        raise _invalid('%s must be an integer from 1 to %d, got %r'
                       % (key, MAX_COUNT, spec.get(key)))
    return value


def _properties(spec: dict) -> str:
    value = spec.get('resource_properties') or ''
    if isinstance(value, (list, dict)):
        value = jsonutils.dumps(value)
    if not isinstance(value, str):
        raise _invalid('resource_properties must be a JSON string')
    return value


def _traits(spec: dict) -> str:
    """The traits requirement as stored, as a host reservation's: ''
    (none), one ``required`` value (``A,!B,in:C,D``), or a JSON list of
    several, each ANDed."""
    value = spec.get('traits') or ''
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = jsonutils.dumps(value)
    if not isinstance(value, str):
        raise _invalid('traits must be a string or a list of strings')
    trait_requirement(value)
    return value


def trait_requirement(stored: str) -> trait_query.TraitRequirement:
    """Parse a stored traits requirement; Invalid naming what is wrong."""
    if not stored:
        return trait_query.TraitRequirement()
    try:
        values = jsonutils.loads(stored) if stored.startswith('[') \
            else stored
        return trait_query.parse(values)
    except (trait_query.TraitRequirementError, ValueError) as exc:
        raise _invalid('traits: %s' % exc)


def _as_capability_value(value) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return 'true' if value else 'false'
    return str(value)


class DeviceRequest:
    """A device request's parsed form: its property expression, its
    traits requirement and whether the caller may name private
    capabilities."""

    def __init__(self, spec: dict, private_visible: bool = False):
        self.query = device_api.DeviceQuery(spec.get('resource_properties'))
        self.traits = trait_requirement(spec.get('traits') or '')
        self.private_visible = private_visible


class DevicePlugin(base.DetailTableMixin, base.ResourcePlugin):
    """Picks and holds devices for physical:device reservations."""

    resource_type = RESOURCE_TYPE
    detail_columns = ('min', 'max', 'resource_properties', 'traits')
    api_routes = {
        'devices': 'blazar_ext.api.v1.devices:DevicesController'}
    policy_modules = ('blazar_ext.policies.devices',)
    catalog_resource_type = 'OS::Blazar::Device'
    calendar_tab = {'key': 'devices', 'label': 'Devices', 'column': 'Device',
                    'noun': 'devices', 'path': '/v1/devices/calendar'}
    detail_table = device_api.DETAILS
    resource_operations = ('create', 'update', 'delete')

    # Requests

    def normalize(self, request: dict, current: dict | None = None,
                  private_visible: bool = False) -> base.Spec:
        merged = dict(current or {})
        merged.update({k: v for k, v in request.items() if v is not None})
        out = {'resource_type': RESOURCE_TYPE,
               'min': _count(merged, 'min'), 'max': _count(merged, 'max'),
               'resource_properties': _properties(merged),
               'traits': _traits(merged)}
        if out['min'] > out['max']:
            raise _invalid('min (%d) must not exceed max (%d)'
                           % (out['min'], out['max']))
        # A malformed expression fails here, before anything is written.
        return base.Spec(out, parsed=DeviceRequest(out, private_visible))

    def _filter(self, session, spec: dict, private_visible=None):
        parsed = getattr(spec, 'parsed', None) or DeviceRequest(spec)
        if private_visible is None:
            private_visible = parsed.private_visible
        return device_api.build_filter(
            session, parsed.query, parsed.traits, private_visible,
            RESOURCE_TYPE + ' reservation: traits')

    @staticmethod
    def _require(found: int, spec: dict) -> None:
        if found < spec['min']:
            raise exceptions.NotEnoughResources(
                reason='%s reservation needs at least %d device(s) '
                       'matching its properties and free for the whole '
                       'lease; only %d found'
                       % (RESOURCE_TYPE, spec['min'], found))

    # Allocation

    def allocate(self, context, session, reservation_id: str,
                 spec: base.Spec, start: datetime.datetime,
                 end: datetime.datetime) -> list:
        """Hold between min and max free matching devices: one query."""
        devices = device_api.candidates(
            session, self._filter(session, spec), start, end, spec['max'])
        self._require(len(devices), spec)
        device_api.allocate(session, reservation_id, devices, start, end)
        return devices

    def reallocate(self, context, session, reservation_id: str,
                   spec: base.Spec, start: datetime.datetime,
                   end: datetime.datetime) -> list:
        """Keep the devices that still fit (in the new window), add up to
        max, drop the rest."""
        _current, kept, added = self._pick(session, reservation_id, spec,
                                           start, end)
        # The kept ones too: their rows take the new window.
        device_api.release(session, reservation_id)
        device_api.allocate(session, reservation_id, kept + added, start,
                            end)
        return kept + added

    def candidates(self, context, session, spec: base.Spec,
                   start: datetime.datetime, end: datetime.datetime,
                   reservation_id: str | None = None) -> list:
        if reservation_id is None:
            devices = device_api.candidates(
                session, self._filter(session, spec), start, end,
                spec['max'], lock=False)
            self._require(len(devices), spec)
            return devices
        _current, kept, added = self._pick(session, reservation_id, spec,
                                           start, end, lock=False)
        return kept + added

    def _pick(self, session, reservation_id: str, spec: dict,
              start: datetime.datetime, end: datetime.datetime,
              lock: bool = True) -> tuple:
        """(current, kept, added) device ids for a changed reservation."""
        device_filter = self._filter(session, spec)
        current = device_api.allocations_of(session, reservation_id)

        def candidates(limit, among=None, exclude=None):
            return device_api.candidates(
                session, device_filter, start, end, limit,
                exclude_reservation_id=reservation_id, among=among,
                exclude=exclude, lock=lock)
        kept, added = base.keep_then_add(current, candidates, spec,
                                         self._require)
        return current, kept, added

    def load_resources(self, context, resource_ids: list) -> list:
        return device_api.devices_get(context, resource_ids)

    # Healing

    def lost_sources(self) -> list:
        return [healing_api.LostSource(
            RESOURCE_TYPE, device_models.DeviceAllocation,
            device_models.Device, 'device_id')]

    def heal(self, session, reservation: dict, lost: list,
             start: datetime.datetime, end: datetime.datetime) -> dict:
        """Replace the out-of-service devices ``lost`` with free devices
        matching the same request over [start, end]; None where none
        fits. Private capabilities count (the manager heals for the
        operator)."""
        try:
            device_filter = self._filter(session, reservation,
                                         private_visible=True)
        except exceptions.Invalid:
            # The request names a capability deleted since.
            return {old: None for old in lost}
        found = device_api.candidates(session, device_filter, start, end,
                                      len(lost))
        replaced = dict(zip(lost, found))
        if replaced:
            device_api.release(session, reservation['id'], list(replaced))
            device_api.allocate(session, reservation['id'],
                                list(replaced.values()), start, end)
        return {old: replaced.get(old) for old in lost}

    # Devices: registration and service state (the manager's
    # resource_call)

    @staticmethod
    def private_default() -> bool:
        """Visibility of capabilities first seen on a device."""
        return cfg.CONF.capability_default_visibility == 'private'

    def create_resource(self, context, values: dict) -> dict:
        columns = {name: values[name] for name in device_api.COLUMNS
                   if values.get(name) is not None}
        capabilities = {
            key: _as_capability_value(value) for key, value in values.items()
            if key not in device_api.COLUMNS + (PROVIDER,)
            and value is not None}
        return device_api.device_create(
            context, columns, capabilities,
            private_default=self.private_default(),
            provider=values.get(PROVIDER) or None)

    def update_resource(self, context, resource_id: str,
                        values: dict) -> dict:
        return device_api.device_update_capabilities(
            context, resource_id,
            {key: _as_capability_value(value)
             for key, value in values.items()},
            private_default=self.private_default())

    def delete_resource(self, context, resource_id: str) -> None:
        device_api.device_delete(context, resource_id)

    def get_resource(self, context, resource_id: str) -> dict:
        return device_api.device_get(context, resource_id)

    def set_reservable(self, context, resource_id: str, reservable: bool,
                       reason: str | None = None, by: str = base.OPERATOR,
                       only_if_by: str | None = None) -> bool:
        return device_api.set_reservable(
            context, resource_id, reservable, reason=reason, by=by,
            only_if_by=only_if_by)

    # Lifecycle: devices need nothing done at start and end.

    def on_start(self, context, reservation: dict) -> None:
        LOG.debug('%s reservation %s starts', RESOURCE_TYPE,
                  reservation['id'])

    def on_end(self, context, reservation: dict) -> None:
        LOG.debug('%s reservation %s ends', RESOURCE_TYPE,
                  reservation['id'])
