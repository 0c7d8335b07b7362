"""Heals are counted in blazar_ext_heals_total (the manager's metrics)."""

from blazar_ext import metrics
from blazar_ext.tests import base


def _heals(outcome: str) -> float:
    for family in metrics._INSTRUMENTS.collect():
        for sample in family.samples:
            if (sample.name == 'blazar_ext_heals_total'
                    and sample.labels == {'outcome': outcome}):
                return sample.value
    return 0.0


class TestHealMetrics(base.HostServiceTestCase):

    def test_missing_then_replaced_are_counted(self):
        missing, replaced = _heals('missing'), _heals('replaced')
        h1 = self.add_host('h1', gpu='true')
        self.add_host('h2', gpu='false')
        self.create(reservations=[base.host_reservation(
            resource_properties='["==", "$gpu", "true"]')])
        self.set_reservable(h1, False)
        self.assertEqual(missing + 1, _heals('missing'))
        self.assertEqual(replaced, _heals('replaced'))
        self.add_host('h3', gpu='true')
        self.assertEqual(replaced + 1, _heals('replaced'))
