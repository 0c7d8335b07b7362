"""MaximumReservationLengthFilter."""

from blazar_ext.enforcement.filters import max_length
from blazar_ext import exceptions
from blazar_ext.tests.unit.enforcement import base


def _lease(start='2030-05-13 00:00', end='2030-05-14 00:00') -> dict:
    return {'start_date': start, 'end_date': end, 'end_time': end,
            'reservations': []}


class MaxLengthTest(base.TestCase):

    def setUp(self):
        super().setUp()
        self.filter = max_length.MaximumReservationLengthFilter(self.conf)

    def test_no_limit_by_default(self):
        ten_years = _lease(end='2040-01-01 00:00')
        self.assertIsNone(self.filter.check_create({}, ten_years))
        # The same lease is refused as soon as there is a limit.
        self.conf.set_override('reservation_max_length', 86400 * 365 * 9,
                               group='enforcement')
        self.assertRaises(exceptions.EnforcementRejected,
                          self.filter.check_create, {}, ten_years)

    def test_within_limit(self):
        self.conf.set_override('reservation_max_length', 86400,
                               group='enforcement')
        # Exactly the limit is allowed.
        self.assertIsNone(self.filter.check_create({}, _lease()))

    def test_over_limit(self):
        self.conf.set_override('reservation_max_length', 86400,
                               group='enforcement')
        exc = self.assertRaises(exceptions.EnforcementRejected,
                                self.filter.check_create, {},
                                _lease(end='2030-05-14 00:01'))
        self.assertEqual(403, exc.status)
        self.assertEqual('Lease length of 1 day 1 minute exceeds the maximum '
                         'allowed of 1 day.', str(exc))

    def test_update_checks_new_dates(self):
        self.conf.set_override('reservation_max_length', 7200,
                               group='enforcement')
        self.filter.check_update({}, _lease(end='2030-06-01 00:00'),
                                 _lease(end='2030-05-13 02:00'))
        exc = self.assertRaises(exceptions.EnforcementRejected,
                                self.filter.check_update, {},
                                _lease(end='2030-05-13 02:00'),
                                _lease(end='2030-05-13 03:00'))
        self.assertIn('3 hours exceeds the maximum allowed of 2 hours',
                      str(exc))

    def test_on_end_does_nothing(self):
        self.conf.set_override('reservation_max_length', 60,
                               group='enforcement')
        # A lease longer than the limit: on_end does not judge it.
        self.assertIsNone(self.filter.on_end({}, _lease()))
        self.assertRaises(exceptions.EnforcementRejected,
                          self.filter.check_create, {}, _lease())

    def test_upstream_alias(self):
        self.assertIs(max_length.MaximumReservationLengthFilter,
                      max_length.MaxLeaseDurationFilter)
