"""The slot search's interval arithmetic (blazar_ext.query.slot_plan)."""

import datetime

from blazar_ext.manager import plan
from blazar_ext.query import slot_plan
from blazar_ext.tests import base

T0 = datetime.datetime(2030, 1, 1)
H = datetime.timedelta(hours=1)


def at(hours: float) -> datetime.datetime:
    return T0 + hours * H


def us(hours: float) -> int:
    return slot_plan.microseconds(at(hours))


class TestGaps(base.TestCase):

    def test_rows_per_resource_with_cleaning(self):
        rows = [(1, us(2), us(4)), (1, us(3), us(6)), (2, None, None),
                (3, us(0), us(10))]
        self.assertEqual(
            [[(at(0), at(1)), (at(7), at(10))], [(at(0), at(10))], []],
            slot_plan.gaps_from_rows(rows, at(0), at(10), H))

    def test_rows_leave_out_gaps_shorter_than_asked(self):
        rows = [(1, us(1), us(2)), (1, us(4), us(5)), (1, us(8), us(9)),
                (2, us(0.5), us(9.5))]
        self.assertEqual(
            [[(at(5), at(8))], []],
            slot_plan.gaps_from_rows(rows, at(0), at(10), 0 * H, 3 * H))
        self.assertEqual(
            [[(at(2), at(4)), (at(5), at(8))], []],
            slot_plan.gaps_from_rows(rows, at(0), at(10), 0 * H, 2 * H))

    def test_microseconds_round_trip(self):
        value = datetime.datetime(2031, 5, 6, 7, 8, 9, 123456)
        self.assertEqual(value, slot_plan.from_microseconds(
            slot_plan.microseconds(value)))

    def test_busy_dict(self):
        self.assertEqual([[(at(0), at(2)), (at(3), at(5))]],
                         slot_plan.gaps_from_busy(
                             {'a': [(at(2), at(3))]}, at(0), at(5)))


class TestRanges(base.TestCase):

    def test_start_ranges_need_count_resources_throughout(self):
        gaps = [[(at(0), at(4))], [(at(2), at(10))], [(at(5), at(10))]]
        # Two resources free for 2 hours: starts 2..2 (a, b), 5..8 (b, c).
        self.assertEqual([(at(2), at(2)), (at(5), at(8))],
                         slot_plan.start_ranges(gaps, 2, 2 * H))
        self.assertEqual([], slot_plan.start_ranges(gaps, 3, H))

    def test_intersect(self):
        a = [(at(0), at(2)), (at(5), at(8))]
        b = [(at(1), at(6)), (at(7), at(9))]
        self.assertEqual([(at(1), at(2)), (at(5), at(6)), (at(7), at(8))],
                         slot_plan.intersect([a, b]))
        self.assertEqual(a, slot_plan.intersect([None, a]))
        self.assertIsNone(slot_plan.intersect([None, None]))
        self.assertEqual([], slot_plan.intersect([a, []]))


class TestStretches(base.TestCase):

    def test_count_th_latest_end_of_the_gaps_at_each_time(self):
        gaps = [[(at(0), at(4))], [(at(2), at(10))], [(at(5), at(7))]]
        self.assertEqual([at(4), None, at(7)], slot_plan.stretches(
            gaps, 2, [at(2), at(4.5), at(5)]))
        self.assertEqual([at(4), at(10), at(10)], slot_plan.stretches(
            gaps, 1, [at(0), at(3), at(5)]))
        self.assertEqual(at(7), slot_plan.latest_end(gaps, 2, at(6)))
        self.assertIsNone(slot_plan.latest_end(gaps, 3, at(6)))

    def test_gap_starts(self):
        self.assertEqual({at(0), at(2)}, slot_plan.gap_starts(
            [[(at(0), at(1)), (at(2), at(3))], [(at(0), at(3))]]))


class TestKeyedGaps(base.TestCase):

    def test_ids_in_the_order_of_the_gaps(self):
        rows = [('h1', us(2), us(4)), ('h2', None, None),
                ('h3', us(0), us(10))]
        self.assertEqual(
            (['h1', 'h2', 'h3'],
             [[(at(0), at(2)), (at(4), at(10))], [(at(0), at(10))], []]),
            slot_plan.keyed_gaps_from_rows(rows, at(0), at(10), 0 * H))

    def test_free_over_needs_one_gap_around_the_whole_window(self):
        flat = slot_plan.free_throughout(
            ['h1', 'h2', 'h3'],
            [[(at(0), at(2)), (at(4), at(10))], [(at(0), at(10))], []])
        self.assertEqual(['h1', 'h2'], slot_plan.free_over(flat, at(5),
                                                           at(10)))
        self.assertEqual(['h2'], slot_plan.free_over(flat, at(1), at(5)))
        self.assertEqual([], slot_plan.free_over(flat, at(-1), at(1)))


class _Plugin:

    def __init__(self):
        self.calls = []

    def candidates(self, context, session, spec, start, end, **kwargs):
        self.calls.append(kwargs)
        return ['h1']


class TestNarrowedCheck(base.TestCase):
    """The allocator's check of an option looks only at the hosts the
    pool's read saw free (plan.Search.fits)."""

    def search(self, free_ids):
        plugin = _Plugin()
        request = plan.Request(
            [{'resource_type': 'physical:host'},
             {'resource_type': 'virtual:floatingip'}], 2 * H, 2 * H,
            at(0), at(10), 5, 'earliest')
        search = plan.Search(None, {'physical:host': plugin,
                                    'virtual:floatingip': plugin},
                             request, session=None)
        search.free[0] = slot_plan.free_throughout(
            free_ids, [[(at(0), at(10))] for _ in free_ids])
        return search, plugin

    def test_only_the_hosts_free_in_the_read(self):
        search, plugin = self.search(['h1', 'h2'])
        search.free[0].append((at(6), at(10), 'h3'))
        self.assertEqual([['h1'], ['h1']], search.fits(at(1), at(3)))
        # The floating IP reservation (no pool of hosts) asks as before.
        self.assertEqual([{'among': ['h1', 'h2']}, {}], plugin.calls)

    def test_every_host_when_too_many_are_free(self):
        search, plugin = self.search(
            ['h%d' % i for i in range(plan.MAX_AMONG + 1)])
        search.fits(at(1), at(3))
        self.assertEqual([{}, {}], plugin.calls)
