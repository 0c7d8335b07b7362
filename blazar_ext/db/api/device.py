"""physical:device: devices, their capability values, the devices free in
a window, and the reservation detail rows.

Called by the physical:device plugin (blazar_ext.plugins.device), in the
manager for writes and in the API for reads. Selection follows the hosts'
(db/api/allocation): one statement picks the free matching devices, locks
them, and a locking re-read catches a concurrent commit (AllocationRace:
the caller's transaction is retried).
"""

import datetime

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from blazar_ext.db.api import allocation as allocation_api
from blazar_ext.db.api import calendar as calendar_api
from blazar_ext.db.api import capability as capability_api
from blazar_ext.db.api.placement import resource_provider as rp_api
from blazar_ext.db.api.placement import trait as trait_api
from blazar_ext.db.api import reservation_detail
from blazar_ext.db.models import device as models
from blazar_ext.db.models import host as host_models
from blazar_ext.db.models import lease as lease_models
from blazar_ext.db.models import placement as placement_models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions
from blazar_ext.query import compiler
from blazar_ext.query import language
from blazar_ext.query import traits as trait_query

RESOURCE_TYPE = 'physical:device'

# The device columns a property expression may name.
COLUMNS = ('name', 'device_type', 'vendor', 'model')

CAPABILITIES = compiler.CapabilityTable(
    resource_type=RESOURCE_TYPE,
    owner_id=models.Device.id,
    names=host_models.ExtraCapability,
    values=models.DeviceExtraCapability,
    values_owner_id='device_id',
    values_number='capability_number')

# Properties discovery (/v1/physical:device/properties) reads these values.
capability_api.register_value_model(RESOURCE_TYPE,
                                    models.DeviceExtraCapability)

DETAILS = reservation_detail.DetailTable(
    models.DeviceReservation, models.DeviceAllocation, 'device_id',
    columns=('min', 'max', 'resource_properties', 'traits'))

_DEVICE = models.Device
_VALUE = models.DeviceExtraCapability
_ALLOC = models.DeviceAllocation
_RP = placement_models.ResourceProvider
# Placement's limit on a provider's name (a provider made for a device
# takes the device's name).
MAX_PROVIDER_NAME = 200


def _not_found(device_id) -> exceptions.NotFound:
    return exceptions.NotFound(what='device %s' % exceptions.cut(
        str(device_id), 80))


# Property filters

class DeviceQuery:
    """A device request's resource_properties, parsed once."""

    def __init__(self, resource_properties):
        self.resource = language.parse(resource_properties or '',
                                       'resource_properties')

    def capability_names(self) -> set:
        return language.properties_of(self.resource) - set(COLUMNS)

    def compile(self, private_visible: bool, known: dict):
        """One condition over Device."""
        resolver = compiler.TableResolver(
            'resource_properties',
            {name: getattr(_DEVICE, name) for name in COLUMNS},
            CAPABILITIES, known, private_visible)
        return compiler.compile(self.resource, resolver)


def trait_filter(session, requirement: trait_query.TraitRequirement,
                 field: str) -> list:
    """Conditions over Device for a trait requirement on its provider (a
    device without one has no traits); Invalid naming a trait that does
    not exist."""
    if not requirement:
        return []
    try:
        trait_api.check_exist(session, requirement.names)
    except exceptions.TraitNotFound as exc:
        raise exceptions.Invalid(reason='%s: %s' % (field, exc))
    return trait_api.provider_filter(requirement,
                                     _DEVICE.resource_provider_id)


def build_filter(session, query: DeviceQuery,
                 requirement: trait_query.TraitRequirement,
                 private_visible: bool, traits_field: str):
    """One condition over Device: its columns and capabilities match
    ``query`` and its provider meets ``requirement``."""
    known = known_capabilities(session, query.capability_names())
    return sa.and_(query.compile(private_visible, known),
                   *trait_filter(session, requirement, traits_field))


def known_capabilities(session, names) -> dict:
    """{name: private} of the device capability names that exist."""
    return capability_api.known(session, RESOURCE_TYPE, names)


# Reading

def _capabilities_of(session, device_ids) -> dict:
    """{device_id: {name: {'value', 'private'}}} in one query."""
    out = {device_id: {} for device_id in device_ids}
    if not device_ids:
        return out
    name = host_models.ExtraCapability
    for device_id, cap, value, private in session.execute(
            sa.select(_VALUE.device_id, name.capability_name,
                      _VALUE.capability_value, name.private)
            .join(name, name.id == _VALUE.capability_id)
            .where(_VALUE.device_id.in_(list(device_ids)))):
        out[device_id][cap] = {'value': value, 'private': private}
    return out


