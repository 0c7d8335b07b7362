"""[manager] rpc_version pins the manager RPC API during a rolling
upgrade: calls the pin allows go through, newer ones are a 503 saying so.
Each message's version is read where it leaves for the transport's driver
(the fake:// driver here; the rabbit driver gets the same dict)."""

import fixtures

from blazar_ext import rpc
from blazar_ext.rpc import manager_client
from blazar_ext.tests import base


class WireFixture(fixtures.Fixture):
    """Records (method, version, argument names) of every RPC message the
    transport's driver is given to send."""

    def _setUp(self):
        self.sent = []
        driver = rpc.get_transport()._driver
        send = driver.send

        def recording_send(target, ctxt, message, *args, **kwargs):
            self.sent.append((message['method'], message.get('version'),
                              sorted(message['args'])))
            return send(target, ctxt, message, *args, **kwargs)
        self.useFixture(fixtures.MockPatchObject(driver, 'send',
                                                 recording_send))

    def versions(self, method: str) -> list:
        return [version for name, version, _args in self.sent
                if name == method]


class TestRPCVersionPin(base.LeaseTestCase):

    def setUp(self):
        super().setUp()
        self.conf.set_override('rpc_version', '1.0', group='manager')
        manager_client.reset_client()
        self.addCleanup(manager_client.reset_client)
        self.wire = self.useFixture(WireFixture())

    def test_calls_within_the_pin_go_through(self):
        self.add_host('h1')
        self.assertEqual(['1.0'], self.wire.versions('create_host'))

    def test_newer_calls_are_503_naming_the_pin(self):
        self.add_host('h1')
        resp = self.request('POST', '/v1/leases', {
            'name': 'l1', 'start_date': base.lease_date(60),
            'end_date': base.lease_date(120), 'events': [],
            'reservations': [base.host_reservation()]})
        self.assertEqual(503, resp.status, resp.text)
        self.assertIn('rpc_version', resp.json()['error_message'])
        self.assertEqual([], self.request('GET', '/v1/leases').json()[
            'leases'])
        # Refused before anything was sent.
        self.assertEqual([], self.wire.versions('create_lease'))

    def test_unpinned_speaks_the_current_version(self):
        self.conf.clear_override('rpc_version', group='manager')
        manager_client.reset_client()
        self.add_host('h1')
        self.create()
        # Resources go through the generic call (1.3).
        self.assertEqual(['1.3'], self.wire.versions('resource_call'))
        self.assertEqual([], self.wire.versions('create_host'))
        # create_lease last changed in 1.8 (the lease in its answer).
        self.assertEqual(['1.8'], self.wire.versions('create_lease'))
        [args] = [a for name, _v, a in self.wire.sent
                  if name == 'create_lease']
        self.assertIn('private_visible', args)
        self.assertIn('return_lease', args)

    def test_pinned_below_1_8_create_is_1_4_and_read_back(self):
        self.conf.set_override('rpc_version', '1.7', group='manager')
        manager_client.reset_client()
        self.add_host('h1')
        lease = self.create()
        self.assertEqual(['1.4'], self.wire.versions('create_lease'))
        [args] = [a for name, _v, a in self.wire.sent
                  if name == 'create_lease']
        self.assertNotIn('return_lease', args)
        self.assertEqual(lease, self.show(lease['id']))

    def test_pinned_below_1_3_resources_use_the_per_type_calls(self):
        # A 1.2 manager has no resource_call: the API speaks its per-type
        # calls, which a 1.3 manager still serves.
        self.conf.set_override('rpc_version', '1.2', group='manager')
        manager_client.reset_client()
        host = self.add_host('h1')
        resp = self.request('PUT', '/v1/os-hosts/%s' % host['id'],
                            {'reservable': False})
        self.assertEqual(200, resp.status, resp.text)
        self.assertFalse(resp.json()['host']['reservable'])
        resp = self.request('POST', '/v1/floatingips', {
            'floating_network_id': 'net', 'floating_ip_address': '10.0.0.9'})
        self.assertEqual(201, resp.status, resp.text)
        fip_id = resp.json()['floatingip']['id']
        self.assertEqual(204, self.request(
            'DELETE', '/v1/floatingips/%s' % fip_id).status)
        self.assertEqual(204, self.request(
            'DELETE', '/v1/os-hosts/%s' % host['id']).status)
        self.assertEqual([], self.wire.versions('resource_call'))
        self.assertEqual(['1.0'], self.wire.versions('create_host'))
        self.assertEqual(['1.0'], self.wire.versions('update_host'))
        self.assertEqual(['1.0'], self.wire.versions('delete_host'))
        self.assertEqual(['1.1'], self.wire.versions('create_floatingip'))
        self.assertEqual(['1.1'], self.wire.versions('delete_floatingip'))

    def test_leases_fall_back_to_1_1_without_private_visible(self):
        self.conf.set_override('rpc_version', '1.1', group='manager')
        manager_client.reset_client()
        self.add_host('h1')
        self.create()
        self.assertEqual(['1.1'], self.wire.versions('create_lease'))
        [args] = [a for name, _v, a in self.wire.sent
                  if name == 'create_lease']
        self.assertNotIn('private_visible', args)

    def test_property_update_is_a_manager_call(self):
        self.add_host('h1', rack='r1')
        resp = self.request('PATCH', '/v1/physical:host/properties/rack',
                            {'private': False})
        self.assertEqual(503, resp.status, resp.text)
        self.assertIn('update_property', resp.json()['error_message'])

    def _plan(self, reservations: list):
        return self.request('POST', '/v1/leases/plan', {
            'reservations': reservations, 'duration': 3600,
            'not_before': base.lease_date(60),
            'not_after': base.lease_date(600)})

    def test_plan_sharing_a_pool_is_the_managers_1_6(self):
        # Two host reservations draw on one pool: their options are
        # checked by allocations rolled back, in the manager.
        self.conf.clear_override('rpc_version', group='manager')
        manager_client.reset_client()
        self.add_host('h1')
        self.add_host('h2')
        resp = self._plan([base.host_reservation(),
                           base.host_reservation()])
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual(1, len(resp.json()['options']))
        self.assertEqual(['1.6'], self.wire.versions('plan_lease'))
        # One reservation per pool: a read, in the API; nothing sent.
        resp = self._plan([base.host_reservation()])
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual(['1.6'], self.wire.versions('plan_lease'))

    def test_plan_sharing_a_pool_pinned_below_1_6_is_503(self):
        self.conf.set_override('rpc_version', '1.5', group='manager')
        manager_client.reset_client()
        self.add_host('h1')
        self.add_host('h2')
        resp = self._plan([base.host_reservation(),
                           base.host_reservation()])
        self.assertEqual(503, resp.status, resp.text)
        self.assertIn('rpc_version', resp.json()['error_message'])
        self.assertEqual([], self.wire.versions('plan_lease'))
        resp = self._plan([base.host_reservation()])
        self.assertEqual(200, resp.status, resp.text)

    def test_floatingip_maintenance_pinned_below_1_7_is_503(self):
        self.conf.set_override('rpc_version', '1.6', group='manager')
        manager_client.reset_client()
        host = self.add_host('h1')
        window = {'start_date': base.lease_date(30),
                  'end_date': base.lease_date(60)}
        resp = self.request('POST', '/v1/os-hosts/%s/maintenance'
                            % host['id'], window)
        self.assertEqual(201, resp.status, resp.text)
        # A host's window is still the 1.5 call.
        self.assertEqual(['1.5'], self.wire.versions('schedule_maintenance'))
        resp = self.request('POST', '/v1/floatingips', {
            'floating_network_id': 'net-1',
            'floating_ip_address': '172.24.4.10'})
        self.assertEqual(201, resp.status, resp.text)
        resp = self.request('POST', '/v1/floatingips/%s/maintenance'
                            % resp.json()['floatingip']['id'], window)
        self.assertEqual(503, resp.status, resp.text)
        self.assertIn('rpc_version', resp.json()['error_message'])
        self.assertEqual(['1.5'], self.wire.versions('schedule_maintenance'))
