"""Lease series (issue 30): create through POST /v1/leases with
``recurrence``, list and show, change and delete the future, skip a date,
and the manager's extension past the horizon; on SQLite, MariaDB and
PostgreSQL."""

import datetime
import threading
import zoneinfo

from oslo_messaging.notify import _impl_test
from oslo_utils import timeutils
import sqlalchemy as sa

from blazar_ext import context as blazar_context
from blazar_ext.db.api import lease_series as series_api
from blazar_ext.db.models import lease as lease_models
from blazar_ext.db.models import series as series_models
from blazar_ext import exceptions
from blazar_ext.tests import base
from blazar_ext.tests.functional import backends

FMT = base.FMT


def _local(minutes: int, tz: str = 'UTC') -> datetime.datetime:
    """Now plus ``minutes`` as a wall-clock time of ``tz``, to the
    minute."""
    now = timeutils.utcnow().replace(tzinfo=datetime.timezone.utc)
    return (now + datetime.timedelta(minutes=minutes)).astimezone(
        zoneinfo.ZoneInfo(tz)).replace(tzinfo=None, second=0, microsecond=0)


def _next_dst_change(tz: str) -> datetime.date:
    """The first day ahead whose noon offset differs from the day
    before's."""
    zone = zoneinfo.ZoneInfo(tz)
    day = timeutils.utcnow().date() + datetime.timedelta(days=1)
    offset = datetime.datetime.combine(day, datetime.time(12),
                                       zone).utcoffset()
    for _ in range(400):
        day += datetime.timedelta(days=1)
        new = datetime.datetime.combine(day, datetime.time(12),
                                        zone).utcoffset()
        if new != offset:
            return day
    raise AssertionError('no daylight-saving change in %s' % tz)


class _Recording:
    """An enforcement chain that records what it sees, and refuses
    creates when told."""

    enabled = True

    def __init__(self):
        self.refuse_create = False
        self.seen = []

    def check_create(self, context, lease):
        self.seen.append(('create', lease))
        if self.refuse_create:
            raise exceptions.Forbidden(reason='too many occurrences')

    def check_update(self, context, current, new):
        self.seen.append(('update', current, new))

    def on_end(self, context, lease):
        self.seen.append(('end', lease))


