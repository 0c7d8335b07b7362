"""tools/placement_conformance/run.py --database: every gabbi file on a
fresh database of a MariaDB/MySQL or PostgreSQL server, dropped after.

Bound to the two servers only (there is no server on SQLite); skipped with
the reason when the ``openstack_citest`` login of tools/test-setup.sh does
not work. Two small gabbi files of ours stand in for upstream's (run.py
takes the files already in its cache), so nothing is downloaded.
"""

import os
import subprocess
import sys
import threading

import fixtures
import sqlalchemy as sa

from blazar_ext.tests import base
from blazar_ext.tests import fixtures as blazar_fixtures
from blazar_ext.tests.functional import services

RUN = os.path.join(blazar_fixtures.TOOLS, 'placement_conformance', 'run.py')
GABBI_FILE = '''
fixtures:
    - AllocationFixture
defaults:
    request_headers:
        x-auth-token: admin
        accept: application/json
        openstack-api-version: placement latest
tests:
- name: standard traits were synced
  GET: /traits?name=in:HW_CPU_X86_AVX
  response_json_paths:
      $.traits: [HW_CPU_X86_AVX]
- name: the fixture's provider was made through the API
  GET: /resource_providers/$ENVIRON['RP_UUID']
  response_json_paths:
      $.name: $ENVIRON['RP_NAME']
'''
LIST_DATABASES = {
    'mysql': "SHOW DATABASES LIKE 'placement\\_conformance\\_%'",
    'postgresql': "SELECT datname FROM pg_database "
                  "WHERE datname LIKE 'placement\\_conformance\\_%'",
}


class _OnServer:
    BACKEND = ''

    def setUp(self):
        super().setUp()
        reason = services.database_unavailable(self.BACKEND)
        if reason:
            self.skipTest(reason)
        self.server_url = services.DATABASE_SERVER_URLS[self.BACKEND]
        self.engine = sa.create_engine(
            self.server_url, poolclass=sa.pool.NullPool,
            isolation_level='AUTOCOMMIT')
        self.addCleanup(self.engine.dispose)

    def _databases(self) -> set:
        with self.engine.connect() as conn:
            return set(conn.scalars(sa.text(LIST_DATABASES[self.BACKEND])))

    def _watch(self, seen: set, done: threading.Event) -> None:
        while not done.wait(0.1):
            seen |= self._databases()

    def test_each_file_on_a_fresh_database_dropped_after(self):
        cache = self.useFixture(fixtures.TempDir()).path
        os.mkdir(os.path.join(cache, 'gabbits'))
        for name in ('first.yaml', 'second.yaml'):
            with open(os.path.join(cache, 'gabbits', name), 'w') as out:
                out.write(GABBI_FILE)
        before = self._databases()
        seen, done = set(), threading.Event()
        watcher = threading.Thread(target=self._watch, args=(seen, done))
        watcher.start()
        try:
            proc = subprocess.run(
                [sys.executable, RUN, '--cache', cache, '--database',
                 self.server_url, '-v'],
                capture_output=True, text=True, timeout=300,
                env={k: v for k, v in os.environ.items()
                     if not k.startswith('OS_')})
        finally:
            done.set()
            watcher.join()
        self.assertEqual(0, proc.returncode, proc.stdout + proc.stderr)
        self.assertIn('TOTAL 4 of 4 passed', proc.stdout)
        # One database per file, each gone once its file ran.
        self.assertEqual(2, len(seen - before), seen)
        self.assertEqual(set(), (self._databases() - before) & seen)

    def test_an_unreachable_server_is_an_error_saying_so(self):
        url = sa.engine.make_url(self.server_url).set(port=1)
        proc = subprocess.run(
            [sys.executable, RUN, '--database',
             url.render_as_string(hide_password=False)],
            capture_output=True, text=True, timeout=120)
        self.assertEqual(2, proc.returncode)
        self.assertIn('cannot connect to', proc.stderr)


class TestConformanceToolMySQL(_OnServer, base.TestCase):
    BACKEND = 'mysql'


class TestConformanceToolPostgreSQL(_OnServer, base.TestCase):
    BACKEND = 'postgresql'