def _providers_of(session, devices) -> dict:
    """{provider id: (uuid, [trait names])} of the devices' providers."""
    ids = [d.resource_provider_id for d in devices
           if d.resource_provider_id is not None]
    if not ids:
        return {}
    traits = trait_api.traits_of(session, ids)
    return {pid: (uuid, traits[pid]) for pid, uuid in session.execute(
        sa.select(_RP.id, _RP.uuid).where(_RP.id.in_(ids)))}


def _to_dicts(session, devices) -> list:
    """Devices with their capabilities, their provider's uuid and traits
    (None and [] without one)."""
    capabilities = _capabilities_of(session, [d.id for d in devices])
    providers = _providers_of(session, devices)
    out = []
    for device in devices:
        uuid, traits = providers.get(device.resource_provider_id,
                                     (None, []))
        out.append(dict(device.to_dict(), capabilities=capabilities[
            device.id], resource_provider_uuid=uuid, traits=traits))
    return out


def _get_model(session, device_id):
    device = (session.get(_DEVICE, device_id)
              if isinstance(device_id, str) else None)
    if device is None:
        raise _not_found(device_id)
    return device


def device_get(context, device_id: str) -> dict:
    """One device with its capabilities; NotFound."""
    with db_session.reader.using(context) as session:
        return _to_dicts(session, [_get_model(session, device_id)])[0]


def devices_get(context, device_ids) -> list:
    """The devices of ``device_ids`` that exist, by id."""
    with db_session.reader.using(context) as session:
        return _to_dicts(session, list(session.scalars(
            sa.select(_DEVICE).where(_DEVICE.id.in_(list(device_ids)))
            .order_by(_DEVICE.id))))


def device_list(context) -> list:
    """Every device with its capabilities, in registration order."""
    with db_session.reader.using(context) as session:
        return _to_dicts(session, list(session.scalars(
            sa.select(_DEVICE).order_by(_DEVICE.id))))


# Writing (the manager)

def _lock(session, device_id: str) -> None:
    session.execute(sa.select(_DEVICE.id).where(
        _DEVICE.id == device_id).with_for_update())


def _value_pairs(session, device_id: str) -> set:
    """The device's (capability_id, value) pairs, by a locking read."""
    return set(session.execute(
        sa.select(_VALUE.capability_id, _VALUE.capability_value).where(
            _VALUE.device_id == device_id).with_for_update()).all())


def _set_capabilities(session, device_id: str, capabilities: dict,
                      private_default: bool) -> None:
    ids = capability_api.get_or_create_ids(
        session, RESOURCE_TYPE, capabilities, private_default)
    existing = dict(session.execute(
        sa.select(_VALUE.capability_id, _VALUE.id).where(
            _VALUE.device_id == device_id,
            _VALUE.capability_id.in_(list(ids.values())))).all()) \
        if ids else {}
    for name, value in capabilities.items():
        number = language.number_of(value)
        if ids[name] in existing:
            session.execute(sa.update(_VALUE).where(
                _VALUE.id == existing[ids[name]]).values(
                    capability_value=value, capability_number=number))
        else:
            session.add(_VALUE(device_id=device_id, capability_id=ids[name],
                               capability_value=value,
                               capability_number=number))
    session.flush()


def _provider_id(context, session, name: str, provider) -> int | None:
    """The id of the provider backing a new device: ``provider`` is None
    (none), True (the provider named after the device, adopted if it
    exists, as a host's is, else created) or an existing provider's uuid.
    Conflict if a host or another device has it."""
    if provider is None:
        return None
    if provider is True:
        if len(name) > MAX_PROVIDER_NAME:
            raise exceptions.Invalid(
                reason='resource_provider: a provider is named after its '
                       'device, and provider names have at most %d '
                       'characters' % MAX_PROVIDER_NAME)
        provider_id = session.scalar(sa.select(_RP.id).where(
            _RP.name == name))
        if provider_id is None:
            uuid = rp_api.create(context, name=name)['uuid']
            provider_id = session.scalar(sa.select(_RP.id).where(
                _RP.uuid == uuid))
    else:
        provider_id = session.scalar(sa.select(_RP.id).where(
            _RP.uuid == provider))
        if provider_id is None:
            raise exceptions.Invalid(
                reason='resource_provider: no resource provider %s'
                       % exceptions.cut(provider, 80))
    for model in (_DEVICE, host_models.ComputeHost):
        if session.scalar(sa.select(model.id).where(
                model.resource_provider_id == provider_id)) is not None:
            raise exceptions.Conflict(
                reason='resource_provider: that provider already backs a '
                       '%s' % ('device' if model is _DEVICE else 'host'))
    return provider_id


