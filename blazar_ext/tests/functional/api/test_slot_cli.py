"""blazar_ext's own OpenStackClient commands (blazar_ext.cli.reservation)
run as the real ``openstack`` executable against a real HTTP server:
``reservation slot find``, ``reservation slot book`` and ``reservation
lease extension show``, beside python-blazarclient's commands.

$BLAZAR_EXT_OPENSTACK names another ``openstack`` to run, as
tools/slot-cli-venv.sh does with a fresh virtualenv's."""

import datetime
import json
import os
import subprocess
import sys

from oslo_utils import timeutils

from blazar_ext.tests import base
from blazar_ext.tests import fixtures

# The executable of this environment, or of a fresh virtualenv with the
# project and python-openstackclient installed (tools/slot-cli-venv.sh).
OPENSTACK = os.environ.get(
    'BLAZAR_EXT_OPENSTACK',
    os.path.join(os.path.dirname(sys.executable), 'openstack'))
FMT = '%Y-%m-%d %H:%M'
HOST = 'resource_type=physical:host,min=1,max=1'


class TestSlotCommands(base.APITestCase):

    def setUp(self):
        super().setUp()
        if not os.path.exists(OPENSTACK):
            self.skipTest('python-openstackclient is not installed')
        self.conf.set_override('event_interval', 3600, group='manager')
        self.server = self.useFixture(fixtures.RealServerFixture())
        self.t0 = (timeutils.utcnow().replace(second=0, microsecond=0)
                   + datetime.timedelta(hours=1))

    def at(self, hours: int) -> str:
        return (self.t0 + datetime.timedelta(hours=hours)).strftime(FMT)

    def openstack(self, *args: str, ok: bool = True):
        cmd = [OPENSTACK, '--os-auth-type', 'admin_token',
               '--os-endpoint', self.server.endpoint + '/v1',
               '--os-token', 'admin', 'reservation'] + list(args)
        env = dict(os.environ, HOME=self.useFixture(
            fixtures.fixtures.TempDir()).path)
        env.pop('OS_CLOUD', None)
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=120, env=env)
        if ok:
            self.assertEqual(0, proc.returncode,
                             'stdout: %s\nstderr: %s'
                             % (proc.stdout, proc.stderr))
        return proc

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
