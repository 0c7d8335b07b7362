"""Maintenance windows in the manager (issue 30).

Scheduling a window on a resource (a host, a floating IP: any type whose
plugin names a ``maintenance_column``), in one allocating transaction:
the resource is held for the window (db/api/maintenance.py, with the
plugin's ``hold_for_maintenance``), and every live reservation holding it
over part of the window is handed to its resource type's
healing (the Healer's ``heal_many`` path) for the rest of its lease,
ahead of time: ``moved`` (flagged ``resources_changed``) or ``unmovable``
(it stays; when the window starts the resource goes out of service and
healing flags it ``degraded``). ``dry_run`` answers the same and rolls
everything back. The maintenance task takes the resource out of service
when the window starts and brings it back when it ends (a host only if
maintenance took it out; a floating IP keeps no record of who did).

Notifications, written to the outbox in the transaction of the moves:
lease.maintenance.scheduled for every lease moved or left in place
(payload: the lease, with ``maintenance``, ``moved`` and ``unmovable``).
"""

import datetime

from oslo_config import cfg
from oslo_log import log as logging
from oslo_utils import strutils
from oslo_utils import timeutils
from oslo_utils import uuidutils

from blazar_ext import context as blazar_context
from blazar_ext.db.api import lease as lease_api
from blazar_ext.db.api import maintenance as maintenance_api
from blazar_ext.db.api import transaction
from blazar_ext import exceptions
from blazar_ext.manager import leases
from blazar_ext.manager import periodic
from blazar_ext.plugins import physical_host

CONF = cfg.CONF
LOG = logging.getLogger(__name__)
# The resource type of a window when none is named (RPC 1.5: hosts).
HOST = physical_host.RESOURCE_TYPE

# reservable_by of a host maintenance took out of service.
BY = 'maintenance'
NOTIFICATION = 'maintenance.scheduled'


def _window(values: dict, now: datetime.datetime,
            current: dict | None = None) -> tuple:
    """(start, end) from ``values`` (or the current window); Invalid
    naming the field."""
    start = current['start_date'] if current else None
    end = current['end_date'] if current else None
    if values.get('start_date') is not None or current is None:
        start = leases.parse_date(values.get('start_date'), 'start_date',
                                  allow_now=True, now=leases._minute(now))
        if start < leases._minute(now):
            raise exceptions.Invalid(
                reason='start_date: %s is in the past'
                       % values['start_date'])
    if values.get('end_date') is not None or current is None:
        end = leases.parse_date(values.get('end_date'), 'end_date')
    if end <= start:
        raise exceptions.Invalid(
            reason='end_date: must be later than start_date (%s)'
                   % start.strftime(leases.DATE_FORMATS[0]))
    if end <= now:
        raise exceptions.Invalid(reason='end_date: is in the past')
    return start, end


def _dry_run(values: dict) -> bool:
    try:
        return strutils.bool_from_string(values.get('dry_run', False),
                                         strict=True)
    except ValueError:
        raise exceptions.Invalid(
            reason='dry_run: %r is not a boolean'
                   % exceptions.cut(values.get('dry_run'), 40))


