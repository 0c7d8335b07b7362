"""Health sources against small real HTTP servers answering as Nova and
Ironic do: a host flipped down is taken out of service and its lease
healed; flipped up, it comes back."""

import datetime

from oslo_utils import timeutils

from blazar_ext import health
from blazar_ext.health import ironic
from blazar_ext.health import nova
from blazar_ext.manager import health as health_monitor
from blazar_ext.tests import base
from blazar_ext.tests.functional import health_servers


class HealthTestCase(base.HostServiceTestCase):

    SOURCE = ''

    def setUp(self):
        super().setUp()
        self.conf.set_override('interval', 60, group='health')
        self.now = timeutils.utcnow()

    def point_at(self, server) -> None:
        self.conf.set_override('auth_type', 'none', group=self.SOURCE)
        self.conf.set_override('endpoint_override', server.endpoint,
                               group=self.SOURCE)

    def monitor(self) -> health_monitor.HealthMonitor:
        return health_monitor.HealthMonitor(
            self.manager.service.endpoint.healer,
            source=health.load(self.SOURCE))

    def poll(self, monitor) -> dict:
        """One run, an interval after the last: every host is due."""
        self.now += datetime.timedelta(seconds=61)
        return monitor.run_once(self.now)


class TestNova(HealthTestCase):

    SOURCE = 'nova'

    def setUp(self):
        super().setUp()
        self.nova = self.useFixture(health_servers.FakeNova())
        self.point_at(self.nova)

    def test_loaded_by_name(self):
        self.assertIsInstance(self.monitor().source, nova.NovaHealth)

    def test_service_down_heals_then_up_brings_back(self):
        for name in ('c1', 'c2'):
            self.nova.add(name)
            self.add_host(name)
        lease = self.create()
        [held] = self.allocated_hosts(lease['id'])
        name = self.host({'id': held})['hypervisor_hostname']
        monitor = self.monitor()
        self.assertEqual([], self.poll(monitor)['down'])
        self.nova.state[name]['service_state'] = 'down'
        changed = self.poll(monitor)
        self.assertEqual([str(held)], [str(h) for h in changed['down']])
        shown = self.host({'id': held})
        self.assertFalse(shown['reservable'])
        self.assertEqual('nova: compute service down',
                         shown['reservable_reason'])
        self.assertNotEqual([held], self.allocated_hosts(lease['id']))
        self.nova.state[name]['service_state'] = 'up'
        self.assertEqual([str(held)],
                         [str(h) for h in self.poll(monitor)['up']])
        self.assertTrue(self.host({'id': held})['reservable'])

    def test_disabled_hypervisor_and_forced_down(self):
        self.nova.add('c1')
        self.nova.add('c2')
        h1 = self.add_host('c1')
        h2 = self.add_host('c2')
        self.nova.state['c1']['status'] = 'disabled'
        self.nova.state['c2']['forced_down'] = True
        self.poll(self.monitor())
        self.assertEqual('nova: hypervisor disabled',
                         self.host(h1)['reservable_reason'])
        self.assertEqual('nova: compute service forced down',
                         self.host(h2)['reservable_reason'])

    def test_operator_choice_stands_and_unknown_hosts_keep_state(self):
        self.nova.add('c1')
        h1 = self.add_host('c1')
        h2 = self.add_host('not-in-nova')
        self.set_reservable(h1, False, reason='operator says so')
        monitor = self.monitor()
        self.poll(monitor)
        # Up in Nova, but the operator took it out: it stays out.
        self.assertFalse(self.host(h1)['reservable'])
        self.assertEqual('operator says so',
                         self.host(h1)['reservable_reason'])
        self.assertTrue(self.host(h2)['reservable'])

    def test_broken_nova_changes_nothing(self):
        self.nova.add('c1')
        h1 = self.add_host('c1')
        self.nova.failing = True
        self.assertEqual([], self.poll(self.monitor())['down'])
        self.assertTrue(self.host(h1)['reservable'])

    def test_each_host_checked_once_per_interval(self):
        for name in ('c1', 'c2', 'c3'):
            self.nova.add(name)
            self.add_host(name)
        self.conf.set_override('batch_size', 2, group='health')
        first, second = self.monitor(), self.monitor()
        self.now += datetime.timedelta(seconds=61)
        first.run_once(self.now)
        asked = len(self.nova.requests)
        # Two batches of at most 2 hosts: two requests each.
        self.assertEqual(4, asked)
        # Another manager in the same interval finds nothing due.
        second.run_once(self.now + datetime.timedelta(seconds=1))
        self.assertEqual(asked, len(self.nova.requests))


