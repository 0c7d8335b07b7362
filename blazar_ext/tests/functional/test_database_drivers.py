"""A database driver that is not installed: the real console scripts end
with one line naming the extra that installs it, not a traceback.

The drivers are installed in the test environment, so a sitecustomize
module on PYTHONPATH hides them from each child process (``import
pymysql`` then fails as it does after a plain ``pip install``).
"""

import configparser
import os
import sys
from unittest import mock

import fixtures
import testtools

from blazar_ext.db import drivers
from blazar_ext.tests.functional import services

MYSQL = 'mysql+pymysql://blazar:secret@127.0.0.1/blazar_ext'
POSTGRESQL = 'postgresql+psycopg2://blazar:secret@127.0.0.1/blazar'
MYSQL_HINT = "pip install 'blazar-ext[mysql]'"
POSTGRESQL_HINT = "pip install 'blazar-ext[postgresql]'"


class TestMissingDriver(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path
        shim = os.path.join(self.dir, 'shim')
        os.mkdir(shim)
        with open(os.path.join(shim, 'sitecustomize.py'), 'w') as f:
            # None in sys.modules: "import pymysql" raises
            # ModuleNotFoundError, as when it is not installed.
            f.write('import sys\n'
                    "sys.modules['pymysql'] = None\n"
                    "sys.modules['psycopg2'] = None\n")
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith('OS_')}
        self.env['PYTHONPATH'] = os.pathsep.join(
            [shim] + [p for p in [os.environ.get('PYTHONPATH')] if p])
        self.config = os.path.join(self.dir, 'blazar-ext.conf')
        with open(self.config, 'w') as f:
            f.write('[DEFAULT]\nstate_path = %s\n[database]\nconnection = %s\n'
                    % (self.dir, MYSQL))

    def run_script(self, name: str, *args: str):
        return services.run([services.script(name), '--config-file',
                             self.config] + list(args), env=self.env)

    def assertOneLine(self, proc, hint: str, code: int = 1):
        output = proc.stdout + proc.stderr
        self.assertEqual(code, proc.returncode, output)
        self.assertNotIn('Traceback', output)
        lines = [line for line in output.splitlines() if hint in line]
        self.assertEqual(1, len(lines), output)
        self.assertIn('No database driver for', lines[0])
        # The password stays out of the message.
        self.assertNotIn('secret', output)

    def test_services_name_the_extra(self):
        for name, args in [('blazar-ext-api', ()),
                           ('blazar-ext-manager', ()),
                           ('blazar-ext-all-in-one', ()),
                           ('blazar-ext-placement-api', ()),
                           ('blazar-ext-db-manage', ('upgrade',)),
                           ('blazar-ext-manage', ('traits', 'sync'))]:
            proc = self.run_script(name, *args)
            self.assertOneLine(proc, MYSQL_HINT)
            self.assertIn('%s: No database driver for [database] '
                          'connection = mysql+pymysql://blazar:***@'
                          '127.0.0.1/blazar_ext: the Python module pymysql '
                          'is not installed' % name, proc.stderr)

    def test_wsgi_application_names_the_extra(self):
        """Importing the WSGI module, as uwsgi or gunicorn does."""
        env = dict(self.env, BLAZAR_EXT_CONFIG_FILE=self.config)
        for module in ('blazar_ext.wsgi.api', 'blazar_ext.wsgi.placement'):
            proc = services.run([sys.executable, '-c', 'import ' + module],
                                env=env)
            self.assertOneLine(proc, MYSQL_HINT)

    def test_import_blazar_names_the_source_extra(self):
        with open(self.config, 'w') as f:
            f.write('[DEFAULT]\nstate_path = %s\n' % self.dir)
        proc = self.run_script('blazar-ext-manage', 'import-blazar',
                               '--source-connection', POSTGRESQL,
                               '--dry-run')
        self.assertOneLine(proc, POSTGRESQL_HINT, code=2)
        self.assertIn('import-blazar: No database driver for '
                      '--source-connection', proc.stdout)

    def test_status_fails_the_database_check(self):
        proc = self.run_script('blazar-ext-status', 'upgrade', 'check')
        # A failed check (exit 2) in oslo.upgradecheck's table, which
        # wraps the message.
        self.assertEqual(2, proc.returncode, proc.stdout + proc.stderr)
        self.assertNotIn('Traceback', proc.stdout + proc.stderr)
        self.assertIn("'blazar-ext[mysql]'", proc.stdout)
        self.assertIn('No database driver for [database] connection',
                      proc.stdout)


class TestExtras(testtools.TestCase):

    def test_every_extra_named_is_declared_with_its_driver(self):
        setup_cfg = os.path.join(os.path.dirname(os.path.dirname(
            os.path.dirname(os.path.dirname(os.path.abspath(__file__))))),
            'setup.cfg')
        parser = configparser.ConfigParser()
        parser.read(setup_cfg)
        for driver, module, extra in drivers.EXTRAS.values():
            # PyMySQL installs pymysql; psycopg2-binary installs psycopg2.
            self.assertIn(module, parser['extras'][extra].lower())


class TestRequire(testtools.TestCase):
    """drivers.require in this process, for the URL shapes it meets."""

    def setUp(self):
        super().setUp()
        patcher = mock.patch.dict(sys.modules, pymysql=None, psycopg2=None)
        patcher.start()
        self.addCleanup(patcher.stop)

    def test_installed_or_unknown_urls_pass(self):
        for url in ('sqlite://', 'sqlite:////tmp/x.sqlite', 'nonsense',
                    'nosuchdialect://x/y'):
            self.assertIsNone(drivers.require(url), url)

    def test_missing_driver_names_the_option_and_the_extra(self):
        exc = self.assertRaises(drivers.MissingDriver, drivers.require,
                                'mysql+pymysql://u@h/d', 'here')
        self.assertIn('here = mysql+pymysql://u@h/d', str(exc))
        self.assertIn(MYSQL_HINT, str(exc))
        exc = self.assertRaises(drivers.MissingDriver, drivers.require,
                                'postgresql+psycopg2://u@h/d')
        self.assertIn(POSTGRESQL_HINT, str(exc))

    def test_another_driver_of_the_backend_is_named_with_the_extra(self):
        # SQLAlchemy 2.1's driver for a bare postgresql:// is psycopg 3.
        patcher = mock.patch.dict(sys.modules, psycopg=None)
        patcher.start()
        self.addCleanup(patcher.stop)
        exc = self.assertRaises(drivers.MissingDriver, drivers.require,
                                'postgresql://u@h/d')
        self.assertIn('the Python module psycopg is not installed', str(exc))
        self.assertIn('or use postgresql+psycopg2:// and ' + POSTGRESQL_HINT,
                      str(exc))
