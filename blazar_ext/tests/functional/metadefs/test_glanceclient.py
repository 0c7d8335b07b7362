"""python-glanceclient's md-* commands against a real HTTP server.

The API runs in this process under cheroot on an ephemeral port (noauth:
the token "admin" is an admin); the glance CLI runs as a subprocess.
"""

import json
import os
import subprocess
import sys
import threading

from cheroot import wsgi
import fixtures
import testtools

from blazar_ext.api import app as api_app
from blazar_ext.api.metadefs import versions
from blazar_ext.api.middleware import dispatch
from blazar_ext.tests import fixtures as blazar_fixtures

GLANCE = os.path.join(os.path.dirname(sys.executable), 'glance')


class TestGlanceClient(testtools.TestCase):

    def setUp(self):
        super().setUp()
        if not os.path.exists(GLANCE):
            self.skipTest('python-glanceclient is not installed')
        self.useFixture(blazar_fixtures.ConfFixture())
        self.useFixture(blazar_fixtures.DatabaseFixture())
        app = api_app.build(blazar_fixtures.CONF)
        # What the glance CLI asks first when no API version is given.
        app = dispatch.PrefixDispatcher(app, [('/versions', versions.app,
                                               False)])
        server = wsgi.Server(('127.0.0.1', 0), app, numthreads=4)
        server.prepare()
        self.port = server.bind_addr[1]
        thread = threading.Thread(target=server.serve, daemon=True)
        thread.start()
        self.addCleanup(thread.join, 10)
        self.addCleanup(server.stop)
        # glanceclient caches schemas under ~/.glanceclient.
        self.home = self.useFixture(fixtures.TempDir()).path

    def glance(self, *args: str, ok: bool = True,
               version: bool = True, token: str = 'admin') -> str:
        # --os-image-api-version 2 skips the CLI's GET /versions.
        cmd = [GLANCE] + (['--os-image-api-version', '2'] if version else [])
        cmd += ['--os-image-url', 'http://127.0.0.1:%d' % self.port,
                '--os-auth-token', token] + list(args)
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=60,
                              env=dict(os.environ, HOME=self.home))
        if ok:
            self.assertEqual(0, proc.returncode,
                             '%s\n%s%s' % (cmd, proc.stdout, proc.stderr))
        else:
            self.assertNotEqual(0, proc.returncode, proc.stdout)
            return proc.stderr
        return proc.stdout

    def test_namespace_lifecycle(self):
        self.assertNotIn('hosts', self.glance('md-namespace-list'))
        out = self.glance('md-namespace-create', 'hosts', '--display-name',
                          'Hosts', '--visibility', 'public')
        self.assertIn('| visibility   | public', out)
        out = self.glance('md-namespace-show', 'hosts')
        self.assertIn('| display_name | Hosts', out)
        out = self.glance('md-namespace-update', 'hosts', '--display-name',
                          'Reservable hosts')
        self.assertIn('Reservable hosts', out)
        self.assertIn('hosts', self.glance('md-namespace-list'))
        self.glance('md-namespace-delete', 'hosts')
        err = self.glance('md-namespace-show', 'hosts', ok=False)
        self.assertIn('Metadata definition namespace hosts was not found',
                      err)

    def test_user_project_token(self):
        # glanceclient sends the token percent-encoded (alice%3Aproj-a);
        # under noauth it acts as alice in proj-a, as from other clients.
        self.glance('md-namespace-create', 'pub', '--visibility', 'public')
        self.glance('md-namespace-create', 'priv')
        out = self.glance('md-namespace-list', token='alice:proj-a')
        self.assertIn('pub', out)
        self.assertNotIn('priv', out)
        err = self.glance('md-namespace-create', 'mine', ok=False,
                          token='alice:proj-a')
        self.assertIn('Policy does not allow add_metadef_namespace', err)

    def test_properties_objects_and_associations(self):
        self.glance('md-namespace-create', 'hw')
        schema = {'type': 'array', 'operators': ['<or>', '<all-in>'],
                  'items': {'type': 'string', 'enum': ['aes', 'avx']}}
        out = self.glance('md-property-create', 'hw', '--name', 'features',
                          '--title', 'Features', '--type', 'array',
                          '--schema', json.dumps(schema))
        self.assertIn('["<or>", "<all-in>"]', out)
        out = self.glance('md-property-show', 'hw', 'features')
        self.assertIn('| operators', out)
        self.assertIn('["<or>", "<all-in>"]', out)
        out = self.glance('md-property-list', 'hw')
        self.assertIn('| features | Features | array |', out)

        obj = {'description': 'Accelerators', 'required': ['gpu'],
               'properties': {'gpu': {'title': 'GPU', 'type': 'string',
                                      'operators': ['<or>']}}}
        out = self.glance('md-object-create', 'hw', '--name', 'Accel',
                          '--schema', json.dumps(obj))
        self.assertIn('Accelerators', out)
        out = self.glance('md-object-show', 'hw', 'Accel')
        self.assertIn('["gpu"]', out)

        out = self.glance('md-resource-type-associate', 'hw', '--name',
                          'OS::Blazar::Host', '--prefix', 'cpu_info:')
        self.assertIn('cpu_info:', out)
        self.assertIn('OS::Blazar::Host',
                      self.glance('md-resource-type-list'))
        out = self.glance('md-namespace-resource-type-list', 'hw')
        self.assertIn('| OS::Blazar::Host | cpu_info: |', out)

    def test_object_update_keeps_a_required_property_gone(self):
        # md-object-update merges the fetched object (required: [gpu])
        # with the new schema, which no longer defines gpu: Glance
        # accepts that, and so must we.
        self.glance('md-namespace-create', 'acc')
        obj = {'required': ['gpu'], 'properties': {
            'gpu': {'title': 'GPU', 'type': 'string'}}}
        self.glance('md-object-create', 'acc', '--name', 'Accel',
                    '--schema', json.dumps(obj))
        new = {'properties': {'fpga': {'title': 'FPGA', 'type': 'string'}}}
        out = self.glance('md-object-update', 'acc', 'Accel', '--schema',
                          json.dumps(new))
        self.assertIn('fpga', out)
        shown = self.glance('md-object-show', 'acc', 'Accel')
        self.assertIn('["gpu"]', shown)
        self.assertIn('fpga', shown)

    def test_property_list_in_creation_order_with_glance_defaults(self):
        self.glance('md-namespace-create', 'ordered')
        for name in ('zeta', 'alpha', 'mid'):
            self.glance('md-property-create', 'ordered', '--name', name,
                        '--title', name.title(), '--type', 'string',
                        '--schema', json.dumps({
                            'type': 'string', 'title': name.title(),
                            'default': 100}))
        out = self.glance('md-property-list', 'ordered')
        rows = [line.split('|')[1].strip() for line in out.splitlines()
                if line.startswith('| ') and 'name' not in line.lower()]
        self.assertEqual(['zeta', 'alpha', 'mid'], rows)
        out = self.glance('md-property-show', 'ordered', 'zeta')
        # Glance keeps the default as text: "100", not 100.
        self.assertIn('| default     | 100', out)

    def test_namespace_import(self):
        definition = {
            'namespace': 'imported', 'visibility': 'public',
            'properties': {'p': {'title': 'P', 'type': 'string',
                                 'operators': ['<or>']}},
            'objects': [{'name': 'O', 'properties': {
                'q': {'title': 'Q', 'type': 'integer', 'minimum': 1}}}],
            'resource_type_associations': [{'name': 'OS::Blazar::Host',
                                            'prefix': 'x_'}],
            'tags': [{'name': 't'}],
        }
        path = os.path.join(self.home, 'imported.json')
        with open(path, 'w') as f:
            json.dump(definition, f)
        out = self.glance('md-namespace-import', '--file', path)
        self.assertIn('| properties                 | ["p"]', out)
        out = self.glance('md-namespace-show', 'imported',
                          '--resource-type', 'OS::Blazar::Host')
        self.assertIn('["x_p"]', out)

    def test_unchanged_invocation_with_versions_mounted(self):
        self.glance('md-namespace-create', 'plain', version=False)
        out = self.glance('md-namespace-list', version=False)
        self.assertIn('| plain', out)

    def test_errors_are_readable(self):
        err = self.glance('md-property-show', 'nope', 'p', ok=False)
        self.assertIn('Metadata definition namespace nope was not found',
                      err)
        self.glance('md-namespace-create', 'dup')
        err = self.glance('md-namespace-create', 'dup', ok=False)
        self.assertIn('A namespace named dup already exists', err)
