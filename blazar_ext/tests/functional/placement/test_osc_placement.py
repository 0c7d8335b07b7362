"""osc-placement, unchanged, against a real HTTP server (cheroot): under
/placement of the whole API, and at the root of the placement family
alone (blazar-ext-placement-api's application)."""

import json
import os
import subprocess
import sys

import testtools

from blazar_ext.api import app as api_app
from blazar_ext.tests import base
from blazar_ext.tests import fixtures

OPENSTACK = os.path.join(os.path.dirname(sys.executable), 'openstack')


@testtools.skipUnless(os.path.exists(OPENSTACK), 'openstack CLI missing')
class TestOscPlacement(base.DBTestCase):

    # The WSGI application, and where in it the placement family is.
    BUILD = staticmethod(api_app.build)
    PREFIX = '/placement'

    def setUp(self):
        super().setUp()
        self.server = self.useFixture(fixtures.RealServerFixture(self.BUILD))

    def cli(self, *args, expect_ok=True):
        cmd = [OPENSTACK, '--os-auth-type', 'admin_token',
               '--os-endpoint', self.server.endpoint + self.PREFIX,
               '--os-token', 'admin',
               '--os-placement-api-version', '1.39'] + list(args)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith('OS_')}
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=120, env=env)
        if expect_ok:
            self.assertEqual(0, proc.returncode, proc.stderr)
        return proc

    def cli_json(self, *args):
        return json.loads(self.cli(*args, '-f', 'json').stdout)

    def test_traits_providers_and_candidates(self):
        self.cli('trait', 'create', 'CUSTOM_GPU')
        self.assertIn('CUSTOM_GPU', [t['name'] for t in self.cli_json(
            'trait', 'list', '--name', 'startswith:CUSTOM')])
        self.cli('trait', 'show', 'CUSTOM_GPU')

        plain = self.cli_json('resource', 'provider', 'create', 'plain')
        gpu = self.cli_json('resource', 'provider', 'create', 'gpu')
        for rp in (plain, gpu):
            self.cli('resource', 'provider', 'inventory', 'set', rp['uuid'],
                     '--resource', 'VCPU=8', '--resource', 'MEMORY_MB=4096')
        self.cli('resource', 'provider', 'trait', 'set', plain['uuid'],
                 '--trait', 'HW_CPU_X86_AVX')
        self.cli('resource', 'provider', 'trait', 'set', gpu['uuid'],
                 '--trait', 'HW_CPU_X86_AVX', '--trait', 'CUSTOM_GPU')
        listed = self.cli_json('resource', 'provider', 'trait', 'list',
                               gpu['uuid'])
        self.assertEqual({'CUSTOM_GPU', 'HW_CPU_X86_AVX'},
                         {t['name'] for t in listed})

        found = self.cli_json('resource', 'provider', 'list', '--required',
                              'HW_CPU_X86_AVX', '--forbidden', 'CUSTOM_GPU')
        self.assertEqual(['plain'], [rp['name'] for rp in found])

        candidates = self.cli_json('allocation', 'candidate', 'list',
                                   '--resource', 'VCPU=1',
                                   '--forbidden', 'CUSTOM_GPU')
        self.assertEqual({plain['uuid']},
                         {c['resource provider'] for c in candidates})

        # A trait in use cannot go; after unsetting it can.
        self.assertNotEqual(0, self.cli('trait', 'delete', 'CUSTOM_GPU',
                                        expect_ok=False).returncode)
        self.cli('resource', 'provider', 'trait', 'delete', gpu['uuid'])
        self.cli('trait', 'delete', 'CUSTOM_GPU')
        self.assertNotEqual(0, self.cli('trait', 'show', 'CUSTOM_GPU',
                                        expect_ok=False).returncode)


class TestOscPlacementAtRoot(TestOscPlacement):
    """The same commands against the family served alone at the root."""

    BUILD = staticmethod(api_app.build_placement)
    PREFIX = ''