class MaintenanceManager:
    """Schedule, change and cancel maintenance windows."""

    def __init__(self, lease_manager: leases.LeaseManager, healer):
        self.leases = lease_manager
        self.healer = healer

    def _plugin(self, resource_type: str):
        plugin = self.leases.plugins.get(resource_type)
        if not plugin.maintenance_column:
            raise exceptions.Invalid(
                reason='%s resources have no maintenance windows'
                       % resource_type)
        return plugin

    def _target(self, window: dict) -> tuple:
        """(plugin, resource id) of a window: the type whose column it
        fills."""
        for plugin in self.leases.plugins:
            column = plugin.maintenance_column
            if column and window.get(column):
                return plugin, str(window[column])
        raise exceptions.Invalid(
            reason='maintenance window %s: its resource type is not '
                   'enabled' % window['id'])

    def _sources(self, resource_type: str) -> list:
        """Where reservations of every type hold ``resource_type``, each
        place once (virtual:instance and flavor:instance share one)."""
        return [source for source in dict.fromkeys(self.healer.sources())
                if source.resource_type == resource_type]

    # Schedule

    def schedule(self, context, resource_ref: str, values: dict,
                 resource_type: str = HOST) -> dict:
        """{'maintenance', 'moved', 'unmovable', 'dry_run'} of a window on
        the ``resource_type`` resource ``resource_ref``."""
        now = timeutils.utcnow()
        start, end = _window(values, now)
        reason = values.get('reason')
        if reason is not None and (not isinstance(reason, str)
                                   or len(reason) > 255):
            raise exceptions.Invalid(
                reason='reason: a text of at most 255 characters')
        dry_run = _dry_run(values)
        plugin = self._plugin(resource_type)
        resource_id = plugin.resource_id_of(context, str(resource_ref))
        window = {'id': uuidutils.generate_uuid(),
                  plugin.maintenance_column: resource_id,
                  'start_date': start,
                  'end_date': end, 'reason': reason,
                  'status': maintenance_api.SCHEDULED,
                  'user_id': context.user_id,
                  'project_id': context.project_id}
        try:
            result = self._write(context, window, now, dry_run, new=True)
        except maintenance_api.DryRun as stop:
            return dict(stop.result, dry_run=True)
        self._after(context, result)
        return dict(result, dry_run=False)

    @lease_api.retry
    def _write(self, context, window: dict, now: datetime.datetime,
               dry_run: bool, new: bool) -> dict:
        plugin, resource_id = self._target(window)
        with transaction.allocating(context) as session:
            self._lock(context, session, plugin, resource_id)
            if new:
                window['hold_lease_id'] = maintenance_api.hold_insert(
                    session, self._hold_values(window),
                    plugin.resource_type,
                    lambda session, reservation_id:
                    plugin.hold_for_maintenance(
                        session, reservation_id, resource_id,
                        window['start_date'], window['end_date']))
                maintenance_api.window_insert(session, window)
            else:
                maintenance_api.window_set(session, window['id'], {
                    'start_date': window['start_date'],
                    'end_date': window['end_date']})
                if window.get('hold_lease_id'):
                    maintenance_api.hold_move(
                        session, window['hold_lease_id'],
                        window['start_date'], window['end_date'])
            moved, unmovable = self._move(session, plugin.resource_type,
                                          resource_id, window, now)
            result = {'maintenance': dict(window), 'moved': moved,
                      'unmovable': unmovable}
            if dry_run:
                raise maintenance_api.DryRun(result)
            self._record(session, result)
            return result

    def _lock(self, context, session, plugin, resource_id: str) -> None:
        """The resource's row, locked (its NotFound if it is gone)."""
        model = self._sources(plugin.resource_type)[0].resource
        if not maintenance_api.lock_resource(session, model, resource_id):
            plugin.resource_id_of(context, resource_id)  # its NotFound
            raise exceptions.Conflict(reason='%s %s is gone' % (
                plugin.resource_type, resource_id))

    def _record(self, session, result: dict) -> None:
        """maintenance.scheduled for each lease moved or not movable, in
        the transaction that moved them (the outbox)."""
        lease_ids = sorted({m['lease_id'] for m in
                            result['moved'] + result['unmovable']})
        # The leases read together: a window may move a thousand.
        for lease in self.leases.plugins.add_details(
                session, lease_api.leases_read(session, lease_ids)):
            lease_id = lease['id']
            self.leases.record(
                session, NOTIFICATION, lease,
                maintenance=result['maintenance'],
                moved=[m for m in result['moved']
                       if m['lease_id'] == lease_id],
                unmovable=[m for m in result['unmovable']
                           if m['lease_id'] == lease_id])

    @staticmethod
    def _hold_values(window: dict) -> dict:
        return {'id': uuidutils.generate_uuid(),
                'name': ('maintenance: %s' % (window['reason'] or ''))[:80]
                .strip(),
                'user_id': window['user_id'],
                'project_id': window['project_id'],
                'start_date': window['start_date'],
                'end_date': window['end_date']}

    def _move(self, session, resource_type: str, resource_id: str,
              window: dict, now: datetime.datetime) -> tuple:
        """Hand the reservations on the resource in the window to
        healing; (moved, unmovable) as the API answers them."""
        found = maintenance_api.overlapping(
            session, self._sources(resource_type), resource_id,
            window['start_date'], window['end_date'], now)
        by_type: dict = {}
        for reservation, start, end in found:
            # Active: from now; future: its whole window, as healing does.
            by_type.setdefault(reservation['resource_type'], []).append(
                (reservation, [resource_id],
                 max(start, now.replace(microsecond=0)), end))
        moved, unmovable = [], []
        for resource_type, items in sorted(by_type.items()):
            results = self.healer._heal_reservations(session, resource_type,
                                                     items)
            for (reservation, _lost, _s, _e), result in zip(items, results):
                entry = {'lease_id': reservation['lease_id'],
                         'reservation_id': reservation['id'],
                         'resource_type': resource_type,
                         'from': resource_id}
                if result.get(resource_id) is not None:
                    moved.append(dict(entry, to=result[resource_id]))
                else:
                    unmovable.append(entry)
        maintenance_api.flag_changed(session,
                                     [m['reservation_id'] for m in moved])
        session.flush()
        # Compiled requests are good for this transaction only.
        session.info.pop('heal_host_filters', None)
        return moved, unmovable

    def _after(self, context, result: dict) -> None:
        """Placement views of the active reservations moved, then the
        notifications recorded with the moves."""
        self.healer._healed(context, [{'replaced': [
            {'resource_type': m['resource_type'],
             'reservation_id': m['reservation_id'], 'from': m['from'],
             'to': m['to']} for m in result['moved']]}])
        self.leases.notify(context)

    # Move, shorten, cancel

    def update(self, context, window_id: str, values: dict) -> dict:
        """A new start or end; leases in the new window move as at
        schedule. An active window may only change its end."""
        now = timeutils.utcnow()
        current = maintenance_api.window_get(context, window_id)
        if current['status'] not in (maintenance_api.SCHEDULED,
                                     maintenance_api.ACTIVE):
            raise exceptions.Conflict(
                reason='maintenance window %s is %s' % (window_id,
                                                        current['status']))
        if current['status'] == maintenance_api.ACTIVE and \
                values.get('start_date') is not None:
            raise exceptions.Invalid(
                reason='start_date: the window has started; only its '
                       'end_date can change')
        if current['status'] == maintenance_api.ACTIVE:
            values = dict(values, start_date=None)
            start = current['start_date']
            end = leases.parse_date(values.get('end_date'), 'end_date')
            if end <= max(start, now):
                raise exceptions.Invalid(
                    reason='end_date: must be later than now and the start')
        else:
            start, end = _window(values, now, current)
        window = dict(current, start_date=start, end_date=end)
        dry_run = _dry_run(values)
        try:
            result = self._write(context, window, now, dry_run, new=False)
        except maintenance_api.DryRun as stop:
            return dict(stop.result, dry_run=True)
        self._after(context, result)
        return dict(result, dry_run=False)

    def cancel(self, context, window_id: str) -> None:
        """Cancel a scheduled or active window: the hold goes, and the
        resource comes back if maintenance took it out."""
        current = maintenance_api.window_get(context, window_id)
        for status in (maintenance_api.SCHEDULED, maintenance_api.ACTIVE):
            if maintenance_api.window_advance(
                    context, window_id, status, maintenance_api.CANCELLED):
                self._finish(context, current, back=(
                    status == maintenance_api.ACTIVE))
                return
        raise exceptions.Conflict(
            reason='maintenance window %s is %s' % (window_id,
                                                    current['status']))

    def _finish(self, context, window: dict, back: bool) -> None:
        plugin, resource_id = self._target(window)
        if window.get('hold_lease_id'):
            with transaction.allocating(context) as session:
                try:
                    maintenance_api.hold_release(
                        session, window['hold_lease_id'], plugin.release)
                except exceptions.LeaseNotFound:
                    pass
        if back:
            self.healer.set_reservable(
                context, plugin.resource_type, resource_id, True, by=BY,
                only_if_by=BY)

    # The maintenance task

    def run_due(self, context, now: datetime.datetime | None = None) -> list:
        """Start and end the windows due at ``now``; [(id, new status)]."""
        now = now or timeutils.utcnow()
        done = []
        for window_id, status in maintenance_api.windows_due(context, now):
            if status == maintenance_api.SCHEDULED:
                window = maintenance_api.window_advance(
                    context, window_id, status, maintenance_api.ACTIVE)
                if window:
                    self._start(context, window)
                    done.append((window_id, maintenance_api.ACTIVE))
                    status = maintenance_api.ACTIVE
                    if window['end_date'] > now:
                        continue
            window = maintenance_api.window_advance(
                context, window_id, status, maintenance_api.DONE)
            if window:
                self._finish(context, window, back=True)
                done.append((window_id, maintenance_api.DONE))
        return done

    def _start(self, context, window: dict) -> None:
        plugin, resource_id = self._target(window)
        LOG.info('Maintenance window %s starts on %s %s', window['id'],
                 plugin.resource_type, resource_id)
        # Healing then flags what could not move (degraded).
        self.healer.set_reservable(
            context, plugin.resource_type, resource_id, False,
            reason=('maintenance: %s' % (window['reason'] or ''))[:255],
            by=BY)


class MaintenanceTask(periodic.PeriodicThread):
    """Starts and ends maintenance windows, every [manager]
    maintenance_interval seconds."""

    thread_name = 'blazar-ext-maintenance'

    def __init__(self, maintenance_manager: MaintenanceManager):
        self.maintenance = maintenance_manager
        super().__init__()

    def interval(self) -> float:
        return CONF.manager.maintenance_interval

    def run_once(self, now: datetime.datetime | None = None) -> list:
        return self.maintenance.run_due(blazar_context.get_admin_context(),
                                        now)
