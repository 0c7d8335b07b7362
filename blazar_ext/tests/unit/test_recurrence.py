"""The RRULE subset of lease series (manager/recurrence.py)."""

import datetime

from blazar_ext import exceptions
from blazar_ext.manager import recurrence
from blazar_ext.tests import base

D = datetime.datetime


class TestRecurrence(base.TestCase):

    def parse(self, text, tz='UTC', start=D(2030, 3, 19, 14),
              end=D(2030, 3, 19, 17)):
        return recurrence.parse(text, tz, start, end)

    def test_weekly_keeps_wall_clock_across_dst(self):
        # Europe/Paris moves to summer time on 2030-03-31.
        rule = self.parse('FREQ=WEEKLY;BYDAY=TU;COUNT=3', 'Europe/Paris')
        self.assertEqual(
            [(D(2030, 3, 19, 13), D(2030, 3, 19, 16)),
             (D(2030, 3, 26, 13), D(2030, 3, 26, 16)),
             (D(2030, 4, 2, 12), D(2030, 4, 2, 15))], rule.occurrences())

    def test_until_in_utc_or_local(self):
        for until in ('20300402T000000Z', '20300402'):
            rule = self.parse('FREQ=WEEKLY;UNTIL=%s' % until)
            self.assertEqual(2, len(rule.local), until)

    def test_monthly_by_month_day(self):
        rule = self.parse('FREQ=MONTHLY;BYMONTHDAY=1,15;COUNT=3',
                          start=D(2030, 3, 19, 1), end=D(2030, 3, 19, 5))
        self.assertEqual([D(2030, 4, 1, 1), D(2030, 4, 15, 1),
                          D(2030, 5, 1, 1)], list(rule.local))

    def test_outside_the_subset_names_the_field(self):
        for text, field in (
                ('FREQ=HOURLY;COUNT=2', 'recurrence'),
                ('FREQ=YEARLY;COUNT=2', 'recurrence'),
                ('FREQ=DAILY;BYHOUR=3;COUNT=2', 'recurrence'),
                ('FREQ=DAILY', 'recurrence'),
                ('FREQ=DAILY;COUNT=2;UNTIL=20300402', 'recurrence'),
                ('FREQ=DAILY;COUNT=0', 'recurrence'),
                ('FREQ=DAILY;INTERVAL=x;COUNT=2', 'recurrence'),
                ('FREQ=WEEKLY;BYDAY=XX;COUNT=2', 'recurrence'),
                ('FREQ=DAILY;COUNT=2000', 'recurrence'),
                ('', 'recurrence'), (None, 'recurrence')):
            exc = self.assertRaises(exceptions.Invalid, self.parse, text)
            self.assertIn(field, str(exc), text)

    def test_unknown_timezone(self):
        for tz in ('Mars/Olympus', '../../etc/passwd', ''):
            exc = self.assertRaises(exceptions.Invalid, self.parse,
                                    'FREQ=DAILY;COUNT=2', tz)
            self.assertIn('timezone', str(exc))

    def test_overlapping_occurrences_refused(self):
        exc = self.assertRaises(exceptions.Invalid, self.parse,
                                'FREQ=DAILY;COUNT=2', 'UTC',
                                D(2030, 3, 19, 14), D(2030, 3, 20, 15))
        self.assertIn('end_date', str(exc))
