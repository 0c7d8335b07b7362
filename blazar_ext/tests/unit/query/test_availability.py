"""Free intervals and slots from busy intervals (pure code)."""

import datetime

import testtools

from blazar_ext.query import availability

T0 = datetime.datetime(2030, 1, 1)


def t(hours: float) -> datetime.datetime:
    return T0 + datetime.timedelta(hours=hours)


def h(hours: float) -> datetime.timedelta:
    return datetime.timedelta(hours=hours)


class TestFreeGaps(testtools.TestCase):

    def test_no_busy_is_the_whole_window(self):
        self.assertEqual([(t(0), t(10))],
                         availability.free_gaps([], t(0), t(10)))

    def test_busy_clipped_and_merged(self):
        busy = [(t(-2), t(1)), (t(3), t(5)), (t(4), t(6)), (t(9), t(12))]
        self.assertEqual([(t(1), t(3)), (t(6), t(9))],
                         availability.free_gaps(busy, t(0), t(10)))

    def test_fully_busy_has_no_gap(self):
        self.assertEqual([], availability.free_gaps([(t(0), t(10))],
                                                    t(0), t(10)))


class TestCompute(testtools.TestCase):

    def compute(self, busy_by_host, count=1, duration=1):
        return availability.compute(busy_by_host, t(0), t(10), count,
                                    h(duration))

    def test_free_hosts_step_function(self):
        found = self.compute({1: [(t(2), t(4))], 2: [(t(3), t(6))]})
        self.assertEqual(2, found.matching_hosts)
        self.assertEqual([(t(0), t(2), 2), (t(2), t(3), 1),
                          (t(3), t(4), 0), (t(4), t(6), 1),
                          (t(6), t(10), 2)], found.free_hosts)

    def test_no_hosts(self):
        found = self.compute({})
        self.assertEqual(0, found.matching_hosts)
        self.assertEqual([(t(0), t(10), 0)], found.free_hosts)
        self.assertEqual([], found.slots)
        self.assertIsNone(found.earliest)

    def test_two_hosts_needed_together(self):
        # Each host is free half the time; both only in [6, 8).
        busy = {1: [(t(0), t(4))], 2: [(t(0), t(6)), (t(8), t(10))]}
        found = self.compute(busy, count=2, duration=2)
        self.assertEqual([(t(6), t(8))], found.slots)
        self.assertEqual((t(6), t(8)), found.earliest)
        self.assertEqual([], self.compute(busy, count=2,
                                          duration=3).slots)

    def test_the_same_host_for_the_whole_duration(self):
        # One host is free at every moment, never one host for 4 hours.
        busy = {1: [(t(3), t(10))], 2: [(t(0), t(3))]}
        found = self.compute(busy, count=1, duration=4)
        self.assertEqual([(t(3), t(10))], found.slots)
        self.assertEqual([(t(0), t(10), 1)], found.free_hosts)
        self.assertEqual([], self.compute({1: [(t(3), t(10))],
                                           2: [(t(0), t(7))]},
                                          duration=4).slots)

    def test_touching_start_ranges_join(self):
        busy = {1: [(t(5), t(10))], 2: [(t(0), t(4))]}
        # Host 1 lets a 1 h lease start in [0, 4], host 2 in [4, 9].
        self.assertEqual([(t(0), t(10))],
                         self.compute(busy, duration=1).slots)

    def test_duration_of_the_whole_window(self):
        self.assertEqual([(t(0), t(10))],
                         self.compute({1: []}, duration=10).slots)
        self.assertEqual([], self.compute({1: [(t(9), t(10))]},
                                          duration=10).slots)
