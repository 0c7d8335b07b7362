"""virtual:instance reservations: capacity for ``amount`` instances of a
size, taken from the hosts' Placement inventories.

Packing is a set-based read (db/api/instance.roomiest: the matching hosts
with the most room over the window, capacity minus peak load, ranked by
the database; the hosts without load are ranked on their stored capacity
alone) and arithmetic here. Allocation methods run inside the manager's
writer transaction and raise NotEnoughResources to roll it back.
"""

import datetime
import math

from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_utils import timeutils

from blazar_ext.db.api import healing as healing_api
from blazar_ext.db.api import host as host_api
from blazar_ext.db.api import host_filter
from blazar_ext.db.api import host_properties
from blazar_ext.db.api import instance as instance_api
from blazar_ext.db.api import reservation_provider
from blazar_ext.db.models import host as host_models
from blazar_ext.db.models import instance as instance_models
from blazar_ext.drivers import compute
from blazar_ext import exceptions
from blazar_ext.plugins import base
from blazar_ext.plugins import physical_host
from blazar_ext import states

LOG = logging.getLogger(__name__)

RESOURCE_TYPE = 'virtual:instance'
MAX_COUNT = 2 ** 31 - 1
SIZES = ('vcpus', 'memory_mb', 'disk_gb')
_WHAT = {'vcpus': 'VCPU', 'memory_mb': 'MEMORY_MB', 'disk_gb': 'DISK_GB'}


def _invalid(reason: str) -> exceptions.Invalid:
    return exceptions.Invalid(reason='virtual:instance reservation: %s'
                              % reason)


def _integer(merged: dict, key: str, low: int) -> int:
    value = merged.get(key)
    if isinstance(value, str) and value.strip().isdecimal():
        value = int(value)
    if (isinstance(value, bool) or not isinstance(value, int)
            or not low <= value <= MAX_COUNT):
        raise _invalid('%s must be an integer from %d to %d, got %r'
                       % (key, low, MAX_COUNT, merged.get(key)))
    return value


def _affinity(value):
    """True, False or None; the client sends strings."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ('true', 'false'):
            return text == 'true'
        if text in ('none', 'null', ''):
            return None
    raise _invalid('affinity must be true, false or null, got %r' % value)


class InstanceQuery:
    """The parsed resource_properties and the caller's visibility."""

    def __init__(self, resource_properties: str,
                 private_visible: bool = False):
        self.properties = host_properties.HostQuery('', resource_properties)
        self.private_visible = private_visible


def pack(rooms: list, spec: dict, keep: dict | None = None) -> dict:
    """{host id: slots} holding ``amount`` instances, or None.

    ``rooms``: [(host id, {size: room})] over the window; ``keep``: slots
    already held that stay where they are (an active reservation grows).
    affinity True: all on one host; False: one per host; None: fill the
    roomiest hosts first.
    """
    keep = dict(keep or {})
    fits = {}
    for host_id, room in rooms:
        fits[host_id] = min((math.floor(room[size] / spec[size])
                             for size in SIZES if spec[size] > 0),
                            default=spec['amount'])
    for host_id, held in keep.items():
        # What is kept must still fit in the (possibly longer) window.
        if fits.get(host_id, 0) < held:
            return None
        fits[host_id] -= held
    wanted = spec['amount'] - sum(keep.values())
    if wanted <= 0:
        return keep
    if spec['affinity'] is True:
        hosts = [h for h in (list(keep) or list(fits))
                 if fits.get(h, 0) >= wanted]
        if not hosts:
            return None
        # The roomiest host, so later leases keep the most choice.
        host = min(hosts, key=lambda h: (-fits[h], h))
        return {host: keep.get(host, 0) + wanted}
    out = dict(keep)
    order = sorted(fits, key=lambda h: (-fits[h], h))
    for host_id in order:
        if wanted <= 0:
            break
        if fits[host_id] <= 0:
            continue
        if spec['affinity'] is False:
            if host_id in out:
                continue
            take = 1
        else:
            take = min(fits[host_id], wanted)
        out[host_id] = out.get(host_id, 0) + take
        wanted -= take
    return out if wanted <= 0 else None


def shortage(hosts: int, free: dict, spec: dict) -> str:
    """What was short, for the 409: ``hosts`` matched, with ``free``
    {size: room left} on them in all."""
    if not hosts:
        return 'no host matches resource_properties and is free of ' \
               'physical:host reservations for the whole lease'
    need = {size: spec[size] * spec['amount'] for size in SIZES}
    short = ['%s (%d needed, %d free)' % (_WHAT[size], need[size],
                                          free[size])
             for size in SIZES if free[size] < need[size]]
    if short:
        return 'not enough ' + ', '.join(short)
    if spec['affinity'] is True:
        return 'no single host has room for all %d instances' \
               % spec['amount']
    if spec['affinity'] is False:
        return 'fewer than %d hosts have room for one instance each' \
               % spec['amount']
    return 'the free room is split into pieces too small for one instance'


