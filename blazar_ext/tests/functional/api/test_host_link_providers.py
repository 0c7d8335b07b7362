"""blazar-ext-manage hosts link-providers: hosts registered before
revision 0006 get their resource providers, and traits apply to them."""

import os
import subprocess
import sys

import fixtures
import sqlalchemy as sa

from blazar_ext.db.models import host as host_models
from blazar_ext.db import session as db_session
from blazar_ext.tests import base


class TestLinkProviders(base.HostProviderTestCase):

    def _forget_provider(self, host_id: str) -> None:
        """Make a host look as revision 0006 found it: no provider."""
        engine = db_session.get_engine()
        with engine.begin() as conn:
            conn.execute(sa.update(host_models.ComputeHost.__table__)
                         .where(host_models.ComputeHost.id == host_id)
                         .values(resource_provider_id=None))

    def _manage(self, *argv: str) -> subprocess.CompletedProcess:
        config = os.path.join(self.useFixture(fixtures.TempDir()).path,
                              'blazar-ext.conf')
        with open(config, 'w') as f:
            f.write('[database]\nconnection = %s\n' % self.db.url)
        script = os.path.join(os.path.dirname(sys.executable),
                              'blazar-ext-manage')
        return subprocess.run([script, '--config-file', config] +
                              list(argv), capture_output=True, text=True,
                              timeout=60)

    def test_old_host_gets_linked_and_traits_apply(self):
        old = self.add_host('old', vcpus=4)
        self.set_traits('old', 'CUSTOM_GPU')
        self._forget_provider(old['id'])
        # Unlinked, its provider's traits do not count.
        resp = self.request('POST', '/v1/leases', {
            'name': 'gpu', 'start_date': base.lease_date(60),
            'end_date': base.lease_date(120), 'events': [],
            'reservations': [base.host_reservation(
                traits='CUSTOM_GPU')]})
        self.assertEqual(409, resp.status, resp.text)

        proc = self._manage('hosts', 'link-providers')
        self.assertEqual(0, proc.returncode, proc.stderr)
        self.assertIn('Linked 1 host(s)', proc.stdout)
        self.assertIn('old', proc.stdout)
        lease = self.create(reservations=[base.host_reservation(
            traits='CUSTOM_GPU')])
        self.assertEqual([old['id']], self.allocated_hosts(lease['id']))
        # Nothing left to link the second time.
        proc = self._manage('hosts', 'link-providers')
        self.assertIn('Linked 0 host(s)', proc.stdout)
