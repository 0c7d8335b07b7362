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
from oslo_utils import timeutils
from oslo_utils import uuidutils

from blazar_ext.db.api import allocation as allocation_api
from blazar_ext.db.api import lease as lease_api
from blazar_ext.db.api import outbox as outbox_api
from blazar_ext.db.api import retry as db_retry
from blazar_ext.db.api import transaction
from blazar_ext.enforcement import allocations as enforcement_allocations
from blazar_ext import exceptions
from blazar_ext.manager import delivery
from blazar_ext.plugins import base as plugin_base
from blazar_ext.plugins import loader
from blazar_ext import states

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

LEASE = states.Lease
RESERVATION = states.Reservation
EVENT = states.Event

DATE_FORMATS = ('%Y-%m-%d %H:%M', '%Y-%m-%d %H:%M:%S')

# The outbox event (notifications.catalog) each lease event records.
EVENT_NOTIFICATIONS = {EVENT.START_LEASE: 'lease.started',
                       EVENT.BEFORE_END_LEASE: 'lease.before_end',
                       EVENT.END_LEASE: 'lease.ended'}


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


def _for_hooks(lease: dict, reservation: dict) -> dict:
    """A reservation as the lifecycle hooks get it: with its lease's
    owner (a compute driver gives the project access to its flavor)."""
    return dict(reservation, project_id=lease.get('project_id'),
                user_id=lease.get('user_id'))


