"""Floating IP maintenance windows (issue 30): reservations of the
address in the window move to another free floating IP of the same
network ahead of time, through floating IP healing; what cannot move is
reported (and degraded when the window starts); dry runs, list, move,
shorten and cancel; on SQLite, MariaDB and PostgreSQL."""

import urllib.parse

import testtools

from blazar_ext import context
from blazar_ext.db.api import allocation as allocation_api
from blazar_ext import exceptions
from blazar_ext.tests import base
from blazar_ext.tests.functional import backends
from blazar_ext.tests.functional import maintenance_checks

NET = 'net-1'


def _at(minutes: int) -> str:
    return base.lease_date(minutes)


def _fip_reservation(**values) -> dict:
    return dict({'resource_type': 'virtual:floatingip', 'network_id': NET,
                 'amount': 1}, **values)


class TestFloatingIPMaintenance(maintenance_checks.MaintenanceChecks,
                                base.HostServiceTestCase):

    collection = '/v1/floatingips'

    def add_fip(self, address: str, network: str = NET) -> dict:
        resp = self.request('POST', '/v1/floatingips', {
            'floating_network_id': network, 'floating_ip_address': address})
        self.assertEqual(201, resp.status, resp.text)
        return resp.json()['floatingip']

    def fip_lease(self, name: str, start: int, end: int, expect=201,
                  **values) -> dict:
        return self.create(name=name, start=start, end=end, expect=expect,
                           reservations=[_fip_reservation(**values)])

    def held(self, lease_id: str) -> list:
        [reservation] = self.show(lease_id)['reservations']
        return allocation_api.floatingip_allocation_list(
            context.get_admin_context(), reservation['id'])

    def fip(self, fip: dict) -> dict:
        return self.request('GET', '/v1/floatingips/%s'
                            % fip['id']).json()['floatingip']

    def test_overlapping_leases_move_to_a_free_address_of_the_network(self):
        notifications = self.capture_notifications()
        a = self.add_fip('172.24.4.10')
        leases = [self.fip_lease('l%d' % i, 60 + 120 * i, 120 + 120 * i)
                  for i in range(2)]
        for lease in leases:
            self.assertEqual([a['id']], self.held(lease['id']))
        b = self.add_fip('172.24.4.11')
        # Free, but on another network: never a replacement.
        self.add_fip('172.24.4.12', network='net-2')
        answer = self.schedule(a, 30, 600)
        self.assertFalse(answer['dry_run'])
        self.assertEqual('virtual:floatingip',
                         answer['maintenance']['resource_type'])
        self.assertEqual(a['id'], answer['maintenance']['floatingip_id'])
        self.assertEqual({b['id']}, {m['to'] for m in answer['moved']})
        self.assert_all_moved(answer, leases, notifications, lambda lease:
                              self.assertEqual([b['id']],
                                               self.held(lease['id'])))
        # The address is held for the window: the next lease in it gets
        # none (b is taken by the moved lease, a by the window).
        self.fip_lease('late', 60, 100, expect=400)
        listed = self.request('GET', '/v1/maintenance').json()
        self.assertEqual([answer['maintenance']['id']],
                         [w['id'] for w in listed['maintenances']])
        self.assertEqual([answer['maintenance']['id']], [
            w['id'] for w in self.request(
                'GET', '/v1/floatingips/%s/maintenance' % a['id']).json()[
                    'maintenances']])
        # The floating IP calendar draws the window's hold.
        body = self.request('GET', '/v1/floatingips/calendar?' +
                            urllib.parse.urlencode({'start': _at(0),
                                                    'end': _at(24 * 60)})
                            ).json()['calendar']
        lease_id = body['allocation_fields'].index('lease_id')
        self.assertIn(answer['maintenance']['lease_id'],
                      [row[lease_id] for row in body['allocations']])

    def test_no_spare_address_dry_run_moves_nothing_then_degraded(self):
        a = self.add_fip('172.24.4.10')
        lease = self.fip_lease('l', 60, 120)
        self.assert_unmovable_then_degraded(a, lease, lambda: self.fip(a))
        # Back in service: the lease is whole again, on the same address.
        self.assertEqual([a['id']], self.held(lease['id']))
        self.assertFalse(self.show(lease['id'])['degraded'])

    def test_move_shorten_and_cancel(self):
        a = self.add_fip('172.24.4.10')
        b = self.add_fip('172.24.4.11')
        lease = self.fip_lease('l', 300, 360, required_floatingips=[
            '172.24.4.10'], amount=1)
        window = self.schedule(a, 30, 120)['maintenance']
        path = '/v1/floatingips/%s/maintenance/%s' % (a['id'], window['id'])
        shown = self.request('GET', path).json()['maintenance']
        self.assertEqual((window['id'], a['id'], 'scheduled'),
                         (shown['id'], shown['floatingip_id'],
                          shown['status']))
        # Moved over a lease that named the address: it cannot move.
        resp = self.request('PUT', path, {'start_date': _at(240),
                                          'end_date': _at(400)})
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual([lease['id']], [u['lease_id'] for u in
                                         resp.json()['unmovable']])
        self.assertEqual([a['id']], self.held(lease['id']))
        # Shortened away from it.
        resp = self.request('PATCH', path, {'end_date': _at(250)})
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual(_at(250), resp.json()['maintenance']['end_date'][
            :16].replace('T', ' '))
        # The window through another floating IP's path: not found.
        other = '/v1/floatingips/%s/maintenance/%s' % (b['id'], window['id'])
        self.assertEqual(404, self.request('GET', other).status)
        # Cancelled: the address is free over the window again.
        self.assertEqual(204, self.request('DELETE', path).status)
        self.assertEqual('cancelled', self.request('GET', path).json()[
            'maintenance']['status'])
        self.fip_lease('after', 240, 250, required_floatingips=[
            '172.24.4.10'])

    def test_unregistered_once_its_window_is_cancelled(self):
        a = self.add_fip('172.24.4.10')
        window = self.schedule(a, 30, 120)['maintenance']
        path = '/v1/floatingips/%s' % a['id']
        # The window holds the address.
        self.assertEqual(409, self.request('DELETE', path).status)
        self.assertEqual(204, self.request(
            'DELETE', path + '/maintenance/' + window['id']).status)
        resp = self.request('DELETE', path)
        self.assertEqual(204, resp.status, resp.text)
        self.assertEqual([], self.request('GET', '/v1/maintenance').json()[
            'maintenances'])

    def test_a_type_without_windows_is_refused(self):
        values = {'start_date': _at(30), 'end_date': _at(60)}
        with testtools.ExpectedException(exceptions.Invalid,
                                         '.*virtual:instance.*'):
            self.manager.service.endpoint.maintenance.schedule(
                context.get_admin_context(), 'any', values,
                resource_type='virtual:instance')

    def test_bad_input(self):
        self.assert_bad_input(self.add_fip('172.24.4.10'))


TestFloatingIPMaintenanceMySQL, TestFloatingIPMaintenancePostgreSQL = (
    backends.on_each_backend(TestFloatingIPMaintenance))
