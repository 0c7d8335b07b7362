"""[manager] rpc_version pins the manager RPC API during a rolling
upgrade: calls the pin allows go through, newer ones are a 503 saying so."""

from blazar_ext.rpc import manager_client
from blazar_ext.tests import base


class TestRPCVersionPin(base.LeaseTestCase):

    def setUp(self):
        super().setUp()
        self.conf.set_override('rpc_version', '1.0', group='manager')
        manager_client.reset_client()
        self.addCleanup(manager_client.reset_client)

    def test_calls_within_the_pin_go_through(self):
        self.add_host('h1')

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

    def test_unpinned_speaks_the_current_version(self):
        self.conf.clear_override('rpc_version', group='manager')
        manager_client.reset_client()
        self.add_host('h1')
        self.create()

    def test_leases_fall_back_to_1_1_without_private_visible(self):
        self.conf.set_override('rpc_version', '1.1', group='manager')
        manager_client.reset_client()
        self.add_host('h1')
        self.create()

    def test_property_update_is_a_manager_call(self):
        self.add_host('h1', rack='r1')
        resp = self.request('PATCH', '/v1/physical:host/properties/rack',
                            {'private': False})
        self.assertEqual(503, resp.status, resp.text)
        self.assertIn('update_property', resp.json()['error_message'])