class TestLeaseSeries(base.LeaseTestCase):

    def series(self, recurrence, start, end, expect=201, **extra):
        return self.create(name='lab', start=start.strftime(FMT),
                           end=end.strftime(FMT), recurrence=recurrence,
                           expect=expect, **extra)

    def show_series(self, series_id: str) -> dict:
        resp = self.request('GET', '/v1/lease-series/%s' % series_id)
        self.assertEqual(200, resp.status, resp.text)
        return resp.json()['lease_series']

    def count(self, model) -> int:
        with self.db.engine.connect() as conn:
            return conn.scalar(sa.select(sa.func.count()).select_from(
                model.__table__))

    def test_weekly_series_keeps_wall_clock_across_dst(self):
        self.conf.set_override('series_horizon_days', 400,
                               group='manager')
        self.add_host('h1')
        tz = 'Europe/Paris'
        change = _next_dst_change(tz)
        first = datetime.datetime.combine(
            change - datetime.timedelta(days=15), datetime.time(14))
        lease = self.series('FREQ=WEEKLY;COUNT=4', first,
                            first + datetime.timedelta(hours=3),
                            timezone=tz)
        self.assertIn('series_id', lease)
        series = self.show_series(lease['series_id'])
        self.assertEqual(lease['id'], series['occurrences'][0]['lease_id'])
        self.assertEqual(4, len(series['occurrences']))
        zone = zoneinfo.ZoneInfo(tz)
        offsets = set()
        for occurrence in series['occurrences']:
            self.assertEqual('PENDING', occurrence['status'])
            for key, hour in (('start_date', 14), ('end_date', 17)):
                utc = datetime.datetime.fromisoformat(
                    occurrence[key]).replace(tzinfo=datetime.timezone.utc)
                local = utc.astimezone(zone)
                self.assertEqual((hour, 0), (local.hour, local.minute))
                offsets.add(local.utcoffset())
        # The series did cross the change: two UTC offsets.
        self.assertEqual(2, len(offsets))

    def _blocked_second_day(self):
        self.add_host('h1')
        first = _local(60)
        # The only host is taken on the second day.
        self.create(name='other', start=(first + datetime.timedelta(
            days=1)).strftime(FMT), end=(first + datetime.timedelta(
                days=1, hours=1)).strftime(FMT))
        return first

    def test_booking_all_refuses_with_dates_and_leaves_nothing(self):
        first = self._blocked_second_day()
        resp = self.request('POST', '/v1/leases', {
            'name': 'lab', 'start_date': first.strftime(FMT),
            'end_date': (first + datetime.timedelta(hours=1)).strftime(FMT),
            'recurrence': 'FREQ=DAILY;COUNT=3',
            'reservations': [base.host_reservation()]})
        self.assertEqual(409, resp.status, resp.text)
        second = (first + datetime.timedelta(days=1)).strftime(FMT)
        self.assertIn(second, resp.text)
        self.assertEqual(1, self.count(lease_models.Lease))
        self.assertEqual(0, self.count(series_models.LeaseSeries))
        self.assertEqual(0, self.count(series_models.SeriesOccurrence))

    def test_booking_available_books_the_rest(self):
        first = self._blocked_second_day()
        lease = self.series('FREQ=DAILY;COUNT=3', first,
                            first + datetime.timedelta(hours=1),
                            booking='available')
        second = (first + datetime.timedelta(days=1)).strftime(FMT)
        self.assertEqual([second], lease['skipped'])
        series = self.show_series(lease['series_id'])
        self.assertEqual(['PENDING', 'unavailable', 'PENDING'],
                         [o['status'] for o in series['occurrences']])
        self.assertIsNone(series['occurrences'][1]['lease_id'])
        self.assertEqual(3, self.count(lease_models.Lease))

    def test_list_and_policy(self):
        self.add_host('h1')
        first = _local(60)
        lease = self.series('FREQ=DAILY;COUNT=2', first,
                            first + datetime.timedelta(hours=1))
        listed = self.request('GET', '/v1/lease-series').json()
        self.assertEqual([lease['series_id']],
                         [s['id'] for s in listed['lease_series']])
        other = {'X-Project-Id': 'other', 'X-User-Id': 'u2',
                 'X-Roles': 'member'}
        resp = self.request('GET', '/v1/lease-series', headers=other)
        self.assertEqual([], resp.json()['lease_series'])
        resp = self.request('GET', '/v1/lease-series/%s'
                            % lease['series_id'], headers=other)
        self.assertEqual(403, resp.status, resp.text)
        resp = self.request('GET', '/v1/lease-series/nope')
        self.assertEqual(404, resp.status, resp.text)

    def _started_series(self) -> tuple:
        self.add_host('h1')
        self.add_host('h2')
        first = _local(2)
        lease = self.series('FREQ=DAILY;COUNT=3', first,
                            first + datetime.timedelta(hours=1))
        self.run_events(minutes=3)
        self.assertEqual('ACTIVE', self.show(lease['id'])['status'])
        return lease, self.show_series(lease['series_id'])

    def test_edit_touches_only_future_occurrences(self):
        lease, series = self._started_series()
        resp = self.request(
            'PATCH', '/v1/lease-series/%s' % lease['series_id'],
            {'name': 'renamed', 'reservations': [{'min': 2, 'max': 2}]})
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual([], resp.json()['lease_series']['failed'])
        active, *future = [o['lease_id'] for o in series['occurrences']]
        self.assertTrue(self.show(active)['name'].startswith('lab-'))
        self.assertEqual(['h1'], self.allocated_hosts_named(active))
        for lease_id in future:
            self.assertTrue(self.show(lease_id)['name'].startswith(
                'renamed-'))
            self.assertEqual(['h1', 'h2'],
                             self.allocated_hosts_named(lease_id))

    def allocated_hosts_named(self, lease_id: str) -> list:
        names = {h['id']: h['hypervisor_hostname'] for h in self.request(
            'GET', '/v1/os-hosts').json()['hosts']}
        return sorted(names[h] for h in self.allocated_hosts(lease_id))

    def test_delete_touches_only_future_occurrences(self):
        lease, series = self._started_series()
        resp = self.request('DELETE', '/v1/lease-series/%s'
                            % lease['series_id'])
        self.assertEqual(204, resp.status, resp.text)
        shown = self.show_series(lease['series_id'])
        self.assertEqual('DELETED', shown['status'])
        self.assertEqual(['ACTIVE', 'cancelled', 'cancelled'],
                         [o['status'] for o in shown['occurrences']])
        self.assertEqual('ACTIVE', self.show(lease['id'])['status'])
        self.assertEqual(1, self.count(lease_models.Lease))

    def test_skip_a_date(self):
        self.add_host('h1')
        first = _local(60)
        lease = self.series('FREQ=DAILY;COUNT=3', first,
                            first + datetime.timedelta(hours=1))
        second = (first + datetime.timedelta(days=1)).date().isoformat()
        resp = self.request('POST', '/v1/lease-series/%s/skip'
                            % lease['series_id'], {'date': second})
        self.assertEqual(200, resp.status, resp.text)
        statuses = [o['status'] for o in
                    resp.json()['lease_series']['occurrences']]
        self.assertEqual(['PENDING', 'skipped', 'PENDING'], statuses)
        self.assertEqual(2, self.count(lease_models.Lease))
        resp = self.request('POST', '/v1/lease-series/%s/skip'
                            % lease['series_id'], {'date': '1999-01-01'})
        self.assertEqual(400, resp.status, resp.text)
        self.assertIn('date', resp.json()['error_message'])

    def test_manager_extends_past_the_horizon(self):
        self.conf.set_override('series_horizon_days', 2, group='manager')
        self.add_host('h1')
        first = _local(60)
        lease = self.series('FREQ=DAILY;COUNT=6', first,
                            first + datetime.timedelta(hours=1))
        booked = [o for o in self.show_series(lease['series_id'])[
            'occurrences']]
        self.assertEqual(2, len(booked))
        task = self.manager.service.series_task
        later = timeutils.utcnow() + datetime.timedelta(days=1)
        task.run_once(later)
        task.run_once(later)  # nothing twice
        occurrences = self.show_series(lease['series_id'])['occurrences']
        self.assertEqual(3, len(occurrences))
        self.assertEqual(3, len({o['lease_id'] for o in occurrences}))
        self.conf.set_override('series_horizon_days', 30, group='manager')
        task.run_once(later)
        occurrences = self.show_series(lease['series_id'])['occurrences']
        self.assertEqual(6, len(occurrences))
        self.assertEqual(7 - 1, self.count(lease_models.Lease))

    def test_each_occurrence_notified_created(self):
        self.conf.set_override('driver', ['test'],
                               group='oslo_messaging_notifications')
        _impl_test.reset()
        self.addCleanup(_impl_test.reset)
        notifications = _impl_test.NOTIFICATIONS
        self.add_host('h1')
        first = _local(60)
        lease = self.series('FREQ=DAILY;COUNT=3', first,
                            first + datetime.timedelta(hours=1))
        occurrences = self.show_series(lease['series_id'])['occurrences']
        created = [n[1]['payload'] for n in notifications
                   if n[1]['event_type'] == 'lease.create']
        self.assertEqual([o['lease_id'] for o in occurrences],
                         [p['id'] for p in created])
        for payload, occurrence in zip(created, occurrences):
            self.assertEqual(occurrence['start_date'][:16],
                             payload['start_date'][:16])
            [reservation] = payload['reservations']
            self.assertEqual('physical:host', reservation['resource_type'])
            self.assertEqual(1, reservation['min'])
            self.assertEqual(3, len(payload['events']))

    def test_occurrences_keep_their_host_where_it_is_free(self):
        for name in ('h1', 'h2', 'h3'):
            self.add_host(name)
        first = _local(60)
        # A one-off lease takes the first host on the second day.
        other = self.create(name='other', start=(
            first + datetime.timedelta(days=1)).strftime(FMT),
            end=(first + datetime.timedelta(days=1, hours=1)).strftime(FMT))
        [taken] = self.allocated_hosts(other['id'])
        lease = self.series('FREQ=DAILY;COUNT=4', first,
                            first + datetime.timedelta(hours=1))
        hosts = [self.allocated_hosts(o['lease_id']) for o in
                 self.show_series(lease['series_id'])['occurrences']]
        # The first host where free; on the second day another, kept for
        # the days after rather than going back to the first.
        self.assertEqual([taken], hosts[0])
        self.assertNotEqual([taken], hosts[1])
        self.assertEqual([hosts[1]] * 2, hosts[2:])

    def test_bad_input_is_400_naming_the_field(self):
        self.add_host('h1')
        first = _local(60)
        end = first + datetime.timedelta(hours=1)
        for field, extra in (
                ('recurrence', {'recurrence': 'FREQ=HOURLY;COUNT=2'}),
                ('recurrence', {'recurrence': 'FREQ=WEEKLY;BYHOUR=3;'
                                              'COUNT=2'}),
                ('recurrence', {'recurrence': 'FREQ=WEEKLY'}),
                ('recurrence', {'recurrence': 'FREQ=WEEKLY;COUNT=500'}),
                ('timezone', {'recurrence': 'FREQ=DAILY;COUNT=2',
                              'timezone': 'Mars/Olympus_Mons'}),
                ('end_date', {'recurrence': 'FREQ=DAILY;COUNT=2',
                              'end_date': (first + datetime.timedelta(
                                  days=2)).strftime(FMT)}),
                ('booking', {'recurrence': 'FREQ=DAILY;COUNT=2',
                             'booking': 'some'})):
            body = {'name': 'lab', 'start_date': first.strftime(FMT),
                    'end_date': end.strftime(FMT),
                    'reservations': [base.host_reservation()]}
            body.update(extra)
            resp = self.request('POST', '/v1/leases', body)
            self.assertEqual(400, resp.status, resp.text)
            self.assertIn(field, resp.json()['error_message'], extra)
        self.assertEqual(0, self.count(lease_models.Lease))
        self.assertEqual(0, self.count(series_models.LeaseSeries))

    def test_more_bad_input_is_400_naming_the_field(self):
        self.add_host('h1')
        first = _local(60)
        end = first + datetime.timedelta(hours=1)
        for field, extra in (
                ('recurrence', {'recurrence': 5}),
                ('recurrence', {'recurrence': 'FREQ=WEEKLY;COUNT=0'}),
                ('recurrence', {'recurrence': 'FREQ=WEEKLY;INTERVAL=0;'
                                              'COUNT=2'}),
                ('recurrence', {'recurrence': 'FREQ=WEEKLY;BYDAY=XX;'
                                              'COUNT=2'}),
                ('recurrence', {'recurrence': 'FREQ=WEEKLY;UNTIL=soon'}),
                ('recurrence', {'recurrence': 'FREQ=MONTHLY;'
                                              'BYMONTHDAY=40;COUNT=2'}),
                ('recurrence', {'recurrence': 'FREQ=DAILY;COUNT=2;'
                                              'COUNT=3'}),
                ('recurrence', {'recurrence': 'FREQ=DAILY;'
                                              'UNTIL=20991231T000000Z'}),
                ('timezone', {'recurrence': 'FREQ=DAILY;COUNT=2',
                              'timezone': 5}),
                ('timezone', {'recurrence': 'FREQ=DAILY;COUNT=2',
                              'timezone': ''}),
                ('timezone', {'recurrence': 'FREQ=DAILY;COUNT=2',
                              'timezone': '../../etc/passwd'}),
                ('booking', {'recurrence': 'FREQ=DAILY;COUNT=2',
                             'booking': 5}),
                ('start_date', {'recurrence': 'FREQ=DAILY;COUNT=2',
                                'start_date': _local(-120).strftime(FMT)})):
            body = {'name': 'lab', 'start_date': first.strftime(FMT),
                    'end_date': end.strftime(FMT),
                    'reservations': [base.host_reservation()]}
            body.update(extra)
            resp = self.request('POST', '/v1/leases', body)
            self.assertEqual(400, resp.status, (extra, resp.text))
            self.assertIn(field, resp.json()['error_message'], extra)
        self.assertEqual(0, self.count(lease_models.Lease))
        self.assertEqual(0, self.count(series_models.LeaseSeries))
        lease = self.series('FREQ=DAILY;COUNT=2', first, end)
        path = '/v1/lease-series/%s' % lease['series_id']
        for method, suffix, field, body in (
                ('PATCH', '', 'name', {'name': 5}),
                ('PATCH', '', 'reservations', {'reservations': 'x'}),
                ('PATCH', '', 'recurrence', {'recurrence': 'FREQ=DAILY;'
                                                           'COUNT=3'}),
                ('PATCH', '', 'min', {'reservations': [{'min': 'a'}]}),
                ('POST', '/skip', 'date', {'date': 'tomorrow'}),
                ('POST', '/skip', 'date', {}),
                ('POST', '/skip', 'date', {'date': '2000-01-01'})):
            resp = self.request(method, path + suffix, body)
            self.assertEqual(400, resp.status, (body, resp.text))
            self.assertIn(field, resp.json()['error_message'], body)
        self.assertEqual(2, self.count(lease_models.Lease))
        self.assertEqual(2, self.count(series_models.SeriesOccurrence))
        self.assertEqual(['PENDING', 'PENDING'], [
            o['status'] for o in self.show_series(lease['series_id'])[
                'occurrences']])

    def test_enforcement_sees_each_occurrence_and_the_series(self):
        self.add_host('h1')
        chain = _Recording()
        self.manager.service.endpoint.leases.enforcement = chain
        first = _local(60)
        lease = self.series('FREQ=DAILY;COUNT=3', first,
                            first + datetime.timedelta(hours=1))
        creates = [p for kind, p in chain.seen if kind == 'create']
        self.assertEqual(3, len(creates))
        for payload in creates:
            self.assertEqual(lease['series_id'], payload['series']['id'])
            self.assertEqual(3, len(payload['series']['occurrences']))
        # A refusal refuses the series; nothing is kept.
        chain.refuse_create = True
        resp = self.request('POST', '/v1/leases', {
            'name': 'lab2', 'start_date': first.strftime(FMT),
            'end_date': (first + datetime.timedelta(hours=1)).strftime(FMT),
            'recurrence': 'FREQ=DAILY;COUNT=2',
            'reservations': []})
        self.assertEqual(403, resp.status, resp.text)
        self.assertEqual(1, self.count(series_models.LeaseSeries))


