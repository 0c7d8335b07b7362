"""Lease series (recurring leases) in the manager.

A series is stored once (rule, time zone, request); each occurrence is an
ordinary lease, booked ahead up to [manager] series_horizon_days and then
by the series task as time passes. The occurrences of one booking are
written in one allocating transaction, each in a savepoint: with
``booking: all`` a date that does not fit refuses the whole series (409
naming the dates, nothing written); with ``available`` it is recorded as
``unavailable`` and the rest is booked. The occurrence table is unique per
series and date, so two managers never book one date twice.

Enforcement sees every occurrence: the lease payload carries ``series``
= {'id', 'name', 'recurrence', 'timezone', 'occurrences': [{'start_date',
'end_date'}, ...every occurrence of the rule]}.
"""

import datetime

from oslo_config import cfg
from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_utils import timeutils
from oslo_utils import uuidutils

from blazar_ext import context as blazar_context
from blazar_ext.db.api import lease as lease_api
from blazar_ext.db.api import lease_series as series_api
from blazar_ext.db.api import outbox as outbox_api
from blazar_ext.db.api import transaction
from blazar_ext import exceptions
from blazar_ext.manager import leases
from blazar_ext.manager import periodic
from blazar_ext.manager import recurrence
from blazar_ext import states

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

BOOKING_MODES = ('all', 'available')
# booked_until of a series whose every occurrence is recorded.
EXHAUSTED = datetime.datetime(9999, 12, 31)
# Seconds a manager holds a series it extends.
CLAIM_SECONDS = 300


def _date_text(value: datetime.datetime) -> str:
    return value.strftime(leases.DATE_FORMATS[0])


def record(session, event_type: str, series_id: str, **extra) -> None:
    """Write a series event (notifications.catalog) about the whole
    series to the outbox, in the transaction of the change."""
    series = series_api.series_read(session, series_id)
    series.pop('request', None)
    series.pop('claimed_until', None)
    outbox_api.record(session, event_type, dict(series, **extra))


def _occurrence_name(name: str, local_start: datetime.datetime) -> str:
    return '%s-%s' % (name[:80 - 11], local_start.strftime('%Y-%m-%d'))


