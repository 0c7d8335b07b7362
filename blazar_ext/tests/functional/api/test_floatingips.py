"""/v1/floatingips and virtual:floatingip reservations."""

from blazar_ext.tests import base
from blazar_ext.tests import fixtures

NET = 'net-1'


def fip_reservation(**values) -> dict:
    spec = {'resource_type': 'virtual:floatingip', 'network_id': NET,
            'amount': 1}
    spec.update(values)
    return spec


class TestFloatingIPs(base.LeaseTestCase):

    def add_fip(self, address, network=NET, expect=201):
        resp = self.request('POST', '/v1/floatingips', {
            'floating_network_id': network, 'floating_ip_address': address})
        self.assertEqual(expect, resp.status, resp.text)
        return resp.json().get('floatingip', resp.json())

    def test_register_show_list_delete(self):
        fip = self.add_fip('172.24.4.10')
        self.assertEqual(NET, fip['floating_network_id'])
        self.assertEqual('172.24.4.10', fip['floating_ip_address'])
        self.assertTrue(fip['reservable'])
        resp = self.request('GET', '/v1/floatingips/%s' % fip['id'])
        shown = resp.json()['floatingip']
        # As upstream: ISO times in the registration's answer only.
        self.assertEqual(fip['created_at'],
                         shown['created_at'].replace(' ', 'T'))
        fip['created_at'] = shown['created_at']
        self.assertEqual(fip, shown)
        self.assertEqual([fip], self.request(
            'GET', '/v1/floatingips').json()['floatingips'])
        self.assertEqual(204, self.request(
            'DELETE', '/v1/floatingips/%s' % fip['id']).status)
        self.assertEqual(404, self.request(
            'GET', '/v1/floatingips/%s' % fip['id']).status)

    def test_bad_registrations(self):
        self.add_fip('172.24.4.10')
        resp = self.request('POST', '/v1/floatingips', {
            'floating_network_id': NET,
            'floating_ip_address': '172.24.4.10'})
        self.assertEqual(409, resp.status)
        for body in ({}, {'floating_network_id': NET},
                     {'floating_network_id': NET,
                      'floating_ip_address': 'not-an-ip'},
                     {'floating_network_id': NET,
                      'floating_ip_address': '1.2.3.4', 'x': 1}):
            resp = self.request('POST', '/v1/floatingips', body)
            self.assertEqual(400, resp.status, (body, resp.text))
        resp = self.request('POST', '/v1/floatingips', {
            'floating_network_id': NET, 'floating_ip_address': '1.2.3.4'},
            headers=fixtures.user_headers())
        self.assertEqual(403, resp.status)

    def test_reserve_amount_and_required(self):
        self.add_fip('172.24.4.10')
        self.add_fip('172.24.4.11')
        self.add_fip('172.24.4.12')
        self.add_fip('10.0.0.1', network='other')
        lease = self.create(reservations=[fip_reservation(
            amount=2, required_floatingips=['172.24.4.12'])])
        reservation = lease['reservations'][0]
        self.assertEqual('virtual:floatingip', reservation['resource_type'])
        self.assertEqual(NET, reservation['network_id'])
        self.assertEqual(2, reservation['amount'])
        self.assertEqual(['172.24.4.12'], reservation['required_floatingips'])
        # One left on the network; the required one is taken. As
        # upstream: a 400, "Not enough floating IPs available".
        refused = self.create(name='b', reservations=[fip_reservation(
            required_floatingips=['172.24.4.12'])], expect=400)
        self.assertIn('Not enough floating IPs available',
                      refused['error_message'])
        self.create(name='c', reservations=[fip_reservation(amount=2)],
                    expect=400)
        self.create(name='d', reservations=[fip_reservation(amount=1)])
        self.create(name='e', reservations=[fip_reservation(amount=1)],
                    expect=400)

    def test_allocations_routes(self):
        busy = self.add_fip('172.24.4.10')
        idle = self.add_fip('172.24.4.11')
        lease = self.create(reservations=[fip_reservation(
            required_floatingips=['172.24.4.10'])])
        held = {'id': lease['reservations'][0]['id'], 'lease_id': lease['id'],
                'start_date': lease['start_date'],
                'end_date': lease['end_date']}
        resp = self.request('GET', '/v1/floatingips/allocations')
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual([{'resource_id': busy['id'], 'reservations': [held]},
                          {'resource_id': idle['id'], 'reservations': []}],
                         resp.json()['allocations'])
        resp = self.request('GET', '/v1/floatingips/allocations?lease_id=%s'
                            % lease['id'])
        self.assertEqual([[held], []], [a['reservations'] for a in
                                        resp.json()['allocations']])
        resp = self.request('GET', '/v1/floatingips/%s/allocation'
                            % idle['id'])
        self.assertEqual({'resource_id': idle['id'], 'reservations': []},
                         resp.json()['allocation'])
        resp = self.request('GET', '/v1/floatingips/%s/allocation'
                            '?reservation_id=%s' % (busy['id'], held['id']))
        self.assertEqual([held], resp.json()['allocation']['reservations'])
        resp = self.request('GET', '/v1/floatingips/nope/allocation')
        self.assertEqual(404, resp.status, resp.text)
        resp = self.request('GET', '/v1/floatingips/allocations',
                            headers=fixtures.user_headers())
        self.assertEqual(403, resp.status, resp.text)

    def test_reserved_fip_cannot_be_deleted(self):
        fip = self.add_fip('172.24.4.10')
        lease = self.create(reservations=[fip_reservation()])
        resp = self.request('DELETE', '/v1/floatingips/%s' % fip['id'])
        self.assertEqual(409, resp.status, resp.text)
        self.request('DELETE', '/v1/leases/%s' % lease['id'])
        resp = self.request('DELETE', '/v1/floatingips/%s' % fip['id'])
        self.assertEqual(204, resp.status, resp.text)

    def test_mixed_lease_lifecycle_and_update(self):
        self.add_host('h1')
        self.add_fip('172.24.4.10')
        self.add_fip('172.24.4.11')
        lease = self.create(start=10, end=20, reservations=[
            base.host_reservation(), fip_reservation()])
        fip_res = [r for r in lease['reservations']
                   if r['resource_type'] == 'virtual:floatingip'][0]
        resp = self.request('PUT', '/v1/leases/%s' % lease['id'], {
            'reservations': [{'id': fip_res['id'], 'amount': 2}]})
        self.assertEqual(200, resp.status, resp.text)
        resp = self.request('PUT', '/v1/leases/%s' % lease['id'], {
            'reservations': [{'id': fip_res['id'], 'amount': 3}]})
        self.assertEqual(400, resp.status, resp.text)
        self.assertIn('Not enough floating IPs available',
                      resp.json()['error_message'])
        self.run_events(minutes=30)
        self.assertEqual('TERMINATED', self.show(lease['id'])['status'])

    def test_bad_fip_reservations_are_400(self):
        for spec in (fip_reservation(network_id=''),
                     fip_reservation(amount=0),
                     fip_reservation(required_floatingips=['x']),
                     fip_reservation(amount=1, required_floatingips=[
                         '1.1.1.1', '1.1.1.2'])):
            resp = self.request('POST', '/v1/leases', {
                'name': 'x', 'start_date': base.lease_date(60),
                'end_date': base.lease_date(120), 'reservations': [spec]})
            self.assertEqual(400, resp.status, (spec, resp.text))
