"""blazar-ext-status upgrade check: each check in process, then the
console script's exit codes and table against a configuration file."""

import os
import socket
import subprocess

import fixtures
from oslo_config import cfg
from oslo_db.sqlalchemy import engines
from oslo_policy import opts as policy_opts
from oslo_upgradecheck import upgradecheck
import sqlalchemy as sa

from blazar_ext.cmd import startup
from blazar_ext.cmd import status
from blazar_ext.conf import api as conf_api
from blazar_ext.db import migration
from blazar_ext.db import session as db_session
from blazar_ext.tests import base
from blazar_ext.tests.functional import services

Code = upgradecheck.Code


class _StatusTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.conf.register_opts(policy_opts._options,
                                group=policy_opts._option_group)
        self.checks = status.Checks()

    def use_database(self, revision: str | None) -> sa.engine.Engine:
        """A SQLite database at ``revision`` (None: empty), where the
        default [database] connection for state_path = self.tmp finds it."""
        url = 'sqlite:///%s' % os.path.join(self.tmp, 'blazar_ext.sqlite')
        engine = engines.create_engine(url)
        self.addCleanup(engine.dispose)
        if revision is not None:
            migration.upgrade(revision, engine)
        self.conf.set_override('connection', url, group='database')
        self.addCleanup(db_session.context_manager.patch_engine(engine))
        return engine


class TestDatabaseCheck(_StatusTestCase):

    def test_at_head_succeeds(self):
        self.use_database('head')
        result = self.checks._check_database()
        self.assertEqual(Code.SUCCESS, result.code, result.details)
        self.assertIn(migration.head(), result.details)

    def test_behind_head_fails(self):
        self.use_database('0005')
        result = self.checks._check_database()
        self.assertEqual(Code.FAILURE, result.code)
        self.assertIn('0005', result.details)
        self.assertIn(migration.head(), result.details)
        self.assertIn('blazar-ext-db-manage', result.details)

    def test_empty_database_fails(self):
        self.use_database(None)
        result = self.checks._check_database()
        self.assertEqual(Code.FAILURE, result.code)
        self.assertIn('no schema', result.details)

    def test_revision_from_newer_code_fails(self):
        engine = self.use_database('head')
        with engine.begin() as conn:
            conn.execute(sa.text(
                "UPDATE alembic_version SET version_num = 'f00d'"))
        result = self.checks._check_database()
        self.assertEqual(Code.FAILURE, result.code)
        self.assertIn('f00d', result.details)
        self.assertIn('does not know', result.details)

    def test_unreachable_database_fails_without_password(self):
        url = ('mysql+pymysql://blazar:s3cret@127.0.0.1:1/blazar_ext'
               '?connect_timeout=1')
        engine = engines.create_engine(url, max_retries=0)
        self.addCleanup(engine.dispose)
        self.addCleanup(db_session.context_manager.patch_engine(engine))
        self.conf.set_override('connection', url, group='database')
        result = self.checks._check_database()
        self.assertEqual(Code.FAILURE, result.code)
        self.assertIn('Cannot read the schema revision', result.details)
        self.assertNotIn('s3cret', result.details)


class TestKeystoneCheck(_StatusTestCase):

    def setUp(self):
        super().setUp()
        self.conf.set_override('auth_strategy', 'keystone', group='api')

    def authtoken(self, **options) -> None:
        for name, value in options.items():
            self.conf.set_override(name, value, group='keystone_authtoken')

    def test_noauth_needs_nothing(self):
        self.conf.set_override('auth_strategy', 'noauth', group='api')
        result = self.checks._check_keystone()
        self.assertEqual(Code.SUCCESS, result.code, result.details)

    def test_no_auth_type_fails(self):
        result = self.checks._check_keystone()
        self.assertEqual(Code.FAILURE, result.code)
        self.assertIn('auth_type', result.details)

    def test_password_plugin_without_auth_url_fails(self):
        conf = self.private_conf(auth_type='password')
        problem = startup.keystone_problem(conf)
        self.assertIn('auth_type = password needs', problem)
        self.assertIn('auth_url', problem)

    def private_conf(self, **options) -> cfg.ConfigOpts:
        """A configuration of its own: an auth plugin's options (auth_url
        is required) must not stay registered on the tests' CONF."""
        conf = cfg.ConfigOpts()
        conf_api.register_opts(conf)
        conf([], project='blazar-ext', default_config_files=[])
        conf.set_override('auth_strategy', 'keystone', group='api')
        startup.keystone_problem(conf)  # registers the options
        for name, value in options.items():
            conf.set_override(name, value, group='keystone_authtoken')
        return conf

    def test_usable_configuration_passes(self):
        conf = self.private_conf(auth_type='password')
        startup.keystone_problem(conf)  # and the plugin's
        for name, value in dict(
                auth_url='http://keystone.example:5000/v3',
                username='blazar', password='secret',
                project_name='service', user_domain_name='Default',
                project_domain_name='Default').items():
            conf.set_override(name, value, group='keystone_authtoken')
        self.assertIsNone(startup.keystone_problem(conf))

    def test_unknown_auth_type_fails(self):
        conf = self.private_conf(auth_type='no-such-plugin')
        self.assertIn('no-such-plugin', startup.keystone_problem(conf))