class TestIronic(HealthTestCase):

    SOURCE = 'ironic'

    def setUp(self):
        super().setUp()
        self.ironic = self.useFixture(health_servers.FakeIronic())
        self.point_at(self.ironic)

    def test_loaded_by_name(self):
        self.assertIsInstance(self.monitor().source, ironic.IronicHealth)

    def test_maintenance_provision_and_power_states(self):
        hosts = {}
        for i, name in enumerate(('n1', 'n2', 'n3', 'n4', 'n5')):
            uuid = '00000000-0000-0000-0000-00000000000%d' % i
            self.ironic.add(name, uuid)
            # n5 is registered under its node's UUID, as Nova names it.
            hosts[name] = self.add_host(uuid if name == 'n5' else name)
        monitor = self.monitor()
        self.assertEqual([], self.poll(monitor)['down'])
        self.ironic.state['n1'].update(maintenance=True,
                                       maintenance_reason='bad disk')
        self.ironic.state['n2']['provision_state'] = 'clean failed'
        self.ironic.state['n3']['power_state'] = None
        self.ironic.state['n4']['provision_state'] = 'active'
        self.ironic.state['n5']['power_state'] = 'error'
        self.poll(monitor)
        self.assertEqual('ironic: maintenance (bad disk)',
                         self.host(hosts['n1'])['reservable_reason'])
        self.assertEqual('ironic: provision state clean failed',
                         self.host(hosts['n2'])['reservable_reason'])
        self.assertEqual('ironic: power state None',
                         self.host(hosts['n3'])['reservable_reason'])
        self.assertTrue(self.host(hosts['n4'])['reservable'])
        self.assertEqual('ironic: power state error',
                         self.host(hosts['n5'])['reservable_reason'])
        # Pages of 2 nodes were followed through their next links, at
        # microversion 1.8.
        self.assertGreaterEqual(len(self.ironic.requests), 3)
        self.assertTrue(all(
            r[2].get('X-OpenStack-Ironic-API-Version') == '1.8'
            for r in self.ironic.requests))
        self.ironic.state['n1']['maintenance'] = False
        self.assertEqual([str(hosts['n1']['id'])],
                         [str(h) for h in self.poll(monitor)['up']])
        self.assertTrue(self.host(hosts['n1'])['reservable'])

    def test_node_down_heals_the_lease(self):
        self.ironic.add('n1', '00000000-0000-0000-0000-000000000001')
        self.ironic.add('n2', '00000000-0000-0000-0000-000000000002')
        h1 = self.add_host('n1')
        h2 = self.add_host('n2')
        lease = self.create()
        [held] = self.allocated_hosts(lease['id'])
        down = 'n1' if held == h1['id'] else 'n2'
        self.ironic.state[down]['maintenance'] = True
        self.poll(self.monitor())
        other = h2['id'] if held == h1['id'] else h1['id']
        self.assertEqual([other], self.allocated_hosts(lease['id']))


class TestNone(HealthTestCase):

    SOURCE = 'none'

    def test_default_changes_no_host_and_retries_degraded(self):
        self.assertEqual('none', self.conf.health.source)
        h1 = self.add_host('h1')
        h2 = self.add_host('h2')
        lease = self.create()
        blocker = self.create('blocker')
        self.assertEqual([h1['id']], self.allocated_hosts(lease['id']))
        self.set_reservable(h1, False)
        self.assertTrue(self.show(lease['id'])['degraded'])
        monitor = self.monitor()
        self.assertEqual([], self.poll(monitor)['down'])
        self.assertFalse(self.host(h1)['reservable'])
        self.assertTrue(self.show(lease['id'])['degraded'])
        # A lease deleted frees a host: the next sweep heals onto it.
        self.request('DELETE', '/v1/leases/%s' % blocker['id'])
        [outcome] = self.poll(monitor)['healed']
        self.assertEqual(lease['id'], outcome['lease_id'])
        self.assertEqual([h2['id']], self.allocated_hosts(lease['id']))
        self.assertFalse(self.show(lease['id'])['degraded'])
