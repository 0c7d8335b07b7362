"""Lease lifecycle in the manager: create, update, delete, and the events
that start and end leases.

Payloads given to the enforcement chain (issue 5), all plain dicts:

    lease payload = {
        'id': str, 'name': str, 'user_id': str|None, 'project_id': str|None,
        'start_date': datetime, 'end_date': datetime (naive UTC),
        'status': str (current status; absent at create),
        'reservations': [spec, ...]}

    spec (physical:host) = {'resource_type': 'physical:host', 'min': int,
        'max': int, 'hypervisor_properties': str,
        'resource_properties': str, 'before_end': str, 'traits': str,
        'id': str (update)}
    spec (virtual:floatingip) = {'resource_type': 'virtual:floatingip',
        'network_id': str, 'amount': int, 'required_floatingips': [str],
        'id': str (update)}

    check_create(context, lease_payload)     after validation and host
                                             candidate selection, before
                                             allocation; Forbidden -> the
                                             lease is kept in ERROR, 403
    check_update(context, current, new)      before applying, the new
                                             lease with its candidate
                                             hosts; Forbidden -> 403, the
                                             lease is unchanged
    on_end(context, lease_payload)           when a lease ends, or is
                                             deleted while active
    enabled                                  False: skip building the
                                             payloads (no filter listens)
"""

import collections
import datetime

from oslo_config import cfg
from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_utils import timeutils
from oslo_utils import uuidutils

from blazar_ext.db.api import allocation as allocation_api
from blazar_ext.db.api import floatingip as floatingip_api
from blazar_ext.db.api import host as host_api
from blazar_ext.db.api import lease as lease_api
from blazar_ext.enforcement import allocations as enforcement_allocations
from blazar_ext import exceptions
from blazar_ext.plugins import host_reservation
from blazar_ext.plugins import virtual_floatingip
from blazar_ext import rpc

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

# Lease statuses, as Blazar's.
CREATING = 'CREATING'
PENDING = 'PENDING'
STARTING = 'STARTING'
ACTIVE = 'ACTIVE'
UPDATING = 'UPDATING'
TERMINATING = 'TERMINATING'
TERMINATED = 'TERMINATED'
DELETING = 'DELETING'
ERROR = 'ERROR'

START_LEASE = 'start_lease'
BEFORE_END_LEASE = 'before_end_lease'
END_LEASE = 'end_lease'
EVENT_ORDER = {START_LEASE: 0, BEFORE_END_LEASE: 1, END_LEASE: 2}

DATE_FORMATS = ('%Y-%m-%d %H:%M', '%Y-%m-%d %H:%M:%S')

# How the resources a reservation would hold are read, by resource type,
# for the enforcement payloads: load(context, ids) -> [resource dict].
_RESOURCE_LOADERS = {
    host_reservation.RESOURCE_TYPE: host_api.hosts_get,
    virtual_floatingip.RESOURCE_TYPE: floatingip_api.floatingips_get,
}


def _known(resources: dict, ids: list) -> list:
    """The resources of ``ids``, in order, leaving out any deleted since."""
    return [resources[i] for i in ids if i in resources]


class NoEnforcement:
    """The enforcement seam when no chain is configured: approves all."""

    enabled = False

    def check_create(self, context, lease_payload: dict) -> None:
        pass

    def check_update(self, context, current_payload: dict,
                     new_payload: dict) -> None:
        pass

    def on_end(self, context, payload: dict) -> None:
        pass


def load_enforcement():
    """The configured usage enforcement chain (blazar_ext.enforcement).

    A broken import or an unknown filter name raises: the manager must not
    start and let leases through unchecked.
    """
    from blazar_ext import enforcement
    return enforcement.get_chain()


def parse_date(value, field: str, allow_now: bool = False,
               now: datetime.datetime | None = None) -> datetime.datetime:
    """'YYYY-MM-DD HH:MM' (UTC) or, where allowed, 'now'."""
    if allow_now and value == 'now':
        return now or timeutils.utcnow()
    if isinstance(value, str):
        for fmt in DATE_FORMATS:
            try:
                return datetime.datetime.strptime(value, fmt)
            except ValueError:
                continue
    # Upstream Blazar's words first: scripts match on them.
    shown = exceptions.cut(value, 80)
    raise exceptions.Invalid(
        reason='%s is an invalid date. Required format: %%Y-%%m-%%d %%H:%%M '
               '(%s %r is not a date in the format YYYY-MM-DD HH:MM%s)'
               % (shown, field, shown, " or 'now'" if allow_now else ''))


def _minute(now: datetime.datetime) -> datetime.datetime:
    # Dates are given to the minute: a start in the current minute is not
    # "in the past".
    return now.replace(second=0, microsecond=0)