# Detail columns only import-blazar sets on a virtual:instance
# reservation: upstream's reserved flavor and server group.
IMPORTED = ('flavor_id', 'server_group_id')


def flavor(reservation: dict) -> dict:
    """The flavor a compute service would boot the reserved instances
    with: the reservation's size, and extra specs asking Placement for one
    unit of its class (only the reserved hosts have it) and the
    reservation's aggregate, as upstream Blazar's."""
    return {'id': reservation['id'],
            'name': compute.flavor_name(reservation['id']),
            'vcpus': reservation.get('vcpus'),
            'ram': reservation.get('memory_mb'),
            'disk': reservation.get('disk_gb'),
            'extra_specs': {
                'resources:%s' % reservation_provider.resource_class(
                    reservation['id']): '1',
                'aggregate_instance_extra_specs:reservation':
                    reservation['id']}}


class InstanceReservationPlugin(base.DetailTableMixin, base.ResourcePlugin):
    """Holds host capacity for instances of one size."""

    resource_type = RESOURCE_TYPE
    detail_columns = ('amount', 'vcpus', 'memory_mb', 'disk_gb',
                      'affinity', 'resource_properties')
    # resource_properties filters the hosts: their capabilities are this
    # type's properties, described in the catalog for instances.
    properties_of = physical_host.RESOURCE_TYPE
    catalog_resource_type = 'OS::Blazar::Instance'
    detail_table = instance_api.DETAILS

    def lost_sources(self) -> list:
        """Slots on hosts: a host out of service loses them."""
        return [healing_api.LostSource(
            physical_host.RESOURCE_TYPE, instance_models.InstanceAllocation,
            host_models.ComputeHost, 'compute_host_id')]

    def __init__(self, compute_driver: compute.ComputeDriver | None = None):
        self._given = compute_driver
        self._loaded: dict = {}

    @property
    def compute(self) -> compute.ComputeDriver:
        """The given driver, else the one configured now (loaded once)."""
        if self._given is not None:
            return self._given
        name = compute.CONF.manager.compute_driver
        if name not in self._loaded:
            self._loaded[name] = compute.load(name)
        return self._loaded[name]

    def view(self, reservation: dict) -> dict:
        body = super().view(reservation)
        body['resource_class'] = reservation_provider.resource_class(
            reservation['id'])
        body['flavor'] = flavor(reservation)
        # As upstream Blazar shows them; set on reservations imported from
        # it (see IMPORTED), None on those made here.
        for name in IMPORTED:
            body.setdefault(name, reservation.get(name))
        return body

    def spec_of(self, reservation: dict) -> dict:
        spec = super().spec_of(reservation)
        spec.update({name: reservation.get(name) for name in IMPORTED})
        return spec

    # Lifecycle: the reservation shows in Placement while it is active.

    def on_start(self, context, reservation: dict) -> None:
        reservation_provider.create(context, reservation['id'])
        self.compute.reservation_started(context, reservation,
                                         flavor(reservation))

    def on_end(self, context, reservation: dict) -> None:
        self.compute.reservation_ended(context, reservation)
        reservation_provider.remove(context, reservation['id'])

    def healed(self, context, reservation: dict, lost: list) -> None:
        # The reservation providers follow the slots.
        reservation_provider.follow(context, reservation['id'], lost)

    def normalize(self, request: dict, current: dict | None = None,
                  private_visible: bool = False) -> base.Spec:
        merged = dict(current or {})
        merged.update({k: v for k, v in request.items()
                       if v is not None or k == 'affinity'})
        properties = merged.get('resource_properties') or ''
        if isinstance(properties, (list, dict)):
            properties = jsonutils.dumps(properties)
        if not isinstance(properties, str):
            raise _invalid('resource_properties must be a JSON string')
        out = {'resource_type': RESOURCE_TYPE,
               'amount': _integer(merged, 'amount', 1),
               'vcpus': _integer(merged, 'vcpus', 1),
               'memory_mb': _integer(merged, 'memory_mb', 1),
               'disk_gb': _integer(merged, 'disk_gb', 0),
               'affinity': _affinity(merged.get('affinity')),
               'resource_properties': properties}
        # Never from a request: the Nova objects upstream Blazar made for
        # an imported reservation stay with it through updates.
        out.update({name: (current or {}).get(name) for name in IMPORTED})
        # A malformed expression fails here, before anything is written.
        return base.Spec(out, parsed=InstanceQuery(properties,
                                                   private_visible))

    def validate_update(self, current: dict, new: base.Spec,
                        lease_status: str) -> None:
        if lease_status != states.Lease.ACTIVE:
            return
        changed = [name for name in self.detail_columns
                   if name != 'amount' and current.get(name) != new[name]]
        if changed:
            raise exceptions.InvalidLeaseState(
                lease=current['lease_id'], status=lease_status,
                reason='once a lease is active only the amount of its '
                       'virtual:instance reservation may change, not %s'
                       % ', '.join(changed))
        if new['amount'] < current['amount']:
            raise exceptions.InvalidLeaseState(
                lease=current['lease_id'], status=lease_status,
                reason='the amount of an active virtual:instance '
                       'reservation may grow, not shrink')

    def _filter(self, session, spec: dict):
        parsed = getattr(spec, 'parsed', None) or InstanceQuery(
            spec['resource_properties'])
        return host_filter.build(session, parsed.properties,
                                 private_visible=parsed.private_visible)

    def _place(self, session, reservation_id: str, spec: dict,
               start: datetime.datetime, end: datetime.datetime,
               keep: dict, lock: bool) -> dict:
        host_filter = self._filter(session, spec)
        # Packing uses at most ``amount`` hosts besides those kept, and
        # always the roomiest: the database ranks the hosts and returns
        # those only.
        found = instance_api.roomiest(
            session, host_filter, start, end,
            {size: spec[size] for size in SIZES}, spec['amount'],
            exclude_reservation_id=reservation_id, exclude_hosts=keep)
        if keep:
            found += instance_api.host_room(
                session, host_filter, start, end, keep,
                exclude_reservation_id=reservation_id)
        rooms = [(host_id, room) for host_id, room, _peak in found]
        slots = pack(rooms, spec, keep)
        if slots is None:
            hosts, free = instance_api.free_room(
                session, host_filter, start, end,
                exclude_reservation_id=reservation_id)
            raise exceptions.NotEnoughResources(
                reason='virtual:instance reservation of %d instance(s) of '
                       '%d VCPU, %d MB, %d GB: %s'
                       % (spec['amount'], spec['vcpus'], spec['memory_mb'],
                          spec['disk_gb'], shortage(hosts, free, spec)))
        if lock:
            peaks = {host_id: peak for host_id, _room, peak in found
                     if host_id in slots}
            instance_api.lock_and_recheck(session, peaks, start, end,
                                          reservation_id or '')
        return slots

    def allocate(self, context, session, reservation_id: str,
                 spec: base.Spec, start: datetime.datetime,
                 end: datetime.datetime) -> list:
        slots = self._place(session, reservation_id, spec, start, end, {},
                            lock=True)
        instance_api.hold(session, reservation_id, slots, spec, start, end)
        return sorted(slots)

    def reallocate(self, context, session, reservation_id: str,
                   spec: base.Spec, start: datetime.datetime,
                   end: datetime.datetime) -> list:
        # Running instances stay where they are: an active reservation
        # keeps its slots and adds to them; a future one is packed anew.
        keep = {}
        if start <= timeutils.utcnow():
            keep = instance_api.allocations_of(session, reservation_id)
        slots = self._place(session, reservation_id, spec, start, end, keep,
                            lock=True)
        instance_api.hold(session, reservation_id, slots, spec, start, end)
        return sorted(slots)

    def candidates(self, context, session, spec: base.Spec,
                   start: datetime.datetime, end: datetime.datetime,
                   reservation_id: str | None = None) -> list:
        return sorted(self._place(session, reservation_id, spec, start, end,
                                  {}, lock=False))

    def heal(self, session, reservation: dict, lost: list,
             start: datetime.datetime, end: datetime.datetime) -> dict:
        """The slots on the out-of-service hosts ``lost`` packed anew
        over [start, end], the others kept where they are (instances run
        there); same size, properties and affinity. All or nothing: {lost
        host: a host now holding its slots}, or None for each."""
        spec = base.Spec(reservation, parsed=InstanceQuery(
            reservation.get('resource_properties') or '',
            private_visible=True))
        held = instance_api.allocations_of(session, reservation['id'])
        keep = {h: n for h, n in held.items() if h not in lost}
        try:
            slots = self._place(session, reservation['id'], spec, start,
                                end, keep, lock=True)
        except (exceptions.NotEnoughResources, exceptions.Invalid):
            return {old: None for old in lost}
        added = {h: n - keep.get(h, 0) for h, n in slots.items()
                 if n > keep.get(h, 0)}
        healing_api.move_instance_slots(session, reservation['id'], lost,
                                        added, spec, start, end)
        targets = sorted(added) or sorted(keep)
        return {old: targets[i % len(targets)] if targets else None
                for i, old in enumerate(lost)}

    def load_resources(self, context, resource_ids: list) -> list:
        return host_api.hosts_get(context, resource_ids)