class TestConnectionChecks(_StatusTestCase):

    def test_reachable_database_succeeds(self):
        self.use_database('head')
        result = self.checks._check_database_connection()
        self.assertEqual(Code.SUCCESS, result.code, result.details)

    def test_unreachable_database_fails_at_once(self):
        self.conf.set_override(
            'connection', 'postgresql+psycopg2://blazar:s3cret@127.0.0.1:'
            '%d/blazar_ext' % services.free_port(), group='database')
        result = self.checks._check_database_connection()
        self.assertEqual(Code.FAILURE, result.code)
        self.assertIn('Cannot reach the database', result.details)
        self.assertNotIn('s3cret', result.details)

    def test_fake_transport_needs_no_broker(self):
        self.conf.set_override('transport_url', 'fake:/')
        result = self.checks._check_broker()
        self.assertEqual(Code.SUCCESS, result.code, result.details)

    def test_unreachable_broker_fails(self):
        port = services.free_port()
        self.conf.set_override(
            'transport_url', 'rabbit://guest:guest@127.0.0.1:%d/' % port)
        result = self.checks._check_broker()
        self.assertEqual(Code.FAILURE, result.code)
        self.assertIn('127.0.0.1:%d' % port, result.details)

    def test_one_reachable_broker_host_succeeds(self):
        with socket.create_server(('127.0.0.1', 0)) as broker:
            ports = (services.free_port(), broker.getsockname()[1])
            self.conf.set_override(
                'transport_url', 'rabbit://guest:guest@127.0.0.1:%d,'
                'guest:guest@127.0.0.1:%d/' % ports)
            result = self.checks._check_broker()
        self.assertEqual(Code.SUCCESS, result.code, result.details)


class TestPolicyFileCheck(_StatusTestCase):

    def write(self, name: str, text: str) -> str:
        path = os.path.join(self.tmp, name)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def check(self, policy_file: str):
        self.conf.set_override('policy_file', policy_file,
                               group='oslo_policy')
        return self.checks._check_policy_file()

    def test_no_policy_file_by_default_succeeds(self):
        result = self.checks._check_policy_file()
        self.assertEqual(Code.SUCCESS, result.code, result.details)
        self.assertIn('defaults in code', result.details)

    def test_configured_file_missing_fails(self):
        result = self.check(os.path.join(self.tmp, 'missing.yaml'))
        self.assertEqual(Code.FAILURE, result.code)
        self.assertIn('missing.yaml', result.details)

    def test_configured_file_unreadable_fails(self):
        path = os.path.join(self.tmp, 'a-directory.yaml')
        os.mkdir(path)
        result = self.check(path)
        self.assertEqual(Code.FAILURE, result.code)
        self.assertIn('Cannot read', result.details)

    def test_unparsable_file_fails(self):
        path = self.write('policy.yaml', '"blazar:leases:get": [unclosed\n')
        result = self.check(path)
        self.assertEqual(Code.FAILURE, result.code)
        self.assertIn('cannot be parsed', result.details)

    def test_file_not_a_mapping_fails(self):
        path = self.write('policy.yaml', '- a list\n- of rules\n')
        result = self.check(path)
        self.assertEqual(Code.FAILURE, result.code)
        self.assertIn('mapping', result.details)

    def test_yaml_file_succeeds(self):
        path = self.write('policy.yaml', '"admin_api": "role:admin"\n')
        result = self.check(path)
        self.assertEqual(Code.SUCCESS, result.code, result.details)
        self.assertIn('1 rules', result.details)

    def test_json_file_warns(self):
        path = self.write('policy.json', '{"admin_api": "role:admin"}')
        result = self.check(path)
        self.assertEqual(Code.WARNING, result.code, result.details)
        self.assertIn('oslopolicy-convert-json-to-yaml', result.details)