def _as_datetime(value) -> datetime.datetime:
    if isinstance(value, str):
        return datetime.datetime.fromisoformat(value)
    return value


class LeaseManager:
    """The lease lifecycle; one instance per manager process."""

    def __init__(self, enforcement=None):
        self.plugins = {
            host_reservation.RESOURCE_TYPE:
                host_reservation.HostReservationPlugin(),
            virtual_floatingip.RESOURCE_TYPE:
                virtual_floatingip.FloatingIPPlugin(),
        }
        self.enforcement = enforcement or load_enforcement()
        self._notifier = None

    # Helpers

    def notify(self, context, event: str, lease: dict) -> None:
        """Emit lease.<event> through oslo.messaging's notifier."""
        if self._notifier is None:
            self._notifier = rpc.get_notifier('blazar_ext.manager')
        payload = jsonutils.to_primitive(
            {k: v for k, v in lease.items()}, convert_datetime=True)
        try:
            self._notifier.info(context, 'lease.%s' % event, payload)
        except Exception:  # a notification must not break the lease
            LOG.exception('Could not send the lease.%s notification', event)

    def _plugin(self, resource_type):
        plugin = self.plugins.get(resource_type)
        if plugin is None:
            raise exceptions.Invalid(
                reason='unknown resource_type %r; known: %s'
                       % (resource_type, ', '.join(sorted(self.plugins))))
        return plugin

    def _allocator(self, private_visible: bool):
        def allocate(session, reservation_id, spec, start, end):
            plugin = self._plugin(spec['resource_type'])
            if spec['resource_type'] == host_reservation.RESOURCE_TYPE:
                return plugin.allocate(session, reservation_id, spec, start,
                                       end, private_visible=private_visible)
            return plugin.allocate(session, reservation_id, spec, start,
                                   end)
        return allocate

    def _reallocator(self, private_visible: bool):
        def reallocate(session, reservation_id, spec, start, end):
            plugin = self._plugin(spec['resource_type'])
            if spec['resource_type'] == host_reservation.RESOURCE_TYPE:
                return plugin.reallocate(session, reservation_id, spec,
                                         start, end,
                                         private_visible=private_visible)
            return plugin.reallocate(session, reservation_id, spec, start,
                                     end)
        return reallocate

    @staticmethod
    def _events(start, end, before_end=None) -> list:
        if before_end is None:
            before_end = end - datetime.timedelta(
                minutes=CONF.manager.minutes_before_end_lease)
        before_end = min(max(before_end, start), end)
        return [{'event_type': START_LEASE, 'time': start},
                {'event_type': BEFORE_END_LEASE, 'time': before_end},
                {'event_type': END_LEASE, 'time': end}]

    @staticmethod
    def _payload(lease: dict, reservations: list) -> dict:
        payload = {key: lease.get(key) for key in (
            'id', 'name', 'user_id', 'project_id', 'start_date', 'end_date')}
        if lease.get('status'):
            payload['status'] = lease['status']
        payload['start_date'] = _as_datetime(payload['start_date'])
        payload['end_date'] = _as_datetime(payload['end_date'])
        payload['reservations'] = [dict(r) for r in reservations]
        return payload

    @staticmethod
    def _spec_of(reservation: dict) -> dict:
        if reservation['resource_type'] == host_reservation.RESOURCE_TYPE:
            keys = ('min', 'max', 'hypervisor_properties',
                    'resource_properties', 'before_end', 'traits')
        else:
            keys = ('network_id', 'amount', 'required_floatingips')
        spec = {key: reservation.get(key) for key in keys}
        spec['resource_type'] = reservation['resource_type']
        spec['id'] = reservation['id']
        return spec

    def _before_end_date(self, values, start, end):
        before_end = values.get('before_end_date')
        if not before_end:
            return None
        before_end = parse_date(before_end, 'before_end_date')
        if not start <= before_end <= end:
            raise exceptions.Invalid(
                reason='before_end_date %s must be between the start and '
                       'the end of the lease' % values['before_end_date'])
        return before_end

    # Create

    def create_lease(self, context, values: dict,
                     private_visible: bool = False) -> dict:
        """Validate, ask enforcement, then create and allocate at once.

        ``private_visible``: the API's policy answer, whether the caller may
        name private capabilities in resource_properties.
        """
        now = timeutils.utcnow()
        start = parse_date(values.get('start_date'), 'start_date',
                           allow_now=True, now=now)
        end = parse_date(values.get('end_date'), 'end_date')
        if start < _minute(now):
            raise exceptions.Invalid(
                reason='Start date must be later than current date: '
                       'start_date %s is in the past'
                       % values['start_date'])
        if end <= start:
            raise exceptions.Invalid(
                reason='End date must be later than start date: end_date '
                       '%s must be later than start_date %s'
                       % (values['end_date'], values['start_date']))
        before_end = self._before_end_date(values, start, end)
        # As upstream, a lease may hold no reservation (yet).
        requested = values.get('reservations') or []
        specs = [self._plugin(r.get('resource_type')).normalize(r)
                 for r in requested]
        lease_values = {'id': uuidutils.generate_uuid(),
                        'name': values['name'], 'user_id': context.user_id,
                        'project_id': context.project_id,
                        'start_date': start, 'end_date': end,
                        'status': PENDING}
        try:
            self.enforcement.check_create(context, self._payload(
                lease_values, self._with_candidates(
                    context, specs, start, end, private_visible)))
        except exceptions.Forbidden:
            lease = lease_api.lease_create_error(context, lease_values,
                                                 specs)
            self.notify(context, 'create', lease)
            raise
        lease = lease_api.lease_create(
            context, lease_values, specs, self._events(start, end,
                                                       before_end),
            self._allocator(private_visible))
        self.notify(context, 'create', lease)
        return lease

    # Update

    def update_lease(self, context, lease_id: str, values: dict,
                     private_visible: bool = False) -> dict:
        """Apply changes, reallocating as needed; all or nothing.

        ``private_visible`` as for create_lease.
        """
        now = timeutils.utcnow()
        current = lease_api.lease_get(context, lease_id)
        status = current['status']
        if status not in (PENDING, ACTIVE):
            raise exceptions.InvalidLeaseState(
                lease=lease_id, status=status,
                reason='only PENDING or ACTIVE leases can be updated')
        start = old_start = _as_datetime(current['start_date'])
        end = old_end = _as_datetime(current['end_date'])
        changes = {}
        if values.get('name') is not None:
            changes['name'] = values['name']
        if values.get('start_date') is not None:
            start = parse_date(values['start_date'], 'start_date',
                               allow_now=True, now=now)
            if start != old_start:
                if status != PENDING:
                    raise exceptions.InvalidLeaseState(
                        lease=lease_id, status=status,
                        reason='the start date of a lease that has started '
                               'cannot change')
                if start < _minute(now):
                    raise exceptions.Invalid(
                        reason='Start date must be later than current date: '
                               'start_date %s is in the past'
                               % values['start_date'])
                changes['start_date'] = start
        if values.get('end_date') is not None:
            end = parse_date(values['end_date'], 'end_date')
            if end != old_end:
                if end < _minute(now):
                    raise exceptions.Invalid(
                        reason='End date must be later than current and '
                               'start date: end_date %s is in the past'
                               % values['end_date'])
                changes['end_date'] = end
        if end <= start:
            raise exceptions.Invalid(
                reason='End date must be later than current and start '
                       'date: end_date %s must be later than start_date %s'
                       % (end.strftime(DATE_FORMATS[0]),
                          start.strftime(DATE_FORMATS[0])))
        before_end = self._before_end_date(values, start, end)
        by_id = {r['id']: r for r in current['reservations']}
        specs = {}
        for requested in values.get('reservations') or []:
            reservation = by_id.get(requested.get('id'))
            if reservation is None:
                raise exceptions.Invalid(
                    reason='reservation %r is not part of lease %s'
                           % (requested.get('id'), lease_id))
            plugin = self._plugin(reservation['resource_type'])
            fields = {k: v for k, v in requested.items()
                      if k not in ('id', 'resource_type')}
            specs[reservation['id']] = plugin.normalize(
                fields, self._spec_of(reservation))
        if 'start_date' in changes or 'end_date' in changes:
            # A new window: every reservation must still hold.
            for reservation_id, reservation in by_id.items():
                if reservation_id not in specs:
                    plugin = self._plugin(reservation['resource_type'])
                    specs[reservation_id] = plugin.normalize(
                        {}, self._spec_of(reservation))
        new_specs = [dict(specs.get(r['id'], self._spec_of(r)), id=r['id'])
                     for r in current['reservations']]
        new_lease = dict(current, **changes)
        self.enforcement.check_update(
            context,
            self._payload(current, [self._spec_of(r)
                                    for r in current['reservations']]),
            self._payload(new_lease, self._with_candidates(
                context, new_specs, start, end, private_visible)))

        def check(locked: dict) -> None:
            # The lease must not have moved on since we validated it.
            if (locked['status'] != status or
                    locked['updated_at'] != current['updated_at']):
                raise exceptions.Conflict(
                    reason='lease %s changed while it was being updated; '
                           'try again' % lease_id)

        events = []
        if changes.keys() & {'start_date', 'end_date'} or before_end:
            events = self._events(start, end, before_end)
        lease = lease_api.lease_update(
            context, lease_id, check, changes, specs, events,
            self._reallocator(private_visible))
        self.notify(context, 'update', lease)
        return lease

    # Delete

    def delete_lease(self, context, lease_id: str) -> None:
        """Delete at any status; an active lease is ended first."""
        held = None
        if self.enforcement.enabled:
            # Read what it holds now: the delete releases it.
            held = self._end_payload(context,
                                     lease_api.lease_get(context, lease_id))
        lease = lease_api.lease_delete(context, lease_id)
        if lease['status'] == ACTIVE:
            self._end_reservations(context, lease, held)
        self.notify(context, 'delete', lease)

    def _end_payload(self, context, lease: dict) -> dict:
        return enforcement_allocations.with_allocations(
            context, self._payload(lease, [self._spec_of(r)
                                           for r in lease['reservations']]))

    def _end_reservations(self, context, lease: dict,
                          payload: dict | None = None) -> None:
        for reservation in lease['reservations']:
            self._plugin(reservation['resource_type']).on_end(
                context, reservation)
        self.enforcement.on_end(context, payload or self._payload(
            lease, [self._spec_of(r) for r in lease['reservations']]))

    def _with_candidates(self, context, specs: list,
                         start: datetime.datetime,
                         end: datetime.datetime,
                         private_visible: bool) -> list:
        """Specs with the resources allocation would pick now, for the
        enforcement payloads (the usage enforcement spec: filters see the
        candidates)."""
        if not self.enforcement.enabled:
            return specs

        def pick(session) -> list:
            return [self._plugin(spec['resource_type']).candidates(
                session, spec, start, end, private_visible,
                reservation_id=spec.get('id')) for spec in specs]

        picked = allocation_api.read(context, pick)
        wanted = collections.defaultdict(set)
        for spec, ids in zip(specs, picked):
            wanted[spec['resource_type']].update(ids)
        # One read per resource type the lease asks for.
        resources = {
            resource_type: {r['id']: r for r in _RESOURCE_LOADERS[
                resource_type](context, ids)}
            for resource_type, ids in wanted.items()}
        return [dict(spec, allocations=_known(
            resources[spec['resource_type']], ids))
            for spec, ids in zip(specs, picked)]

    # Events (called by the event loop after it claimed the event)

    def handle_event(self, context, event: dict) -> str:
        """Run one claimed event; returns its final status."""
        handler = {START_LEASE: self._start,
                   BEFORE_END_LEASE: self._before_end,
                   END_LEASE: self._end}[event['event_type']]
        if event['event_type'] != START_LEASE:
            start_status = lease_api.event_status(
                context, event['lease_id'], START_LEASE)
            if start_status in ('UNDONE', 'IN_PROGRESS'):
                # Its start has not run yet: hand the event back.
                lease_api.event_set_status(context, event['id'], 'UNDONE')
                return 'UNDONE'
        try:
            lease = handler(context, event['lease_id'])
        except exceptions.LeaseNotFound:
            return 'DONE'  # deleted meanwhile; its events went with it
        except Exception:
            LOG.exception('Event %s of lease %s failed',
                          event['event_type'], event['lease_id'])
            try:
                lease = lease_api.lease_set_status(context,
                                                   event['lease_id'], ERROR)
                self._notify_event(context, event, lease)
            except exceptions.LeaseNotFound:
                pass
            lease_api.event_set_status(context, event['id'], 'ERROR')
            return 'ERROR'
        self._notify_event(context, event, lease)
        lease_api.event_set_status(context, event['id'], 'DONE')
        return 'DONE'

    def _notify_event(self, context, event: dict, lease: dict) -> None:
        """lease.event.<type>, at least once: it goes out before the event
        is marked done, so a manager killed in between sends it again when
        the event is retried instead of never. ``event_id`` in the payload
        lets a consumer drop the repeat."""
        self.notify(context, 'event.%s' % event['event_type'],
                    dict(lease, event_id=event['id']))

    def _start(self, context, lease_id: str) -> dict:
        lease = lease_api.lease_set_status(context, lease_id, STARTING)
        for reservation in lease['reservations']:
            self._plugin(reservation['resource_type']).on_start(
                context, reservation)
        return lease_api.lease_set_status(context, lease_id, ACTIVE,
                                          reservation_status='active')

    def _before_end(self, context, lease_id: str) -> dict:
        lease = lease_api.lease_get(context, lease_id)
        for reservation in lease['reservations']:
            self._plugin(reservation['resource_type']).before_end(
                context, reservation)
        return lease

    def _end(self, context, lease_id: str) -> dict:
        lease = lease_api.lease_set_status(context, lease_id, TERMINATING)
        self._end_reservations(context, lease)
        return lease_api.lease_set_status(
            context, lease_id, TERMINATED, reservation_status='deleted',
            release=True)
