"""Date parsing and the enforcement seam of the lease manager; how the
v1 API writes times."""

import datetime

from blazar_ext.api.v1 import views
from blazar_ext import exceptions
from blazar_ext.manager import leases
from blazar_ext.tests import base


class TestParseDate(base.TestCase):

    def test_formats(self):
        self.assertEqual(datetime.datetime(2030, 1, 2, 3, 4),
                         leases.parse_date('2030-01-02 03:04', 'start_date'))
        self.assertEqual(datetime.datetime(2030, 1, 2, 3, 4, 5),
                         leases.parse_date('2030-01-02 03:04:05', 'x'))

    def test_now_only_where_allowed(self):
        now = datetime.datetime(2030, 1, 1)
        self.assertEqual(now, leases.parse_date('now', 'start_date',
                                                allow_now=True, now=now))
        exc = self.assertRaises(exceptions.Invalid, leases.parse_date,
                                'now', 'end_date')
        self.assertIn('end_date', str(exc))

    def test_bad_values_name_the_field(self):
        for value in ('2030-13-01 00:00', '01/02/2030', '', None, 5,
                      '2030-01-01'):
            exc = self.assertRaises(exceptions.Invalid, leases.parse_date,
                                    value, 'start_date', allow_now=True)
            self.assertIn('start_date', str(exc))
            self.assertIn('YYYY-MM-DD HH:MM', str(exc))


class TestEnforcementDefault(base.TestCase):

    def test_no_chain_means_no_op(self):
        chain = leases.load_enforcement()
        # Whatever the enforcement package provides, the three calls exist.
        for name in ('check_create', 'check_update', 'on_end'):
            self.assertTrue(callable(getattr(chain, name)))
        noop = leases.NoEnforcement()
        self.assertIsNone(noop.check_create(None, {}))
        self.assertIsNone(noop.check_update(None, {}, {}))
        self.assertIsNone(noop.on_end(None, {}))

    def test_events_clamp_before_end(self):
        start = datetime.datetime(2030, 1, 1, 10)
        end = datetime.datetime(2030, 1, 1, 10, 30)
        events = leases.LeaseManager._events(start, end)
        times = {e['event_type']: e['time'] for e in events}
        self.assertEqual(start, times['start_lease'])
        self.assertEqual(start, times['before_end_lease'])
        self.assertEqual(end, times['end_lease'])


class TestKeptBeforeEnd(base.TestCase):
    """Upstream's rule: the before-end event keeps its distance to the end
    as the end moves."""

    def test_distance_kept(self):
        current = {'events': [
            {'event_type': 'start_lease', 'time': '2030-01-01T00:00:00'},
            {'event_type': 'before_end_lease',
             'time': '2030-01-01T09:40:00.000000'}]}
        self.assertEqual(
            datetime.datetime(2030, 1, 1, 11, 40),
            leases.LeaseManager._kept_before_end(
                current, datetime.datetime(2030, 1, 1, 10),
                datetime.datetime(2030, 1, 1, 12)))

    def test_none_without_the_event(self):
        self.assertIsNone(leases.LeaseManager._kept_before_end(
            {'events': []}, datetime.datetime(2030, 1, 1, 10),
            datetime.datetime(2030, 1, 1, 12)))


class TestRecordTimes(base.TestCase):

    def test_record_times_as_upstream(self):
        when = datetime.datetime(2031, 1, 2, 3, 4, 5)
        self.assertEqual('2031-01-02 03:04:05.000000',
                         views.record_time(when))
        self.assertEqual('2031-01-02 03:04:05.000007',
                         views.record_time('2031-01-02T03:04:05.000007'))
        self.assertIsNone(views.record_time(None))
        # Lease dates and event times keep the ISO form.
        self.assertEqual('2031-01-02T03:04:05.000000',
                         views.timestamp(when))
