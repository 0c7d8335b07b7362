"""Host maintenance windows (issue 30): leases in the window moved ahead
of time through healing, unmovable ones reported (and degraded when the
window starts), dry runs, list, move, shorten and cancel; on SQLite,
MariaDB and PostgreSQL."""

import argparse
import contextlib
import io

from blazar_ext.cmd import hosts as hosts_cmd
from blazar_ext.tests import base
from blazar_ext.tests.functional import backends
from blazar_ext.tests.functional import maintenance_checks

FMT = base.FMT


def _at(minutes: int) -> str:
    return base.lease_date(minutes)


class TestMaintenance(maintenance_checks.MaintenanceChecks,
                      base.HostServiceTestCase):

    collection = '/v1/os-hosts'

    def names(self) -> dict:
        return {h['id']: h['hypervisor_hostname'] for h in self.request(
            'GET', '/v1/os-hosts').json()['hosts']}

    def hosts_of(self, lease_id: str) -> list:
        names = self.names()
        return [names[h] for h in self.allocated_hosts(lease_id)]

    def test_three_overlapping_leases_each_move(self):
        notifications = self.capture_notifications()
        h0 = self.add_host('h0')
        leases = [self.create(name='l%d' % i, start=60 + 120 * i,
                              end=120 + 120 * i) for i in range(3)]
        for lease in leases:
            self.assertEqual(['h0'], self.hosts_of(lease['id']))
        self.add_host('h1')
        answer = self.schedule(h0, 30, 600)
        self.assertFalse(answer['dry_run'])
        self.assert_all_moved(answer, leases, notifications, lambda lease:
                              self.assertEqual(['h1'],
                                               self.hosts_of(lease['id'])))
        # The host is held for the window: nothing new lands on it.
        self.create(name='late', start=200, end=230, expect=409)
        listed = self.request('GET', '/v1/maintenance').json()
        self.assertEqual([answer['maintenance']['id']],
                         [w['id'] for w in listed['maintenances']])

    def test_no_spare_host_dry_run_moves_nothing_then_degraded(self):
        h0 = self.add_host('h0')
        lease = self.create(start=60, end=120)
        self.assert_unmovable_then_degraded(h0, lease,
                                            lambda: self.host(h0))
        self.assertEqual(['h0'], self.hosts_of(lease['id']))

    def test_move_shorten_and_cancel(self):
        h0 = self.add_host('h0')
        self.add_host('h1')
        lease = self.create(start=300, end=360)
        self.assertEqual(['h0'], self.hosts_of(lease['id']))
        window = self.schedule(h0, 30, 120)['maintenance']
        self.assertEqual(['h0'], self.hosts_of(lease['id']))
        path = '/v1/os-hosts/%s/maintenance/%s' % (h0['id'], window['id'])
        # Moved over the lease: the lease moves.
        resp = self.request('PUT', path, {'start_date': _at(240),
                                          'end_date': _at(400)})
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual([lease['id']], [m['lease_id'] for m in
                                         resp.json()['moved']])
        self.assertEqual(['h1'], self.hosts_of(lease['id']))
        # Shortened.
        resp = self.request('PATCH', path, {'end_date': _at(250)})
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual(_at(250), resp.json()['maintenance']['end_date'][
            :16].replace('T', ' '))
        # Cancelled: the host is free over the window again.
        resp = self.request('DELETE', path)
        self.assertEqual(204, resp.status, resp.text)
        self.assertEqual('cancelled',
                         self.request('GET', path).json()[
                             'maintenance']['status'])
        self.create(name='after', start=240, end=250)

    def test_bad_input(self):
        self.assert_bad_input(self.add_host('h0'))

    def test_bad_changes_are_400_and_change_nothing(self):
        h0 = self.add_host('h0')
        window = self.schedule(h0, 30, 120)['maintenance']
        path = '/v1/os-hosts/%s/maintenance/%s' % (h0['id'], window['id'])
        for field, body in (
                ('end_date', {'end_date': _at(20)}),
                ('end_date', {'start_date': _at(200)}),
                ('start_date', {'start_date': 'soon'}),
                ('dry_run', {'end_date': _at(150), 'dry_run': 'maybe'})):
            resp = self.request('PATCH', path, body)
            self.assertEqual(400, resp.status, resp.text)
            self.assertIn(field, resp.json()['error_message'], body)
        shown = self.request('GET', path).json()['maintenance']
        self.assertEqual((window['start_date'], window['end_date']),
                         (shown['start_date'], shown['end_date']))
        self.assertEqual(204, self.request('DELETE', path).status)
        resp = self.request('DELETE', path)
        self.assertEqual(409, resp.status, resp.text)
        self.assertIn('cancelled', resp.json()['error_message'])

    def test_manage_command(self):
        self.add_host('node-1')
        lease = self.create(start=60, end=120)
        parser = argparse.ArgumentParser()
        hosts_cmd.add_parsers(parser.add_subparsers(dest='action',
                                                    required=True))
        args = parser.parse_args(['maintenance', 'node-1', '--start',
                                  _at(30), '--end', _at(600), '--reason',
                                  'disks', '--dry-run'])
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(0, args.func(args))
        self.assertIn('Would schedule maintenance of host node-1',
                      out.getvalue())
        self.assertIn('Unmovable: 1', out.getvalue())
        self.assertIn(lease['id'], out.getvalue())
        args = parser.parse_args(['maintenance', 'node-1', '--start',
                                  _at(60), '--end', _at(30)])
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(1, args.func(args))


TestMaintenanceMySQL, TestMaintenancePostgreSQL = (
    backends.on_each_backend(TestMaintenance))
