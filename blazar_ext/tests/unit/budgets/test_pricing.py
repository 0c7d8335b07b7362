"""Pricing (first match wins, per type) and the fair-use arithmetic."""

import datetime
import decimal

from blazar_ext.enforcement import pricing
from blazar_ext.enforcement import rates
from blazar_ext.enforcement import usage
from blazar_ext.tests import base

T0 = datetime.datetime(2030, 1, 1)
H = datetime.timedelta(hours=1)
D = decimal.Decimal


def _rates(*raws):
    return [rates.validate(raw, 'r') for raw in raws]


class TestPricing(base.TestCase):

    def matching(self, expression, ids):
        # "gpu" hosts are those whose id starts with g.
        return [i for i in ids if i.startswith('g')]

    def test_default_rate_when_none_match(self):
        lines = pricing.lines(
            [pricing.Item('physical:host', 2, ('a', 'b'))], [], T0,
            T0 + 3 * H, 1, self.matching)
        self.assertEqual(D(6), pricing.total(lines))
        self.assertIsNone(lines[0]['rate'])

    def test_first_match_wins(self):
        table = _rates(
            {'resource_type': 'physical:host', 'properties': ['==', '$g', 1],
             'credits_per_hour': 4},
            {'resource_type': 'physical:host', 'credits_per_hour': 2},
            {'resource_type': 'physical:host', 'properties': ['==', '$g', 1],
             'credits_per_hour': 100})
        lines = pricing.lines(
            [pricing.Item('physical:host', 3, ('g1', 'a', 'b'))], table,
            T0, T0 + 2 * H, 1, self.matching)
        self.assertEqual([(0, 1, D(8)), (1, 2, D(8))],
                         [(li['rate'], li['count'], li['cost'])
                          for li in lines])

    def test_instances_by_size_and_floating_ips_by_count(self):
        table = _rates(
            {'resource_type': 'virtual:instance', 'credits_per_hour': 0.5,
             'credits_per_vcpu_hour': 1, 'credits_per_gb_hour': 0.25},
            {'resource_type': 'virtual:floatingip', 'credits_per_hour': 0.1})
        lines = pricing.lines(
            [pricing.Item('virtual:instance', 2, vcpus=4, memory_mb=8192),
             pricing.Item('virtual:floatingip', 3)], table,
            T0, T0 + 10 * H, 1, self.matching)
        # (0.5 + 4 + 2) x 2 x 10; 0.1 x 3 x 10.
        self.assertEqual([D(130), D(3)], [li['cost'] for li in lines])

    def test_partial_hours(self):
        lines = pricing.lines([pricing.Item('virtual:floatingip', 1)], [],
                              T0, T0 + datetime.timedelta(minutes=90), 2,
                              self.matching)
        self.assertEqual(D(3), pricing.total(lines))


class TestUsage(base.TestCase):

    def test_peak_back_to_back_is_not_overlap(self):
        self.assertEqual((2, T0 + H), usage.peak(
            [(T0, T0 + 2 * H, 1), (T0 + H, T0 + 3 * H, 1),
             (T0 + 3 * H, T0 + 4 * H, 1)]))
        self.assertEqual((0, None), usage.peak([]))

    def test_most_held_counts_back_to_back(self):
        windows = [(T0, T0 + 10 * H), (T0 + 10 * H, T0 + 20 * H),
                   (T0 + 30 * H, T0 + 40 * H)]
        held, at = usage.most_held(windows, 24 * H)
        self.assertEqual(20 * H, held)
        self.assertEqual(24 * H, usage.most_held(windows, 48 * H)[0] - 6 * H)
        self.assertIsNotNone(at)

    def test_most_held_partial_windows_at_both_ends(self):
        # One hour held every two hours, for 400 hours: any 24 hours
        # hold 12; a span cutting windows counts only their inside part.
        windows = [(T0 + 2 * i * H, T0 + (2 * i + 1) * H)
                   for i in range(200)]
        self.assertEqual((12 * H, T0), usage.most_held(windows, 24 * H))
        self.assertEqual((H + H / 2, T0), usage.most_held(
            [(T0, T0 + 4 * H)], H + H / 2))
        self.assertEqual((3 * H, T0 + H), usage.most_held(
            [(T0, T0 + H / 2), (T0 + H, T0 + 4 * H),
             (T0 + 4 * H + H / 4, T0 + 9 * H)], 3 * H))
        self.assertEqual((datetime.timedelta(0), None),
                         usage.most_held([], H))
