"""blazar_ext's own OpenStackClient commands (blazar_ext.cli.reservation)
run as the real ``openstack`` executable against a real HTTP server:
``reservation slot find``, ``reservation slot book`` and ``reservation
lease extension show``, beside python-blazarclient's commands
(tests/functional/cli.py says how, and how to run another ``openstack``)."""

import json

from blazar_ext.tests import base
from blazar_ext.tests.functional import cli

HOST = 'resource_type=physical:host,min=1,max=1'


class TestSlotCommands(cli.ReservationCommands, base.APITestCase):

    def setUp(self):
        super().setUp()
        self.conf.set_override('event_interval', 3600, group='manager')
        self.start_server()

    def test_find_book_and_extension(self):
        self.assertEqual(201, self.request('POST', '/v1/os-hosts', {
            'name': 'h1'}).status)
        resp = self.request('POST', '/v1/leases', {
            'name': 'first', 'start_date': self.at(0),
            'end_date': self.at(2), 'reservations': [
                base.host_reservation()]})
        self.assertEqual(201, resp.status, resp.text)
        found = json.loads(self.openstack(
            'slot', 'find', '--reservation', HOST, '--duration', '1h',
            '--not-before', self.at(0), '--not-after', self.at(10),
            '-f', 'json').stdout)
        self.assertEqual([{'start_date': self.at(2),
                           'end_date': self.at(3), 'duration': 3600}],
                         found)
        # --within and the value format.
        value = self.openstack(
            'slot', 'find', '--reservation', HOST, '--duration', '60m',
            '--within', '1d', '-c', 'start_date', '-f', 'value').stdout
        self.assertEqual(self.at(2), value.splitlines()[0])
        booked = json.loads(self.openstack(
            'slot', 'book', 'flexible', '--reservation', HOST,
            '--duration', '2h', '--not-before', self.at(0),
            '--not-after', self.at(10), '-f', 'json').stdout)
        self.assertEqual('flexible', booked['name'])
        self.assertEqual(self.at(2).replace(' ', 'T'),
                         booked['start_date'][:16])
        # python-blazarclient's commands see it as any lease.
        shown = json.loads(self.openstack(
            'lease', 'show', 'flexible', '-f', 'json').stdout)
        self.assertEqual(booked['id'], shown['id'])
        advice = json.loads(self.openstack(
            'lease', 'extension', 'show', 'first', '-f', 'json').stdout)
        # The next lease on the only host begins at hour 2.
        self.assertEqual(self.at(2), advice['latest_end_date'])
        self.assertFalse(advice['moving_helps'])

    def test_errors_are_reported(self):
        proc = self.openstack('slot', 'find', '--reservation', HOST,
                              '--duration', '0', '--within', '1d',
                              ok=False)
        self.assertNotEqual(0, proc.returncode)
        self.assertIn('duration must be a positive', proc.stderr)
        proc = self.openstack('slot', 'find', '--reservation', HOST,
                              '--duration', 'soon', '--within', '1d',
                              ok=False)
        self.assertIn('invalid duration', proc.stderr)