class _ConcurrentExtension:
    """Two managers extending the same series at once, without the
    in-process lock: the claim and the occurrence table's unique date
    keep every occurrence booked once, each host once."""

    def test_two_managers_extend_once(self):
        self.without_process_lock()
        self.conf.set_override('series_horizon_days', 2, group='manager')
        self.add_host('h1')
        first = _local(60)
        lease = self.create(
            name='lab', start=first.strftime(FMT),
            end=(first + datetime.timedelta(hours=1)).strftime(FMT),
            recurrence='FREQ=DAILY;COUNT=8')
        self.conf.set_override('series_horizon_days', 30, group='manager')
        series = self.manager.service.endpoint.series
        errors = []

        def extend():
            try:
                series.extend_due(blazar_context.get_admin_context())
                # And straight, past the claim, as a manager whose claim
                # timed out would.
                series.extend(blazar_context.get_admin_context(),
                              lease['series_id'])
            except Exception as exc:  # noqa: B902 - asserted below
                errors.append(exc)

        threads = [threading.Thread(target=extend) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual([], [e for e in errors
                              if 'Duplicate' not in str(e)
                              and 'UNIQUE' not in str(e)
                              and 'unique' not in str(e)])
        with self.db.engine.connect() as conn:
            dates = list(conn.scalars(sa.select(
                series_models.SeriesOccurrence.start_date)))
            hosts = list(conn.execute(sa.select(
                lease_models.ComputeHostAllocation.compute_host_id,
                lease_models.ComputeHostAllocation.start_date)))
        self.assertEqual(8, len(dates))
        self.assertEqual(sorted(set(dates)), sorted(dates))
        self.assertEqual(sorted(set(hosts)), sorted(hosts))
        self.assertEqual(8, len(hosts))
        resp = self.request('GET', '/v1/lease-series/%s'
                            % lease['series_id'])
        self.assertEqual(series_api.ACTIVE,
                         resp.json()['lease_series']['status'])


class TestConcurrentExtensionMySQL(backends.OnBackend, _ConcurrentExtension,
                                   base.LeaseTestCase):
    BACKEND = 'mysql'


class TestConcurrentExtensionPostgreSQL(backends.OnBackend,
                                        _ConcurrentExtension,
                                        base.LeaseTestCase):
    BACKEND = 'postgresql'


TestLeaseSeriesMySQL, TestLeaseSeriesPostgreSQL = (
    backends.on_each_backend(TestLeaseSeries))
