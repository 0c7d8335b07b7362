"""Services refuse to start on configuration that cannot work.

The real console scripts with temporary configuration files: keystone
authentication with no usable [keystone_authtoken], a database or a
message broker on a port nothing listens on. Each exits 1 with one line
saying what to set, and no traceback.
"""

import os

import fixtures
from oslotest import base

from blazar_ext.tests.functional import services


class TestStartupChecks(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.Timeout(120, gentle=True))
        self.dir = self.useFixture(fixtures.TempDir()).path
        self.sqlite = 'sqlite:///%s' % os.path.join(self.dir, 'b.sqlite')
        self.nothing = services.free_port()

    def start(self, script: str, config: str):
        """Run ``script``; ``config`` starts in [DEFAULT]."""
        path = os.path.join(self.dir, 'blazar-ext.conf')
        with open(path, 'w') as f:
            f.write('[DEFAULT]\nstate_path = %s\nstartup_timeout = 1\n%s'
                    % (self.dir, config))
        ports = os.path.join(self.dir, 'ports.conf')
        with open(ports, 'w') as f:
            f.write('[api]\nhost = 127.0.0.1\nport = %d\n'
                    '[placement_api]\nhost = 127.0.0.1\nport = %d\n'
                    % (services.free_port(), services.free_port()))
        return services.run([services.script(script), '--config-file',
                             path, '--config-file', ports], timeout=90)

    def assertRefused(self, done, *phrases: str) -> None:
        output = done.stdout + done.stderr
        self.assertEqual(1, done.returncode, output)
        self.assertNotIn('Traceback', output)
        errors = [line for line in output.splitlines()
                  if 'Refusing to start' in line]
        self.assertEqual(1, len(errors), output)
        for phrase in phrases:
            self.assertIn(phrase, errors[0])

    # Keystone.

    KEYSTONE = ('transport_url = fake:/\n[database]\nconnection = %s\n'
                '[api]\nauth_strategy = keystone\n')

    def test_api_without_keystone_authtoken(self):
        self.assertRefused(
            self.start('blazar-ext-api', self.KEYSTONE % self.sqlite),
            '[keystone_authtoken]', 'auth_type', 'auth_url')

    def test_placement_api_without_keystone_authtoken(self):
        self.assertRefused(
            self.start('blazar-ext-placement-api',
                       self.KEYSTONE % self.sqlite),
            '[keystone_authtoken]', 'auth_type')

    def test_all_in_one_with_keystone_and_no_keystone_authtoken(self):
        self.assertRefused(
            self.start('blazar-ext-all-in-one',
                       self.KEYSTONE % self.sqlite),
            '[keystone_authtoken]', 'auth_type')

    def test_api_with_a_password_plugin_missing_its_options(self):
        self.assertRefused(
            self.start('blazar-ext-api', self.KEYSTONE % self.sqlite +
                       '[keystone_authtoken]\nauth_type = password\n'),
            'auth_type = password needs', 'auth_url')

    # Database.

    def unreachable_database(self) -> str:
        return ('mysql+pymysql://blazar:s3cret@127.0.0.1:%d/blazar_ext'
                % self.nothing)

    def test_api_with_unreachable_database(self):
        done = self.start('blazar-ext-api',
                          'transport_url = fake:/\n[database]\n'
                          'connection = %s\n[api]\nauth_strategy = noauth\n'
                          % self.unreachable_database())
        self.assertRefused(done, 'cannot reach the database',
                           '127.0.0.1:%d' % self.nothing, 'after 1s',
                           '[database] connection')
        self.assertNotIn('s3cret', done.stdout + done.stderr)

    def test_placement_api_with_unreachable_database(self):
        self.assertRefused(
            self.start('blazar-ext-placement-api',
                       '[database]\nconnection = %s\n[api]\n'
                       'auth_strategy = noauth\n'
                       % self.unreachable_database()),
            'cannot reach the database')

    def test_manager_with_unreachable_database(self):
        self.assertRefused(
            self.start('blazar-ext-manager',
                       'transport_url = fake:/\n[database]\n'
                       'connection = %s\n' % self.unreachable_database()),
            'cannot reach the database')

    # Message broker.

    def unreachable_broker(self) -> str:
        return ('transport_url = rabbit://guest:guest@127.0.0.1:%d/\n'
                '[database]\nconnection = %s\n'
                % (self.nothing, self.sqlite))

    def test_manager_with_unreachable_broker(self):
        self.assertRefused(
            self.start('blazar-ext-manager', self.unreachable_broker()),
            'cannot reach the message broker', 'transport_url',
            '127.0.0.1:%d' % self.nothing)

    def test_api_with_unreachable_broker(self):
        self.assertRefused(
            self.start('blazar-ext-api', self.unreachable_broker() +
                       '[api]\nauth_strategy = noauth\n'),
            'cannot reach the message broker')