@oslo_db_api.wrap_db_retry(max_retries=5, retry_on_deadlock=True)
def device_create(context, values: dict, capabilities: dict,
                  private_default: bool = False, provider=None) -> dict:
    """Insert a device and its capability values (strings), backed by the
    provider ``provider`` names (see _provider_id); Conflict if the name
    is taken."""
    with db_session.writer.using(context) as session:
        device = _DEVICE(**values)
        device.resource_provider_id = _provider_id(
            context, session, values['name'], provider)
        session.add(device)
        try:
            session.flush()
        except db_exc.DBDuplicateEntry as exc:
            if 'resource_provider_id' in (exc.columns or []):
                # Another device took the provider meanwhile.
                raise exceptions.Conflict(
                    reason='resource_provider: that provider already '
                           'backs a device')
            raise exceptions.Conflict(
                reason='device %s is already registered'
                       % exceptions.cut(values['name'], 80))
        _set_capabilities(session, device.id, capabilities, private_default)
        capability_api.count_values(
            session, RESOURCE_TYPE, added=_value_pairs(session, device.id))
        return _to_dicts(session, [device])[0]


@oslo_db_api.wrap_db_retry(max_retries=5, retry_on_deadlock=True)
def device_update_capabilities(context, device_id: str, capabilities: dict,
                               private_default: bool = False) -> dict:
    """Set capability values; a None value removes that capability."""
    with db_session.writer.using(context) as session:
        device = _get_model(session, device_id)
        _lock(session, device.id)
        before = _value_pairs(session, device.id)
        removed = [name for name, value in capabilities.items()
                   if value is None]
        if removed:
            name = host_models.ExtraCapability
            session.execute(sa.delete(_VALUE).where(
                _VALUE.device_id == device.id,
                _VALUE.capability_id.in_(sa.select(name.id).where(
                    name.resource_type == RESOURCE_TYPE,
                    name.capability_name.in_(removed)))))
        _set_capabilities(
            session, device.id,
            {k: v for k, v in capabilities.items() if v is not None},
            private_default)
        after = _value_pairs(session, device.id)
        capability_api.count_values(session, RESOURCE_TYPE,
                                    added=after - before,
                                    removed=before - after)
        session.expire(device)
        return _to_dicts(session, [device])[0]


def device_delete(context, device_id: str,
                  now: datetime.datetime | None = None) -> None:
    """Delete a device; Conflict while it has current or future
    allocations (its row locked first, as allocators lock it)."""
    with allocation_api.PROCESS_LOCK, \
            db_session.writer.using(context) as session:
        device = _get_model(session, device_id)
        _lock(session, device.id)
        if session.scalars(
                sa.select(_ALLOC.id).where(
                    _ALLOC.device_id == device.id,
                    _ALLOC.end_date > (now or timeutils.utcnow()))
                .limit(1).with_for_update(read=True)).first():
            raise exceptions.Conflict(
                reason='device %s has current or future allocations and '
                       'cannot be deleted' % device_id)
        session.execute(sa.delete(_ALLOC).where(
            _ALLOC.device_id == device.id))
        pairs = _value_pairs(session, device.id)
        session.execute(sa.delete(_VALUE).where(
            _VALUE.device_id == device.id))
        capability_api.count_values(session, RESOURCE_TYPE, removed=pairs)
        session.delete(device)


def set_reservable(context, device_id: str, reservable: bool,
                   reason: str | None = None, by: str = 'operator',
                   only_if_by: str | None = None) -> bool:
    """Take a device out of service or back; True if it changed.
    Committed before healing reads its allocations."""
    with allocation_api.PROCESS_LOCK, \
            db_session.writer.using(context) as session:
        device = session.scalars(
            sa.select(_DEVICE).where(_DEVICE.id == device_id)
            .with_for_update()
            .execution_options(populate_existing=True)).first()
        if device is None:
            raise _not_found(device_id)
        if only_if_by is not None and device.reservable_by != only_if_by:
            return False
        changed = bool(device.reservable) != reservable
        device.reservable = reservable
        device.reservable_reason = None if reservable else reason
        device.reservable_by = None if reservable else by
        session.flush()
        return changed


# Allocation (inside the manager's writer transaction)