class TestEnforcementFiltersCheck(_StatusTestCase):

    def test_default_filters_succeed(self):
        result = self.checks._check_enforcement_filters()
        self.assertEqual(Code.SUCCESS, result.code, result.details)
        self.assertIn('MaximumReservationLengthFilter', result.details)

    def test_unknown_filter_fails(self):
        self.conf.set_override('enabled_filters', ['NoSuchFilter'],
                               group='enforcement')
        result = self.checks._check_enforcement_filters()
        self.assertEqual(Code.FAILURE, result.code)
        self.assertIn('NoSuchFilter', result.details)

    def test_unimportable_filter_path_fails(self):
        self.conf.set_override('available_filters',
                               ['blazar_ext.no_such_module.Filter'],
                               group='enforcement')
        result = self.checks._check_enforcement_filters()
        self.assertEqual(Code.FAILURE, result.code)
        self.assertIn('blazar_ext.no_such_module', result.details)

    def test_no_filters_succeeds(self):
        self.conf.set_override('enabled_filters', [], group='enforcement')
        result = self.checks._check_enforcement_filters()
        self.assertEqual(Code.SUCCESS, result.code, result.details)
        self.assertIn('none', result.details)


class TestStatusCommand(_StatusTestCase):
    """The console script as an operator runs it."""

    def run_status(self, extra: str = '',
                   options: tuple = ()) -> subprocess.CompletedProcess:
        conf_file = os.path.join(self.tmp, 'blazar-ext.conf')
        with open(conf_file, 'w') as f:
            f.write('[DEFAULT]\nstate_path = %s\n%s' % (self.tmp, extra))
        return subprocess.run(
            [os.path.join(services.BIN_DIR, 'blazar-ext-status'),
             '--config-file', conf_file] + list(options)
            + ['upgrade', 'check'],
            capture_output=True, text=True, timeout=120,
            env=dict(os.environ, PYTHONWARNINGS='ignore'))

    def test_all_good_exits_0(self):
        self.use_database('head')
        done = self.run_status('transport_url = fake:/\n'
                               '[api]\nauth_strategy = noauth\n')
        self.assertEqual(0, done.returncode, done.stdout + done.stderr)
        self.assertEqual(6, done.stdout.count('Result: Success'),
                         done.stdout)

    def test_all_in_one_checks_its_embedded_defaults(self):
        self.use_database('head')
        # Without the option the defaults of separate processes apply:
        # Keystone (unconfigured here), and RabbitMQ.
        done = self.run_status()
        self.assertEqual(2, done.returncode, done.stdout + done.stderr)
        self.assertIn('auth_type', done.stdout)
        done = self.run_status(options=('--all-in-one',))
        self.assertEqual(0, done.returncode, done.stdout + done.stderr)
        self.assertIn('transport_url is fake://', done.stdout)
        self.assertEqual(6, done.stdout.count('Result: Success'),
                         done.stdout)

    def test_keystone_without_www_authenticate_uri_warns(self):
        self.use_database('head')
        done = self.run_status(
            'transport_url = fake:/\n[keystone_authtoken]\n'
            'auth_type = password\nauth_url = http://keystone.example/v3\n'
            'username = blazar\npassword = secret\nproject_name = service\n'
            'user_domain_name = Default\nproject_domain_name = Default\n')
        self.assertEqual(1, done.returncode, done.stdout + done.stderr)
        self.assertIn('Result: Warning', done.stdout)
        self.assertIn('www_authenticate_uri', done.stdout)

    def test_unusable_keystone_and_unreachable_broker_exit_2(self):
        self.use_database('head')
        done = self.run_status('transport_url = rabbit://guest:guest@'
                               '127.0.0.1:%d/\n' % services.free_port())
        self.assertEqual(2, done.returncode, done.stdout + done.stderr)
        self.assertEqual(2, done.stdout.count('Result: Failure'),
                         done.stdout)
        self.assertIn('auth_type', done.stdout)
        self.assertIn('message broker', done.stdout)

    def test_database_not_at_head_exits_2(self):
        self.use_database('0004')
        done = self.run_status()
        self.assertEqual(2, done.returncode, done.stdout + done.stderr)
        self.assertIn('Result: Failure', done.stdout)
        self.assertIn('0004', done.stdout)

    def test_bad_filter_name_exits_2(self):
        self.use_database('head')
        done = self.run_status('[enforcement]\n'
                               'enabled_filters = NoSuchFilter\n')
        self.assertEqual(2, done.returncode, done.stdout + done.stderr)
        self.assertIn('NoSuchFilter', done.stdout)
