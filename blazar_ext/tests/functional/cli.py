"""blazar_ext's OpenStackClient commands run as the real ``openstack``
executable against a real HTTP server (fixtures.RealServerFixture).

$BLAZAR_EXT_OPENSTACK names another ``openstack`` to run, as
tools/slot-cli-venv.sh does with a fresh virtualenv's.
"""

import datetime
import json
import os
import subprocess
import sys

from oslo_utils import timeutils

from blazar_ext.tests import fixtures

# The executable of this environment, or of a fresh virtualenv with the
# project and python-openstackclient installed (tools/slot-cli-venv.sh).
OPENSTACK = os.environ.get(
    'BLAZAR_EXT_OPENSTACK',
    os.path.join(os.path.dirname(sys.executable), 'openstack'))
# Lease dates as the commands take them.
FMT = '%Y-%m-%d %H:%M'


class ReservationCommands:
    """For an APITestCase: ``start_server()`` in setUp, then
    ``openstack('slot', 'find', ...)`` runs ``openstack reservation ...``
    as an admin, ``json(...)`` reads its ``-f json`` output and
    ``at(hours)`` is a lease date that many hours after the next hour."""

    def start_server(self) -> None:
        if not os.path.exists(OPENSTACK):
            self.skipTest('python-openstackclient is not installed')
        self.server = self.useFixture(fixtures.RealServerFixture())
        self.t0 = (timeutils.utcnow().replace(second=0, microsecond=0)
                   + datetime.timedelta(hours=1))

    def at(self, hours: int) -> str:
        return (self.t0 + datetime.timedelta(hours=hours)).strftime(FMT)

    def openstack(self, *args: str,
                  ok: bool = True) -> subprocess.CompletedProcess:
        """Run the command; it must succeed, or fail when not ``ok``."""
        cmd = [OPENSTACK, '--os-auth-type', 'admin_token',
               '--os-endpoint', self.server.endpoint + '/v1',
               '--os-token', 'admin', 'reservation'] + list(args)
        env = dict(os.environ, HOME=self.useFixture(
            fixtures.fixtures.TempDir()).path)
        env.pop('OS_CLOUD', None)
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=120, env=env)
        self.assertEqual(ok, proc.returncode == 0,
                         'stdout: %s\nstderr: %s' % (proc.stdout,
                                                     proc.stderr))
        return proc

    def json(self, *args: str):
        return json.loads(self.openstack(*args, '-f', 'json').stdout)