def _overlap(start, end, exclude_reservation_id):
    cond = [_ALLOC.start_date < end, _ALLOC.end_date > start]
    if exclude_reservation_id:
        cond.append(_ALLOC.reservation_id != exclude_reservation_id)
    return cond


def candidates(session, device_filter, start: datetime.datetime,
               end: datetime.datetime, limit: int,
               exclude_reservation_id: str | None = None, among=None,
               exclude=None, lock: bool = True) -> list:
    """Ids of up to ``limit`` free matching devices in service, in one
    query; locked and rechecked unless ``lock`` is False (a preview)."""
    busy = sa.exists(sa.select(sa.literal(1)).where(
        _ALLOC.device_id == _DEVICE.id,
        *_overlap(start, end, exclude_reservation_id)))
    query = sa.select(_DEVICE.id).where(
        _DEVICE.reservable == sa.true(), device_filter, ~busy)
    if among is not None:
        query = query.where(_DEVICE.id.in_(list(among)))
    if exclude:
        query = query.where(_DEVICE.id.not_in(list(exclude)))
    query = query.order_by(_DEVICE.id).limit(limit)
    if not lock:
        return list(session.scalars(query))
    ids = list(session.scalars(query.with_for_update()))
    if ids and session.scalars(
            sa.select(_ALLOC.device_id).where(
                _ALLOC.device_id.in_(ids),
                *_overlap(start, end, exclude_reservation_id))
            .with_for_update(read=True)).first() is not None:
        raise allocation_api.AllocationRace()
    return ids


def allocations_of(session, reservation_id: str) -> list:
    """Device ids a reservation holds."""
    return list(session.scalars(
        sa.select(_ALLOC.device_id)
        .where(_ALLOC.reservation_id == reservation_id)
        .order_by(_ALLOC.device_id)))


def allocate(session, reservation_id: str, device_ids,
             start: datetime.datetime, end: datetime.datetime) -> None:
    """Hold devices for a reservation over [start, end]."""
    for device_id in device_ids:
        session.add(_ALLOC(device_id=device_id,
                           reservation_id=reservation_id,
                           start_date=start, end_date=end))
    session.flush()


def release(session, reservation_id: str, device_ids=None) -> None:
    """Drop a reservation's device allocations (all, or those listed)."""
    stmt = sa.delete(_ALLOC).where(_ALLOC.reservation_id == reservation_id)
    if device_ids is not None:
        stmt = stmt.where(_ALLOC.device_id.in_(list(device_ids)))
    session.execute(stmt)


def allocation_list(context, start: datetime.datetime | None = None,
                    end: datetime.datetime | None = None) -> list:
    """Every device allocation (overlapping [start, end] if given), with
    its lease: [{'device_id', 'reservation_id', 'lease_id', 'start_date',
    'end_date'}], by device then start."""
    reservation = lease_models.Reservation
    query = (sa.select(_ALLOC.device_id, _ALLOC.reservation_id,
                       reservation.lease_id, _ALLOC.start_date,
                       _ALLOC.end_date)
             .join(reservation, reservation.id == _ALLOC.reservation_id)
             .order_by(_ALLOC.device_id, _ALLOC.start_date))
    if start is not None:
        query = query.where(_ALLOC.end_date > start)
    if end is not None:
        query = query.where(_ALLOC.start_date < end)
    with db_session.reader.using(context) as session:
        return [dict(row._mapping) for row in session.execute(query)]


def device_calendar(context, start: datetime.datetime,
                    end: datetime.datetime, limit: int | None = None,
                    marker: str | None = None) -> dict:
    """What the calendar draws for devices, as db.api.calendar's
    host_calendar answers for hosts: {'resources', 'resource_count',
    'allocations'}, devices paged by name."""
    with db_session.reader.using(context) as session:
        # The calendar's own readers, so the rows have its shape.
        rows = calendar_api._page(session, sa.select(
            _DEVICE.id, _DEVICE.name, _DEVICE.device_type,
            _DEVICE.reservable, _DEVICE.reservable_reason),
            _DEVICE.name, limit, marker)
        paged = limit is not None or marker is not None
        return {
            'resources': [{'id': d_id, 'name': name,
                           'device_type': device_type,
                           'reservable': reservable, 'disabled': False,
                           'reservable_reason': reason}
                          for d_id, name, device_type, reservable, reason
                          in rows],
            'resource_count': calendar_api._count(session, _DEVICE),
            'allocations': calendar_api._allocations(
                session, _ALLOC, _ALLOC.device_id, start, end,
                [r[0] for r in rows] if paged else None)}
