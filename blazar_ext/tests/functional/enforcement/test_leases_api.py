"""Enforcement through the whole service: API -> RPC -> manager -> chain ->
the sample enforcement service over real HTTP."""

from blazar_ext import context as blazar_context
from blazar_ext.db.api import allocation as allocation_api
from blazar_ext.db import session as db_session
from blazar_ext.tests import base
from blazar_ext.tests import fixtures
from blazar_ext.tests.functional.enforcement import fixtures as efixtures

_date = base.lease_date
host_reservation = base.host_reservation

LIMITS = {
    'default': {'max_hosts': 2, 'max_hours': 24},
    'projects': {'small': {'max_hosts': 1}},
}


class EnforcedLeaseTest(base.LeaseTestCase):
    """The manager is started after enforcement is configured, so the chain
    is the one it loads itself."""

    def setUp(self):
        # Configuration and database only; the manager comes later.
        base.DBTestCase.setUp(self)
        self.conf.set_override('event_interval', 3600, group='manager')
        self.service = self.useFixture(
            efixtures.SampleServiceFixture(LIMITS))
        self.conf.set_override('endpoint_url', self.service.url,
                               group='enforcement_external')
        self.conf.set_override('reservation_max_length', 2 * 86400,
                               group='enforcement')
        self.conf.set_override('exempted_projects', ['vip'],
                               group='enforcement')
        self.manager = self.useFixture(fixtures.ManagerFixture())
        self.api = self.useFixture(fixtures.APIFixture())
        for name in ('h1', 'h2', 'h3'):
            self.add_host(name, rack='r-' + name)

    def paths(self) -> list:
        return [c['path'] for c in self.service.calls]

    def test_allowed_create(self):
        lease = self.create(reservations=[host_reservation(max=2)],
                            headers=fixtures.user_headers(project='p1'))
        self.assertEqual('PENDING', lease['status'])
        [call] = self.service.calls
        self.assertEqual('/v1/check-create', call['path'])
        self.assertEqual('p1', call['body']['context']['project_id'])
        self.assertEqual('demo', call['body']['context']['user_id'])
        sent = call['body']['lease']
        self.assertEqual('lease-1', sent['name'])
        self.assertEqual(sent['end_date'], sent['end_time'])
        self.assertNotIn('id', sent)
        self.assertEqual('physical:host',
                         sent['reservations'][0]['resource_type'])
        self.assertNotIn('id', sent['reservations'][0])
        # The filters see the hosts chosen for it, and those are the hosts
        # the lease then holds.
        candidates = sent['reservations'][0]['allocations']
        self.assertEqual(['h1', 'h2'], sorted(
            a['hypervisor_hostname'] for a in candidates))
        self.assertEqual({'rack': 'r-h1'}, candidates[0]['extra'])
        self.assertEqual(2, len(self.allocated_hosts(lease['id'])))

    def test_create_candidates_respect_properties_and_busy_hosts(self):
        self.create(reservations=[host_reservation(
            resource_properties='["==", "$rack", "r-h1"]')])
        self.create(name='second', reservations=[host_reservation(max=2)])
        sent = self.service.calls[-1]['body']['lease']
        self.assertEqual(['h2', 'h3'], sorted(
            a['hypervisor_hostname']
            for a in sent['reservations'][0]['allocations']))

    def test_create_candidates_for_floating_ips(self):
        # The spec's example: floating IP allocations carry the network
        # and the address, the required address among them.
        for address in ('172.24.4.10', '172.24.4.11', '172.24.4.12'):
            resp = self.request('POST', '/v1/floatingips', {
                'floating_network_id': 'net-1',
                'floating_ip_address': address})
            self.assertEqual(201, resp.status, resp.text)
        lease = self.create(reservations=[{
            'resource_type': 'virtual:floatingip', 'network_id': 'net-1',
            'amount': 2, 'required_floatingips': ['172.24.4.12']}])
        sent = self.service.calls[-1]['body']['lease']
        candidates = sent['reservations'][0]['allocations']
        self.assertEqual({'net-1'}, {a['floating_network_id']
                                     for a in candidates})
        addresses = sorted(a['floating_ip_address'] for a in candidates)
        self.assertEqual(2, len(addresses))
        self.assertIn('172.24.4.12', addresses)
        # They are what the lease then holds.
        reservation_id = lease['reservations'][0]['id']
        with db_session.reader.using(
                blazar_context.get_admin_context()) as session:
            held = allocation_api.floatingip_allocations_of(
                session, reservation_id)
        self.assertEqual(sorted(a['id'] for a in candidates), sorted(held))

    def test_rejected_create_is_403_with_message_and_lease_in_error(self):
        headers = fixtures.user_headers(project='small')
        resp = self.request('POST', '/v1/leases', {
            'name': 'too-big', 'start_date': _date(60),
            'end_date': _date(120),
            'reservations': [host_reservation(min=1, max=2)]},
            headers=headers)
        self.assertEqual(403, resp.status, resp.text)
        self.assertIn('Your project is limited to reserving 1 physical host',
                      resp.json()['error_message'])
        leases = self.request('GET', '/v1/leases',
                              headers=headers).json()['leases']
        self.assertEqual([('too-big', 'ERROR')],
                         [(x['name'], x['status']) for x in leases])
        self.assertEqual([], [a for a in self.request(
            'GET', '/v1/os-hosts/allocations').json()['allocations']
            if a['reservations']])

    def test_rejected_update_is_403_and_lease_unchanged(self):
        lease = self.create(start=60, end=120)
        resp = self.request('PUT', '/v1/leases/%s' % lease['id'],
                            {'end_date': _date(60 + 25 * 60)})
        self.assertEqual(403, resp.status, resp.text)
        self.assertIn('maximum length of 24 hours',
                      resp.json()['error_message'])
        self.assertEqual(lease, self.show(lease['id']))
        update = self.service.calls[-1]
        self.assertEqual('/v1/check-update', update['path'])
        self.assertNotEqual(update['body']['current_lease']['end_time'],
                            update['body']['lease']['end_time'])
        # The requested state carries the hosts it would hold.
        self.assertEqual(
            [a['hypervisor_hostname'] for a in update['body'][
                'current_lease']['reservations'][0]['allocations']],
            [a['hypervisor_hostname'] for a in update['body'][
                'lease']['reservations'][0]['allocations']])
        # The current state carries the resources the lease holds.
        [held] = update['body']['current_lease']['reservations'][0][
            'allocations']
        self.assertEqual('r-' + held['hypervisor_hostname'],
                         held['extra']['rack'])
        self.assertNotIn('created_at', held)
        # An allowed update goes through.
        resp = self.request('PUT', '/v1/leases/%s' % lease['id'],
                            {'end_date': _date(180)})
        self.assertEqual(200, resp.status, resp.text)

    def test_filter_order_max_length_first(self):
        # Three days: MaximumReservationLengthFilter (first) denies, so the
        # external service is never asked.
        resp = self.request('POST', '/v1/leases', {
            'name': 'long', 'start_date': _date(60),
            'end_date': _date(60 + 3 * 24 * 60),
            'reservations': [host_reservation()]})
        self.assertEqual(403, resp.status, resp.text)
        self.assertEqual('Lease length of 3 days exceeds the maximum '
                         'allowed of 2 days.', resp.json()['error_message'])
        self.assertEqual([], self.paths())

    def test_exempt_project_skips_every_filter(self):
        lease = self.create(start=60, end=60 + 3 * 24 * 60,
                            reservations=[host_reservation(min=3, max=3)],
                            headers=fixtures.user_headers(project='vip'))
        self.assertEqual('PENDING', lease['status'])
        self.assertEqual([], self.paths())

    def test_on_end_when_lease_ends(self):
        lease = self.create(start=10, end=20)
        self.run_events(minutes=30)
        self.assertEqual('TERMINATED', self.show(lease['id'])['status'])
        self.assertEqual(['/v1/check-create', '/v1/on-end'], self.paths())
        end = self.service.calls[-1]['body']
        # The event loop has no user: the lease's owner is reported.
        self.assertEqual(lease['user_id'], end['context']['user_id'])
        self.assertEqual(lease['project_id'], end['context']['project_id'])
        self.assertEqual('lease-1', end['lease']['name'])
        [held] = end['lease']['reservations'][0]['allocations']
        self.assertIn(held['hypervisor_hostname'], ('h1', 'h2', 'h3'))
        self.assertEqual({'rack': 'r-' + held['hypervisor_hostname']},
                         held['extra'])

    def test_on_end_when_active_lease_deleted_early(self):
        lease = self.create(start='now', end=60)
        self.run_events()
        self.assertEqual('ACTIVE', self.show(lease['id'])['status'])
        resp = self.request('DELETE', '/v1/leases/%s' % lease['id'])
        self.assertEqual(204, resp.status, resp.text)
        self.assertEqual(['/v1/check-create', '/v1/on-end'], self.paths())
        # What it held, read before the delete released it.
        [held] = self.service.calls[-1]['body']['lease']['reservations'][0][
            'allocations']
        self.assertEqual('h1', held['hypervisor_hostname'])

    def test_end_not_blocked_when_service_down(self):
        lease = self.create(start='now', end=60)
        self.run_events()
        self.service.server.shutdown()
        self.service.server.server_close()
        self.run_events(minutes=90)
        self.assertEqual('TERMINATED', self.show(lease['id'])['status'])

    def test_pending_delete_does_not_call_on_end(self):
        lease = self.create(start=60, end=120)
        self.request('DELETE', '/v1/leases/%s' % lease['id'])
        self.assertEqual(['/v1/check-create'], self.paths())


class ServiceDownLeaseTest(base.LeaseTestCase):
    """A service that cannot be reached denies, or allows when told to."""

    def setUp(self):
        base.DBTestCase.setUp(self)
        self.conf.set_override('event_interval', 3600, group='manager')
        self.conf.set_override('endpoint_url', efixtures.closed_port_url(),
                               group='enforcement_external')
        self.conf.set_override('allow_on_error', self.allow_on_error,
                               group='enforcement_external')
        self.manager = self.useFixture(fixtures.ManagerFixture())
        self.api = self.useFixture(fixtures.APIFixture())
        self.add_host('h1')

    allow_on_error = False

    def test_denied_when_down(self):
        resp = self.request('POST', '/v1/leases', {
            'name': 'x', 'start_date': _date(60), 'end_date': _date(120),
            'reservations': [host_reservation()]})
        self.assertEqual(403, resp.status, resp.text)
        self.assertIn('usage enforcement service is unavailable',
                      resp.json()['error_message'])
