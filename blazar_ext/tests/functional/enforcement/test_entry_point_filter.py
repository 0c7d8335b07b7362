"""A filter from another package: registered by entry point, enabled by
name, run by the manager's chain (the contributor guide's how-to)."""

from blazar_ext import enforcement
from blazar_ext.tests import base
from blazar_ext.tests import fixtures
from blazar_ext.tests.plugins import enforcement_filter

TARGET = 'blazar_ext.tests.plugins.enforcement_filter:OneReservationFilter'


class EntryPointFilterTest(base.LeaseTestCase):

    def setUp(self):
        base.DBTestCase.setUp(self)
        self.conf.set_override('event_interval', 3600, group='manager')
        self.useFixture(fixtures.EntryPointFixture(
            enforcement.NAMESPACE, 'OneReservationFilter', TARGET))
        self.conf.set_override('enabled_filters', ['OneReservationFilter'],
                               group='enforcement')
        self.manager = self.useFixture(fixtures.ManagerFixture())
        self.api = self.useFixture(fixtures.APIFixture())
        for name in ('h1', 'h2'):
            self.add_host(name)

    def test_found_by_its_entry_point(self):
        self.assertIs(enforcement_filter.OneReservationFilter,
                      enforcement.available_filters(self.conf)[
                          'OneReservationFilter'])

    def test_the_chain_runs_it(self):
        self.create(name='one')
        refused = self.create(name='two', expect=403, reservations=[
            base.host_reservation(), base.host_reservation()])
        self.assertIn('at most 1 reservation', refused['error_message'])
