"""The fair-use filters through the whole service; each refusal names its
rule and by how much the request is over."""

from blazar_ext.tests import base
from blazar_ext.tests import fixtures
from blazar_ext.tests.functional import backends
from blazar_ext.tests.functional.budgets import base as budget_base

host_reservation = base.host_reservation
P1 = budget_base.P1


class FairUseTestCase(budget_base.BudgetTestCase):

    OPTIONS: dict = {}

    def configure(self):
        for name, value in self.OPTIONS.items():
            self.conf.set_override(name, value, group='fair_use')

    def refused(self, start, end, **values) -> str:
        values.setdefault('reservations', [host_reservation()])
        body = dict({'name': 'refused', 'start_date': base.lease_date(start),
                     'end_date': base.lease_date(end)}, **values)
        resp = self.request('POST', '/v1/leases', body, headers=P1)
        self.assertEqual(403, resp.status, resp.text)
        return resp.json()['error_message']


class TestMaxConcurrentHosts(FairUseTestCase):
    FILTERS = ['MaxConcurrentUsageFilter']
    OPTIONS = {'max_concurrent_hosts': 2}

    def test_limit_over_time(self):
        self.create('a', 60, 180, [host_reservation(max=2)], headers=P1)
        # After the first ends, two hosts again are fine.
        self.create('b', 180, 240, [host_reservation(max=2)], headers=P1)
        message = self.refused(120, 200)
        self.assertIn('Fair-use rule max_concurrent_hosts: project p1 would '
                      'hold 3 hosts at once', message)
        self.assertIn('1 more than the limit of 2', message)
        # Another project is not counted.
        self.create('c', 120, 200, headers=fixtures.user_headers(
            project='p2'))


class TestMaxConcurrentVcpus(FairUseTestCase):
    FILTERS = ['MaxConcurrentUsageFilter']
    OPTIONS = {'max_concurrent_vcpus': 1}

    def test_vcpus_of_hosts(self):
        self.add_host('big', vcpus=8)
        message = self.refused(60, 120, reservations=[host_reservation(
            hypervisor_properties='[">=", "$vcpus", "8"]')])
        self.assertRegex(message, 'Fair-use rule max_concurrent_vcpus: '
                         'project p1 would hold ([0-9]+) vCPUs at once .*, '
                         '[0-9]+ more than the limit of 1')

    def test_vcpus_of_instances(self):
        self.add_host('roomy', vcpus=8, memory_mb=16384, local_gb=100)
        message = self.refused(60, 120, reservations=[{
            'resource_type': 'virtual:instance', 'amount': 2, 'vcpus': 2,
            'memory_mb': 512, 'disk_gb': 1, 'affinity': None}])
        self.assertIn('Fair-use rule max_concurrent_vcpus: project p1 would '
                      'hold 4 vCPUs at once', message)
        self.assertIn('3 more than the limit of 1', message)


class TestMaxFutureLeases(FairUseTestCase):
    FILTERS = ['MaxFutureLeasesFilter']
    OPTIONS = {'max_future_leases': 2}

    def test_limit(self):
        self.create('a', 60, 120, headers=P1)
        self.create('b', 60, 120, headers=P1)
        self.assertIn('Fair-use rule max_future_leases: user u1 would have '
                      '3 leases not yet started, 1 more than the limit of 2',
                      self.refused(60, 120))


class TestMaxAdvanceBooking(FairUseTestCase):
    FILTERS = ['MaxAdvanceBookingFilter']
    OPTIONS = {'max_advance_hours': 24}

    def test_limit(self):
        self.create('a', 60 * 23, 60 * 24, headers=P1)
        message = self.refused(60 * 30 + 1, 60 * 31)
        self.assertIn('Fair-use rule max_advance_hours: the lease starts '
                      '30', message)
        self.assertIn('more than the limit of 24 hours', message)


class TestAntiStacking(FairUseTestCase):
    FILTERS = ['AntiStackingFilter']
    OPTIONS = {'stacking_max_hours': 4, 'stacking_window_hours': 24}

    def test_back_to_back_leases_count_together(self):
        one = [host_reservation(hypervisor_properties='["==", '
                                '"$hypervisor_hostname", "h3"]')]
        self.create('a', 60, 60 * 4, one, headers=P1)
        # Back to back on the same host: 3 + 2 hours > 4.
        message = self.refused(60 * 4, 60 * 6, reservations=one)
        self.assertIn('Fair-use rule anti-stacking: project p1 would hold '
                      'host h3 for 5 hours out of 24', message)
        self.assertIn('1 hours more than the limit of 4 hours out of any '
                      '24', message)
        # Another host is fine.
        self.create('b', 60 * 4, 60 * 6, headers=P1)


class TestAllOn(FairUseTestCase):
    """The budget and the four rules together."""
    FILTERS = ['BudgetFilter', 'MaxConcurrentUsageFilter',
               'MaxFutureLeasesFilter', 'MaxAdvanceBookingFilter',
               'AntiStackingFilter']
    OPTIONS = {'max_concurrent_hosts': 3, 'max_concurrent_vcpus': 1000,
               'max_future_leases': 5, 'max_advance_hours': 48,
               'stacking_max_hours': 10}

    def test_allowed_lease_is_charged(self):
        budget = self.budget(10)
        self.create('a', 60, 180, headers=P1)
        self.assertEqual(8.0, self.get_budget(budget['id'])['balance'])


TestAllOnMySQL, TestAllOnPostgreSQL = backends.on_each_backend(TestAllOn)
(TestAntiStackingMySQL,
 TestAntiStackingPostgreSQL) = backends.on_each_backend(TestAntiStacking)