class LeaseManager:
    """The lease lifecycle; one instance per manager process.

    It owns the transactions: every change opens one writer transaction
    and calls the db API (lease rows) and the resource plugins (details,
    allocations) inside it, so a refusal anywhere leaves nothing behind.
    """

    def __init__(self, enforcement=None, plugins=None):
        self._plugins = plugins
        self.enforcement = enforcement or load_enforcement()
        self.outbox = delivery.Dispatcher(self)

    @property
    def plugins(self) -> loader.Plugins:
        """The given plugins, else those [manager] plugins enables now."""
        return self._plugins or loader.get()

    # Helpers

    @staticmethod
    def record(session, event_type: str, lease: dict, **extra) -> None:
        """Write ``event_type`` (notifications.catalog) about the whole
        ``lease`` to the outbox, in the transaction of the change."""
        outbox_api.record(session, event_type, dict(lease, **extra))

    def notify(self, context) -> None:
        """After a commit that recorded events: send them (the outbox
        keeps them for the delivery thread if this fails)."""
        self.outbox.flush(context)

    def _plugin(self, resource_type) -> plugin_base.ResourcePlugin:
        return self.plugins.get(resource_type)

    def _read(self, session, lease_id: str, lock: bool = False) -> dict:
        """The lease with its details, in the caller's transaction."""
        return self.plugins.add_details(
            session, [lease_api.lease_read(session, lease_id, lock=lock)])[0]

    def _written(self, session, lease_id: str, rows: dict) -> dict:
        """_read of a lease this transaction has just inserted, its
        rows (see _insert) taken as they were written where the database
        gives them back unchanged: three reads fewer (the lease, its
        reservations, its events); the details are read as by _read
        (a plugin's own rows, written by its add_detail and allocate)."""
        lease = lease_api.built_lease(session, rows['leases'],
                                      rows['reservations'], rows['events'])
        if lease is None:
            return self._read(session, lease_id)
        return self.plugins.add_details(session, [lease])[0]

    def lease_get(self, context, lease_id: str) -> dict:
        return self.plugins.lease_get(context, lease_id)

    @staticmethod
    def _events(start, end, before_end=None) -> list:
        if before_end is None:
            before_end = end - datetime.timedelta(
                minutes=CONF.manager.minutes_before_end_lease)
        before_end = min(max(before_end, start), end)
        return [{'event_type': EVENT.START_LEASE, 'time': start},
                {'event_type': EVENT.BEFORE_END_LEASE, 'time': before_end},
                {'event_type': EVENT.END_LEASE, 'time': end}]

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

    def _spec_of(self, reservation: dict) -> dict:
        plugin = self.plugins.by_type.get(reservation['resource_type'])
        if plugin is None:  # a type since disabled: the common columns
            return {'resource_type': reservation['resource_type'],
                    'id': reservation['id']}
        return plugin.spec_of(reservation)

    def _before_end_date(self, values, start, end):
        before_end = values.get('before_end_date')
        if not before_end:
            return None
        before_end = parse_date(before_end, 'before_end_date')
        if not start <= before_end <= end:
            raise exceptions.Invalid(
                reason='Datetime is out of lease limits. before_end_date %s '
                       'must be between the start and the end of the lease'
                       % values['before_end_date'])
        return before_end

    # Create

    def create_lease(self, context, values: dict,
                     private_visible: bool = False) -> dict:
        """Validate, ask enforcement, then create and allocate at once.

        ``private_visible``: the API's policy answer, whether the caller may
        name private capabilities in resource_properties.
        """
        now = timeutils.utcnow()
        # A lease started "now" starts at the current minute, as upstream.
        start = parse_date(values.get('start_date'), 'start_date',
                           allow_now=True, now=_minute(now))
        end = parse_date(values.get('end_date'), 'end_date')
        if start < _minute(now):
            raise exceptions.Invalid(
                reason='Start date must be later than current date: '
                       'start_date %s is in the past'
                       % values['start_date'])
        if end <= start:
            raise exceptions.Invalid(
                reason='End date must be later than start date. end_date '
                       '%s must be later than start_date %s'
                       % (values['end_date'], values['start_date']))
        before_end = self._before_end_date(values, start, end)
        # As upstream, a lease may hold no reservation (yet).
        requested = values.get('reservations') or []
        specs = [self._plugin(r.get('resource_type')).normalize(
            r, private_visible=private_visible) for r in requested]
        lease_values = {'id': uuidutils.generate_uuid(),
                        'name': values['name'], 'user_id': context.user_id,
                        'project_id': context.project_id,
                        'start_date': start, 'end_date': end,
                        'status': LEASE.PENDING}
        try:
            self.enforcement.check_create(context, self._payload(
                lease_values, self._with_candidates(context, specs, start,
                                                    end)))
            # Filters that write (budgets) may refuse in the transaction.
            lease = self._create(context, lease_values, specs,
                                 self._events(start, end, before_end))
        except exceptions.Forbidden:
            self._create_refused(context, lease_values, specs)
            self.notify(context)
            raise
        self.notify(context)
        return lease

    def _insert(self, session, lease_values: dict, specs: list,
                status: str, rows: dict | None = None) -> list:
        """The lease, reservation and detail rows; reservation ids.
        ``rows``, if given, {'leases': [], 'reservations': []} gets the
        lease's and reservations' rows written."""
        rows = rows or {}
        lease_id = lease_api.lease_insert(session, lease_values,
                                          rows.get('leases'))
        ids = []
        for spec in specs:
            plugin = self._plugin(spec['resource_type'])
            reservation_id = lease_api.reservation_insert(
                session, lease_id, spec['resource_type'], status,
                rows.get('reservations'))
            lease_api.reservation_set_resource(
                session, reservation_id,
                plugin.add_detail(session, reservation_id, spec),
                rows.get('reservations'))
            ids.append(reservation_id)
        return ids

    def _created(self, context, lease_values: dict, *args) -> dict | None:
        """The lease if its create landed though COMMIT's answer was
        lost (the Galera node that ran it died)."""
        try:
            return self.lease_get(context, lease_values['id'])
        except exceptions.LeaseNotFound:
            return None

    @db_retry.verify_commit(_created)
    @lease_api.retry
    def _create(self, context, lease_values: dict, specs: list,
                events: list) -> dict:
        with transaction.allocating(context) as session:
            rows = {'leases': [], 'reservations': [], 'events': []}
            ids = self._insert(session, lease_values, specs,
                               RESERVATION.PENDING, rows)
            for reservation_id, spec in zip(ids, specs):
                self._plugin(spec['resource_type']).allocate(
                    context, session, reservation_id, spec,
                    lease_values['start_date'], lease_values['end_date'])
            # A new lease: its events in one INSERT, none to replace.
            lease_api.events_insert(session, lease_values['id'], events,
                                    rows['events'])
            lease = self._written(session, lease_values['id'], rows)
            self._in_transaction('create', session, context, lease)
            self.record(session, 'lease.created', lease)
            return lease

    def _create_refused(self, context, lease_values: dict,
                        specs: list) -> dict:
        """Record a lease enforcement refused (ERROR, nothing held)."""
        with transaction.writing(context) as session:
            self._insert(session, dict(lease_values, status=LEASE.ERROR),
                         specs, RESERVATION.ERROR)
            lease = self._read(session, lease_values['id'])
            self.record(session, 'lease.created', lease)
            return lease

    # Update

    def update_lease(self, context, lease_id: str, values: dict,
                     private_visible: bool = False) -> dict:
        """Apply changes, reallocating as needed; all or nothing.

        ``private_visible`` as for create_lease.
        """
        now = timeutils.utcnow()
        current = self.lease_get(context, lease_id)
        status = current['status']
        if status not in LEASE.UPDATABLE:
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
                               allow_now=True, now=_minute(now))
            if start != old_start:
                if status != LEASE.PENDING:
                    # Upstream's words and status (400).
                    raise exceptions.Invalid(
                        reason='Cannot modify the start date of already '
                               'started leases. Lease %s is %s.'
                               % (lease_id, status))
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
        if before_end is None and changes.keys() & {'start_date',
                                                    'end_date'}:
            before_end = self._kept_before_end(current, old_end, end)
        specs = self._changed_specs(current, values.get('reservations'),
                                    'start_date' in changes
                                    or 'end_date' in changes,
                                    private_visible)
        new_specs = [specs[r['id']].copy_with(id=r['id']) if r['id'] in specs
                     else self._spec_of(r) for r in current['reservations']]
        new_lease = dict(current, **changes)
        self.enforcement.check_update(
            context,
            self._payload(current, [self._spec_of(r)
                                    for r in current['reservations']]),
            self._payload(new_lease, self._with_candidates(
                context, new_specs, start, end)))
        events = []
        if changes.keys() & {'start_date', 'end_date'} or before_end:
            events = self._events(start, end, before_end)
        lease = self._update(context, current, changes, specs, events)
        self.notify(context)
        return lease

    @staticmethod
    def _kept_before_end(current: dict, old_end: datetime.datetime,
                         end: datetime.datetime):
        """The before-end time that keeps its distance to the end as the
        end moves (as upstream), or None (the default) without one."""
        for event in current.get('events') or []:
            if event['event_type'] == EVENT.BEFORE_END_LEASE:
                return end - (old_end - _as_datetime(event['time']))
        return None

    def _changed_specs(self, current: dict, requested: list | None,
                       window_changed: bool, private_visible: bool) -> dict:
        """{reservation id: new Spec} of the reservations to reallocate:
        those the request changes, and all of them in a new window."""
        by_id = {r['id']: r for r in current['reservations']}
        specs = {}
        for request in requested or []:
            reservation = by_id.get(request.get('id'))
            if reservation is None:
                raise exceptions.Invalid(
                    reason='reservation %r is not part of lease %s'
                           % (request.get('id'), current['id']))
            plugin = self._plugin(reservation['resource_type'])
            fields = {k: v for k, v in request.items()
                      if k not in ('id', 'resource_type')}
            spec = plugin.normalize(fields, plugin.spec_of(reservation),
                                    private_visible=private_visible)
            plugin.validate_update(reservation, spec, current['status'])
            specs[reservation['id']] = spec
        if window_changed:
            # A new window: every reservation must still hold.
            for reservation_id, reservation in by_id.items():
                if reservation_id not in specs:
                    plugin = self._plugin(reservation['resource_type'])
                    specs[reservation_id] = plugin.normalize(
                        {}, plugin.spec_of(reservation),
                        private_visible=private_visible)
        return specs

    @lease_api.retry
    def _update(self, context, current: dict, changes: dict, specs: dict,
                events: list) -> dict:
        lease_id = current['id']
        by_id = {r['id']: r for r in current['reservations']}
        with transaction.allocating(context) as session:
            locked = lease_api.lease_read(session, lease_id, lock=True)
            # The lease must not have moved on since we validated it.
            if (locked['status'] != current['status'] or
                    locked['updated_at'] != current['updated_at']):
                raise exceptions.Conflict(
                    reason='lease %s changed while it was being updated; '
                           'try again' % lease_id)
            lease_api.lease_set(session, lease_id, changes)
            start = changes.get('start_date', locked['start_date'])
            end = changes.get('end_date', locked['end_date'])
            allocation_api.move_window(session, list(by_id), start, end)
            for reservation_id, spec in specs.items():
                plugin = self._plugin(by_id[reservation_id]['resource_type'])
                plugin.update_detail(session, reservation_id, spec)
                plugin.reallocate(context, session, reservation_id, spec,
                                  start, end)
            # A before-end event that has run runs again before the new
            # end, as upstream re-arms it.
            lease_api.set_events(session, lease_id, events,
                                 rearm=(EVENT.BEFORE_END_LEASE,))
            lease = self._read(session, lease_id)
            self._in_transaction('update', session, context, current, lease)
            self.record(session, 'lease.updated', lease)
            return lease

    # Delete

    def delete_lease(self, context, lease_id: str) -> None:
        """Delete at any status; an active lease is ended first."""
        held = None
        if self.enforcement.enabled:
            # Read what it holds now: the delete releases it.
            held = self._end_payload(context,
                                     self.lease_get(context, lease_id))
        lease = self._delete(context, lease_id)
        if lease['status'] == LEASE.ACTIVE:
            self._end_reservations(context, lease, held)
        self.notify(context)

    @lease_api.retry
    def _delete(self, context, lease_id: str) -> dict:
        """Delete the lease and all it holds; the lease as it was."""
        with transaction.writing(context) as session:
            lease = self._read(session, lease_id, lock=True)
            self._in_transaction('delete', session, context, lease)
            self._each_type(lease, lambda plugin, ids:
                            plugin.delete_details(session, ids))
            lease_api.lease_remove(session, lease_id,
                                   [r['id'] for r in lease['reservations']])
            self.record(session, 'lease.deleted', lease)
            return lease

    def _in_transaction(self, action: str, session, context,
                        *leases) -> None:
        """Enforcement that writes (budgets) in the lease's transaction."""
        hook = getattr(self.enforcement, 'in_transaction', None)
        if hook is not None:
            hook(action, session, context, *leases)

    def _each_type(self, lease: dict, call) -> None:
        """``call(plugin, reservation ids)`` once per enabled type."""
        by_type = collections.defaultdict(list)
        for reservation in lease['reservations']:
            by_type[reservation['resource_type']].append(reservation['id'])
        for resource_type, ids in by_type.items():
            plugin = self.plugins.by_type.get(resource_type)
            if plugin is not None:
                call(plugin, ids)

    def _end_payload(self, context, lease: dict) -> dict:
        return enforcement_allocations.with_allocations(
            context, self._payload(lease, [self._spec_of(r)
                                           for r in lease['reservations']]),
            self.plugins)

    def _end_reservations(self, context, lease: dict,
                          payload: dict | None = None) -> None:
        for reservation in lease['reservations']:
            self._plugin(reservation['resource_type']).on_end(
                context, _for_hooks(lease, reservation))
        self.enforcement.on_end(context, payload or self._payload(
            lease, [self._spec_of(r) for r in lease['reservations']]))

    def _with_candidates(self, context, specs: list,
                         start: datetime.datetime,
                         end: datetime.datetime) -> list:
        """Specs with the resources allocation would pick now, for the
        enforcement payloads (the usage enforcement spec: filters see the
        candidates)."""
        if not self.enforcement.enabled:
            return specs
        with transaction.reading(context) as session:
            picked = [self._plugin(spec['resource_type']).candidates(
                context, session, spec, start, end,
                reservation_id=spec.get('id')) for spec in specs]
        wanted = collections.defaultdict(set)
        for spec, ids in zip(specs, picked):
            wanted[spec['resource_type']].update(ids)
        # One read per resource type the lease asks for.
        resources = {
            resource_type: {r['id']: r for r in self._plugin(
                resource_type).load_resources(context, list(ids))}
            for resource_type, ids in wanted.items()}
        return [dict(spec, allocations=_known(
            resources[spec['resource_type']], ids))
            for spec, ids in zip(specs, picked)]

    # Events (called by the event loop after it claimed the event)

    def handle_event(self, context, event: dict) -> str:
        """Run one claimed event; returns its final status."""
        handler = {EVENT.START_LEASE: self._start,
                   EVENT.BEFORE_END_LEASE: self._before_end,
                   EVENT.END_LEASE: self._end}[event['event_type']]
        if event['event_type'] != EVENT.START_LEASE:
            start_status = lease_api.event_status(
                context, event['lease_id'], EVENT.START_LEASE)
            if start_status in (EVENT.UNDONE, EVENT.IN_PROGRESS):
                # Its start has not run yet: hand the event back.
                lease_api.event_set_status(context, event['id'],
                                           EVENT.UNDONE)
                return EVENT.UNDONE
        try:
            lease = handler(context, event['lease_id'])
        except exceptions.LeaseNotFound:
            return EVENT.DONE  # deleted meanwhile; its events went with it
        except Exception:
            LOG.exception('Event %s of lease %s failed',
                          event['event_type'], event['lease_id'])
            try:
                lease = self._set_status(context, event['lease_id'],
                                         LEASE.ERROR)
            except exceptions.LeaseNotFound:
                lease = None
            self._finish_event(context, event, lease, EVENT.ERROR)
            return EVENT.ERROR
        self._finish_event(context, event, lease, EVENT.DONE)
        return EVENT.DONE

    def _finish_event(self, context, event: dict, lease: dict | None,
                      status: str) -> None:
        """Mark the event DONE (or ERROR) and record its notification in
        one transaction: exactly once, whichever manager runs it, and
        again if a manager dies before the mark and the event is rerun.
        ``event_id`` in the payload names the lease event."""
        with transaction.writing(context) as session:
            if lease is not None:
                self.record(session,
                            EVENT_NOTIFICATIONS[event['event_type']], lease,
                            event_id=event['id'])
            lease_api.event_set_status(context, event['id'], status)
        self.notify(context)

    def _set_status(self, context, lease_id: str, status: str,
                    reservation_status: str | None = None,
                    release: bool = False) -> dict:
        """Set the lease's status (and its reservations'); ``release``
        drops what it holds (the lease is over)."""
        with transaction.writing(context) as session:
            lease_api.lease_set_status(context, lease_id, status,
                                       reservation_status)
            lease = self._read(session, lease_id)
            if release:
                self._each_type(lease, lambda plugin, ids:
                                plugin.release(session, ids))
            return lease

    def _start(self, context, lease_id: str) -> dict:
        lease = self._set_status(context, lease_id, LEASE.STARTING)
        for reservation in lease['reservations']:
            self._plugin(reservation['resource_type']).on_start(
                context, _for_hooks(lease, reservation))
        return self._set_status(context, lease_id, LEASE.ACTIVE,
                                reservation_status=RESERVATION.ACTIVE)

    def _before_end(self, context, lease_id: str) -> dict:
        lease = self.lease_get(context, lease_id)
        for reservation in lease['reservations']:
            self._plugin(reservation['resource_type']).before_end(
                context, _for_hooks(lease, reservation))
        return lease

    def _end(self, context, lease_id: str) -> dict:
        lease = self._set_status(context, lease_id, LEASE.TERMINATING)
        self._end_reservations(context, lease)
        return self._set_status(
            context, lease_id, LEASE.TERMINATED,
            reservation_status=RESERVATION.DELETED, release=True)