class SeriesManager:
    """Create, extend, change and delete lease series."""

    def __init__(self, lease_manager: leases.LeaseManager):
        self.leases = lease_manager

    # Parsing

    @staticmethod
    def _rule(values: dict) -> recurrence.Rule:
        start = leases.parse_date(values.get('start_date'), 'start_date')
        end = leases.parse_date(values.get('end_date'), 'end_date')
        return recurrence.parse(values.get('recurrence'),
                                values.get('timezone'), start, end)

    def _specs(self, request: dict) -> list:
        return [self.leases._plugin(r.get('resource_type')).normalize(
            r, private_visible=request.get('private_visible', False))
            for r in request['reservations']]

    # Create

    def create_series(self, context, values: dict,
                      private_visible: bool = False) -> dict:
        """Book the occurrences in the horizon; {'series_id', 'lease_id'
        (the first booked), 'skipped': [dates]}."""
        now = timeutils.utcnow()
        rule = self._rule(values)
        booking = values.get('booking') or 'all'
        if booking not in BOOKING_MODES:
            raise exceptions.Invalid(
                reason="booking: must be 'all' or 'available', not %r"
                       % exceptions.cut(booking, 40))
        occurrences = rule.occurrences()
        if occurrences[0][0] < leases._minute(now):
            raise exceptions.Invalid(
                reason='start_date: the first occurrence (%s UTC) is in '
                       'the past' % _date_text(occurrences[0][0]))
        limit = now + datetime.timedelta(days=CONF.manager.series_max_days)
        if occurrences[-1][0] > limit:
            raise exceptions.Invalid(
                reason='recurrence: the last occurrence (%s UTC) is more '
                       'than [manager] series_max_days (%d) ahead'
                       % (_date_text(occurrences[-1][0]),
                          CONF.manager.series_max_days))
        request = {'reservations': values.get('reservations') or [],
                   'private_visible': private_visible}
        specs = self._specs(request)
        series = {'id': uuidutils.generate_uuid(), 'name': values['name'],
                  'user_id': context.user_id,
                  'project_id': context.project_id,
                  'recurrence': rule.text, 'timezone': rule.timezone,
                  'local_start': rule.local[0],
                  'local_end': rule.local[0] + rule.duration,
                  'request': jsonutils.dumps(request), 'booking': booking,
                  'status': series_api.ACTIVE, 'booked_until': now}
        booked, skipped = self._book(context, series, rule, specs, now,
                                     booking, new=True)
        return {'series_id': series['id'],
                'lease_id': booked[0] if booked else None,
                'skipped': [_date_text(d) for d in skipped]}

    def _horizon(self, now: datetime.datetime) -> datetime.datetime:
        return now + datetime.timedelta(days=CONF.manager.series_horizon_days)

    def _due(self, rule: recurrence.Rule, now: datetime.datetime,
             first: bool) -> tuple:
        """(occurrences [(local, start, end)] starting before the horizon
        (the first one in any case at create), booked_until after)."""
        horizon = self._horizon(now)
        starts = zip(rule.local, rule.occurrences())
        due = [(local, start, end) for local, (start, end) in starts
               if start < horizon and start >= leases._minute(now)]
        if first and not due:
            due = [(rule.local[0],) + rule.occurrences()[0]]
        last = rule.occurrences()[-1][0]
        until = EXHAUSTED if (due and due[-1][1] >= last) or last < now \
            else horizon
        return due, until

    def _payload(self, context, series: dict, rule: recurrence.Rule,
                 lease_values: dict, specs: list) -> dict:
        try:
            specs = self.leases._with_candidates(
                context, specs, lease_values['start_date'],
                lease_values['end_date'])
        except exceptions.NotEnoughResources:
            pass  # booking will say; the filters see the request
        payload = self.leases._payload(lease_values, specs)
        payload['series'] = {
            'id': series['id'], 'name': series['name'],
            'recurrence': series['recurrence'],
            'timezone': series['timezone'],
            'occurrences': [{'start_date': s, 'end_date': e}
                            for s, e in rule.occurrences()]}
        return payload

    def _lease_values(self, series: dict, local: datetime.datetime,
                      start: datetime.datetime,
                      end: datetime.datetime) -> dict:
        return {'id': uuidutils.generate_uuid(),
                'name': _occurrence_name(series['name'], local),
                'user_id': series['user_id'],
                'project_id': series['project_id'],
                'start_date': start, 'end_date': end,
                'status': states.Lease.PENDING}

    def _book(self, context, series: dict, rule: recurrence.Rule,
              specs: list, now: datetime.datetime, booking: str,
              new: bool = False) -> tuple:
        """Book the due occurrences; (booked lease ids, skipped dates)."""
        due, until = self._due(rule, now, first=new)
        planned = [(local, self._lease_values(series, local, start, end))
                   for local, start, end in due]
        refused = set()
        if self.leases.enforcement.enabled:
            for _local, values in planned:
                try:
                    self.leases.enforcement.check_create(
                        context, self._payload(context, series, rule,
                                               values, specs))
                except exceptions.Forbidden:
                    if new:
                        raise
                    refused.add(values['start_date'])
        booked, skipped = self._write(context, series, specs, planned,
                                      refused, booking, until, new)
        if booked:
            self.leases.notify(context)
        return booked, skipped

    @series_api.retry
    def _write(self, context, series: dict, specs: list, planned: list,
               refused: set, booking: str, until: datetime.datetime,
               new: bool) -> tuple:
        with transaction.allocating(context) as session:
            if new:
                series_api.series_insert(session, series)
            elif series_api.series_lock(
                    session, series['id'])['status'] != series_api.ACTIVE:
                return [], []
            recorded = series_api.recorded_dates(session, series['id'])
            rows, booked, skipped = [], [], []
            for _local, values in planned:
                start = values['start_date']
                if start in recorded:
                    continue  # booked by another manager meanwhile
                row = {'start_date': start, 'end_date': values['end_date'],
                       'lease_id': None, 'status': series_api.UNAVAILABLE}
                if start not in refused and self._book_one(
                        context, session, values, specs):
                    row.update(lease_id=values['id'],
                               status=series_api.BOOKED)
                    booked.append(values['id'])
                else:
                    skipped.append(start)
                rows.append(row)
            if skipped and booking == 'all':
                raise exceptions.SeriesNotBookable(
                    reason='these occurrences do not fit: %s (UTC); give '
                           "booking 'available' to book the others"
                           % ', '.join(_date_text(d) for d in skipped))
            if new and not booked:
                raise exceptions.SeriesNotBookable(
                    reason='no occurrence fits')
            series_api.occurrences_add(session, series['id'], rows)
            series_api.series_set(session, series['id'],
                                  {'booked_until': until})
            # Each occurrence's lease.created, in this transaction.
            for lease in self.leases.plugins.add_details(
                    session, lease_api.leases_read(session, booked)):
                self.leases.record(session, 'lease.created', lease)
            if new or rows:
                record(session,
                       'series.created' if new else 'series.extended',
                       series['id'], booked=booked,
                       skipped=[_date_text(d) for d in skipped])
            return booked, skipped

    def _book_one(self, context, session, values: dict,
                  specs: list) -> bool:
        """One occurrence's lease, allocated, in a savepoint; False (and
        nothing written) if it does not fit."""
        try:
            with session.begin_nested():
                ids = self.leases._insert(session, values, specs,
                                          states.Reservation.PENDING)
                for reservation_id, spec in zip(ids, specs):
                    self.leases._plugin(spec['resource_type']).allocate(
                        context, session, reservation_id, spec,
                        values['start_date'], values['end_date'])
                lease_api.events_insert(session, values['id'],
                                        self.leases._events(
                                            values['start_date'],
                                            values['end_date']))
            return True
        except exceptions.NotEnoughResources:
            return False

    # Extend (the series task)

    def _stored_rule(self, series: dict) -> recurrence.Rule:
        return recurrence.parse(series['recurrence'], series['timezone'],
                                series['local_start'], series['local_end'])

    def extend(self, context, series_id: str,
               now: datetime.datetime | None = None) -> list:
        """Book the occurrences of the series entering the horizon
        (those that do not fit are recorded unavailable); booked ids."""
        now = now or timeutils.utcnow()
        series = series_api.series_get(context, series_id)
        if series['status'] != series_api.ACTIVE:
            return []
        request = jsonutils.loads(series['request'])
        owner = blazar_context.RequestContext(
            user_id=series['user_id'], project_id=series['project_id'],
            is_admin=False)
        booked, skipped = self._book(owner, series,
                                     self._stored_rule(series),
                                     self._specs(request), now, 'available')
        for start in skipped:
            LOG.warning('Lease series %s: the occurrence of %s does not '
                        'fit', series_id, _date_text(start))
        return booked

    def extend_due(self, context, now: datetime.datetime | None = None
                   ) -> list:
        """Extend every series booked short of the horizon that this
        manager can claim; [(series id, booked lease ids)]."""
        now = now or timeutils.utcnow()
        done = []
        for series_id in series_api.series_to_extend(context,
                                                     self._horizon(now)):
            until = now + datetime.timedelta(seconds=CLAIM_SECONDS)
            if not series_api.series_claim(context, series_id, now, until):
                continue  # another manager has it
            try:
                done.append((series_id, self.extend(context, series_id,
                                                    now)))
            except Exception:
                LOG.exception('Could not extend lease series %s', series_id)
            finally:
                series_api.series_release(context, series_id)
        return done

    # Change, skip, delete: future occurrences only

    def _future(self, context, series_id: str, now) -> list:
        with transaction.reading(context) as session:
            return [o for o in series_api.future_occurrences(
                session, series_id, now)
                if o['status'] == series_api.BOOKED
                and o['lease_status'] == states.Lease.PENDING]

    def update_series(self, context, series_id: str, values: dict,
                      private_visible: bool = False) -> dict:
        """Rename or resize the future occurrences (and the ones booked
        later); {'updated': [lease ids], 'failed': [{date, reason}]}."""
        now = timeutils.utcnow()
        series = series_api.series_get(context, series_id)
        if series['status'] != series_api.ACTIVE:
            raise exceptions.Conflict(
                reason='lease series %s is deleted' % series_id)
        request = jsonutils.loads(series['request'])
        changes = values.get('reservations') or []
        if len(changes) > len(request['reservations']):
            raise exceptions.Invalid(
                reason='reservations: the series has %d reservation(s)'
                       % len(request['reservations']))
        for current, change in zip(request['reservations'], changes):
            current.update({k: v for k, v in change.items()
                            if k not in ('id', 'resource_type')})
        request['private_visible'] = private_visible
        self._specs(request)  # 400 before anything changes
        stored = {'request': jsonutils.dumps(request)}
        if values.get('name'):
            stored['name'] = values['name']
        updated, failed = [], []
        for occurrence in self._future(context, series_id, now):
            try:
                self._update_occurrence(context, series, occurrence,
                                        values, changes, private_visible)
                updated.append(occurrence['lease_id'])
            except exceptions.BlazarExtException as exc:
                failed.append({'date': _date_text(occurrence['start_date']),
                               'reason': exc.message})
        with transaction.writing(context) as session:
            series_api.series_set(session, series_id, stored)
            record(session, 'series.updated', series_id, updated=updated,
                   failed=failed)
        self.leases.notify(context)
        return {'updated': updated, 'failed': failed}

    def _update_occurrence(self, context, series: dict, occurrence: dict,
                           values: dict, changes: list,
                           private_visible: bool) -> None:
        lease = self.leases.lease_get(context, occurrence['lease_id'])
        update = {}
        if values.get('name'):
            local = series_local(series, occurrence['start_date'])
            update['name'] = _occurrence_name(values['name'], local)
        update['reservations'] = [
            dict({k: v for k, v in change.items()
                  if k not in ('id', 'resource_type')}, id=reservation['id'])
            for reservation, change in zip(
                self._in_request_order(series, lease), changes)
            if change and reservation]
        if not update['reservations']:
            del update['reservations']
        if update:
            self.leases.update_lease(context, lease['id'], update,
                                     private_visible)

    @staticmethod
    def _in_request_order(series: dict, lease: dict) -> list:
        """The occurrence's reservations in the order of the series'
        request: the n-th of each resource type for the n-th asked."""
        by_type: dict = {}
        for reservation in lease['reservations']:
            by_type.setdefault(reservation['resource_type'],
                               []).append(reservation)
        ordered = []
        for asked in jsonutils.loads(series['request'])['reservations']:
            found = by_type.get(asked.get('resource_type'))
            ordered.append(found.pop(0) if found else {})
        return ordered

    def delete_series(self, context, series_id: str) -> list:
        """Stop the series and delete its future occurrences (past and
        active ones stay); the deleted lease ids."""
        now = timeutils.utcnow()
        with transaction.writing(context) as session:
            series_api.series_lock(session, series_id)
            series_api.series_set(session, series_id,
                                  {'status': series_api.DELETED})
            record(session, 'series.deleted', series_id)
        self.leases.notify(context)
        deleted = []
        for occurrence in self._future(context, series_id, now):
            self._drop(context, occurrence, series_api.CANCELLED)
            deleted.append(occurrence['lease_id'])
        return deleted

    def _drop(self, context, occurrence: dict, status: str,
              skipped: dict | None = None) -> None:
        try:
            self.leases.delete_lease(context, occurrence['lease_id'])
        except exceptions.LeaseNotFound:
            pass
        with transaction.writing(context) as session:
            series_api.occurrence_set(session, occurrence['id'],
                                      {'status': status, 'lease_id': None})
            if skipped:
                record(session, 'series.occurrence_skipped',
                       occurrence['series_id'], skipped=skipped)

    def skip_date(self, context, series_id: str, date: str) -> dict:
        """Skip the occurrence on the local date ``date`` (YYYY-MM-DD):
        its lease is deleted, or it will not be booked."""
        now = timeutils.utcnow()
        series = series_api.series_get(context, series_id)
        try:
            day = datetime.date.fromisoformat(date)
        except (TypeError, ValueError):
            raise exceptions.Invalid(
                reason='date: %r is not a date (YYYY-MM-DD)'
                       % exceptions.cut(date, 40))
        rule = self._stored_rule(series)
        match = [(start, end) for local, (start, end)
                 in zip(rule.local, rule.occurrences())
                 if local.date() == day]
        if not match or match[0][0] <= now:
            raise exceptions.Invalid(
                reason='date: %s is not a future occurrence of the series'
                       % day.isoformat())
        start, end = match[0]
        skipped = {'date': day.isoformat(), 'start_date': start,
                   'end_date': end}
        with transaction.reading(context) as session:
            found = [o for o in series_api.future_occurrences(
                session, series_id, now) if o['start_date'] == start]
        if found:
            if found[0]['status'] == series_api.BOOKED and \
                    found[0]['lease_id']:
                self._drop(context, found[0], series_api.SKIPPED, skipped)
            else:
                with transaction.writing(context) as session:
                    series_api.occurrence_set(
                        session, found[0]['id'],
                        {'status': series_api.SKIPPED})
                    record(session, 'series.occurrence_skipped', series_id,
                           skipped=skipped)
        else:
            self._record_skip(context, series_id, skipped)
        self.leases.notify(context)
        return {'date': day.isoformat(), 'start_date': start}

    @series_api.retry
    def _record_skip(self, context, series_id: str, skipped: dict) -> None:
        with transaction.writing(context) as session:
            series_api.series_lock(session, series_id)
            series_api.occurrences_add(session, series_id, [{
                'start_date': skipped['start_date'],
                'end_date': skipped['end_date'], 'lease_id': None,
                'status': series_api.SKIPPED}])
            record(session, 'series.occurrence_skipped', series_id,
                   skipped=skipped)


def series_local(series: dict, start: datetime.datetime
                 ) -> datetime.datetime:
    """The local wall-clock time of the UTC ``start`` in the series'
    time zone."""
    tz = recurrence.zone(series['timezone'])
    return start.replace(tzinfo=recurrence.UTC).astimezone(tz).replace(
        tzinfo=None)


class SeriesTask(periodic.PeriodicThread):
    """Books the occurrences entering the horizon, every [manager]
    series_interval seconds."""

    thread_name = 'blazar-ext-series'

    def __init__(self, series_manager: SeriesManager):
        self.series = series_manager
        super().__init__()

    def interval(self) -> float:
        return CONF.manager.series_interval

    def run_once(self, now: datetime.datetime | None = None) -> list:
        return self.series.extend_due(blazar_context.get_admin_context(),
                                      now)
