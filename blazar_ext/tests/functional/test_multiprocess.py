"""blazar-ext as separate processes: one blazar-ext-api and two
blazar-ext-manager processes over RabbitMQ, on MariaDB and on PostgreSQL.

The processes are the real console scripts, started with a generated
configuration file on a database made for the test; hosts go through them
over HTTP and through python-blazarclient's ``openstack reservation host``
commands. Each class skips with the reason when RabbitMQ or its database
does not answer (tools/test-setup.sh creates the database user).
"""

from concurrent import futures
import json
import socket
import time

import fixtures
from oslotest import base
import requests
import sqlalchemy as sa

from blazar_ext.db import migration
from blazar_ext.tests.functional import services

ADMIN = {'X-Auth-Token': 'admin'}


class _MultiProcessTests:
    """Tests shared by the database backends; subclasses set BACKEND."""

    BACKEND: str
    RPC_TIMEOUT = 20

    def setUp(self):
        super().setUp()
        # A hung process must not hang the run.
        self.useFixture(fixtures.Timeout(120, gentle=True))
        for reason in (services.rabbitmq_unavailable(),
                       services.database_unavailable(self.BACKEND)):
            if reason:
                self.skipTest(reason)
        self.deployment = self.useFixture(services.Deployment(
            self.BACKEND, managers=2, rpc_timeout=self.RPC_TIMEOUT))
        self.url = self.deployment.endpoint

    # HTTP helpers.

    def _request(self, method: str, path: str, body=None,
                 expected: int = 200, url: str | None = None
                 ) -> requests.Response:
        resp = requests.request(method, (url or self.url) + path, json=body,
                                headers=ADMIN, timeout=30)
        self.assertEqual(expected, resp.status_code,
                         '%s %s: %s' % (method, path, resp.text))
        return resp

    def _db_rows(self, name: str) -> dict:
        """The host's capabilities as stored in the real database."""
        engine = sa.create_engine(self.deployment.database.url,
                                  poolclass=sa.pool.NullPool)
        self.addCleanup(engine.dispose)
        query = sa.text(
            'SELECT c.capability_name, hc.capability_value '
            'FROM computehosts h '
            'JOIN computehost_extra_capabilities hc '
            '  ON hc.computehost_id = h.id '
            'JOIN extra_capabilities c ON c.id = hc.capability_id '
            'WHERE h.hypervisor_hostname = :name')
        with engine.connect() as conn:
            return dict(conn.execute(query, {'name': name}).all())

    def _assert_same_host(self, created: dict, shown: dict) -> None:
        timestamps = ('created_at', 'updated_at')
        self.assertEqual(
            {k: v for k, v in created.items() if k not in timestamps},
            {k: v for k, v in shown.items() if k not in timestamps})
        if self.BACKEND != 'mysql':
            # Known bug on MySQL: the create response carries the in-memory
            # created_at with microseconds, which DATETIME (no fractional
            # seconds) drops, so a later GET shows another value.
            self.assertEqual(created['created_at'], shown['created_at'])

    # CLI helpers.

    def _openstack(self, *args: str, expect_ok: bool = True):
        argv = [services.script('openstack'),
                '--os-auth-type', 'admin_token',
                '--os-endpoint', self.url + '/v1',
                '--os-token', 'admin',
                'reservation', 'host'] + list(args)
        result = services.run(argv, env=self.deployment.env)
        if expect_ok:
            self.assertEqual(0, result.returncode,
                             '%s\nstdout: %s\nstderr: %s'
                             % (' '.join(args), result.stdout,
                                result.stderr))
        return result

    def _openstack_json(self, *args: str):
        result = self._openstack(*args, '-f', 'json')
        # blazarclient prints "Created a new host:" before the document.
        start = min((i for i in (result.stdout.find('{'),
                                 result.stdout.find('['))
                     if i >= 0), default=0)
        try:
            return json.loads(result.stdout[start:])
        except ValueError:
            self.fail('%s printed no JSON\nstdout: %s\nstderr: %s'
                      % (' '.join(args), result.stdout, result.stderr))


class _HostTests(_MultiProcessTests):
    """Hosts through the API and managers, for each backend."""

    def test_hosts_over_http(self):
        # blazar-ext-db-manage upgraded the fresh database to head.
        result = self.deployment.db_manage('version')
        self.assertEqual(0, result.returncode, result.stderr)
        # The revision is the last line; logging may come before it.
        self.assertEqual(migration.head(),
                         result.stdout.strip().splitlines()[-1])

        created = self._request(
            'POST', '/v1/os-hosts',
            {'name': 'mp-host-1', 'vcpus': 8, 'memory_mb': 16384,
             'local_gb': 200, 'gpu': True, 'rack': 'r1'},
            expected=201).json()['host']
        self.assertEqual('mp-host-1', created['hypervisor_hostname'])
        self.assertEqual(8, created['vcpus'])
        self.assertEqual('true', created['gpu'])
        # The manager wrote it to the real database.
        self.assertEqual({'gpu': 'true', 'rack': 'r1'},
                         self._db_rows('mp-host-1'))
        other = self._request('POST', '/v1/os-hosts', {'name': 'mp-host-2'},
                              expected=201).json()['host']

        # A manager-side error crosses RabbitMQ as the right status.
        resp = self._request('POST', '/v1/os-hosts', {'name': 'mp-host-1'},
                             expected=409)
        self.assertIn('mp-host-1', resp.json()['error_message'])

        listed = self._request('GET', '/v1/os-hosts').json()['hosts']
        self.assertEqual(['mp-host-1', 'mp-host-2'],
                         sorted(h['hypervisor_hostname'] for h in listed))
        shown = self._request('GET', '/v1/os-hosts/%s' % created['id'])
        shown = shown.json()['host']
        self._assert_same_host(created, shown)

        updated = self._request(
            'PUT', '/v1/os-hosts/%s' % created['id'],
            {'gpu': None, 'rack': 'r2', 'nic': 25}).json()['host']
        self.assertNotIn('gpu', updated)
        self.assertEqual('r2', updated['rack'])
        self.assertEqual('25', updated['nic'])
        self.assertEqual({'rack': 'r2', 'nic': '25'},
                         self._db_rows('mp-host-1'))

        # With one manager gone the other one serves every call.
        first, second = self.deployment.managers
        # SIGTERM stops a manager cleanly, not by the SIGKILL that follows
        # a few seconds later.
        self.assertEqual(0, first.stop())
        for value in ('r3', 'r4', 'r5'):
            self._request('PUT', '/v1/os-hosts/%s' % created['id'],
                          {'rack': value})
        self.assertTrue(second.running())
        self.assertEqual('r5', self._db_rows('mp-host-1')['rack'])

        for host in (created, other):
            self._request('DELETE', '/v1/os-hosts/%s' % host['id'],
                          expected=204)
            self._request('GET', '/v1/os-hosts/%s' % host['id'],
                          expected=404)
        self.assertEqual(
            [], self._request('GET', '/v1/os-hosts').json()['hosts'])

    def test_hosts_with_openstack_cli(self):
        created = self._openstack_json(
            'create', '--extra', 'gpu=true', '--extra', 'rack=r1',
            'cli-host-1')
        self.assertEqual('cli-host-1', created['hypervisor_hostname'])
        self.assertEqual('true', created['gpu'])

        # Read-only, so run side by side: the CLI takes seconds to start.
        with futures.ThreadPoolExecutor(2) as pool:
            listing = pool.submit(self._openstack_json, 'list')
            showing = pool.submit(self._openstack_json, 'show', 'cli-host-1')
            listed, shown = listing.result(), showing.result()
        self.assertEqual([created['id']],
                         [str(h['id']) for h in listed
                          if h['hypervisor_hostname'] == 'cli-host-1'])
        self.assertEqual(created['id'], shown['id'])
        self.assertEqual('r1', shown['rack'])

        self._openstack('set', '--extra', 'rack=r2', '--extra', 'nic=25',
                        'cli-host-1')
        # Checked over HTTP and in the database: the CLI takes seconds to
        # start and its reads were covered above.
        shown = self._request('GET', '/v1/os-hosts/%s' % created['id'])
        self.assertEqual('r2', shown.json()['host']['rack'])
        self.assertEqual('25', shown.json()['host']['nic'])
        self.assertEqual({'gpu': 'true', 'rack': 'r2', 'nic': '25'},
                         self._db_rows('cli-host-1'))

        self._openstack('delete', 'cli-host-1')
        self._request('GET', '/v1/os-hosts/%s' % created['id'], expected=404)
        self.assertEqual({}, self._db_rows('cli-host-1'))


class TestMultiProcessMySQL(_HostTests, base.BaseTestCase):
    BACKEND = 'mysql'


class TestMultiProcessPostgreSQL(_HostTests, base.BaseTestCase):
    BACKEND = 'postgresql'


class _InstanceTests(_MultiProcessTests):
    """virtual:instance leases raced through two managers."""

    def test_two_managers_never_overcommit_a_host(self):
        for i in range(3):
            self._request('POST', '/v1/os-hosts',
                          {'name': 'slot-host-%d' % i, 'vcpus': 8,
                           'memory_mb': 65536, 'local_gb': 500},
                          expected=201)
        now = time.time()

        def date(minutes: int) -> str:
            return time.strftime('%Y-%m-%d %H:%M',
                                 time.gmtime(now + 60 * minutes))

        def create(i: int) -> int:
            # Windows that overlap in several ways; 4 VCPU each.
            start = 60 + 10 * (i % 4)
            body = {'name': 'race-%d' % i, 'start_date': date(start),
                    'end_date': date(start + 30),
                    'reservations': [{
                        'resource_type': 'virtual:instance', 'amount': 1,
                        'vcpus': 4, 'memory_mb': 1024, 'disk_gb': 10,
                        'affinity': None}]}
            return requests.post(self.url + '/v1/leases', headers=ADMIN,
                                 timeout=60, json=body).status_code

        with futures.ThreadPoolExecutor(8) as pool:
            statuses = list(pool.map(create, range(16)))
        self.assertEqual(set(), set(statuses) - {201, 409}, statuses)
        self.assertGreaterEqual(statuses.count(201), 6, statuses)
        # No host holds more than its 8 VCPU at any moment.
        engine = sa.create_engine(self.deployment.database.url,
                                  poolclass=sa.pool.NullPool)
        self.addCleanup(engine.dispose)
        with engine.connect() as conn:
            rows = conn.execute(sa.text(
                'SELECT compute_host_id, start_date, end_date, '
                'slots * vcpus FROM instance_allocations')).all()
        self.assertEqual(statuses.count(201), len(rows))
        for host_id in {r[0] for r in rows}:
            mine = [r for r in rows if r[0] == host_id]
            for _h, at, _e, _v in mine:
                used = sum(v for _h2, s, e, v in mine if s <= at < e)
                self.assertLessEqual(used, 8, (host_id, at, mine))


class TestInstancesMySQL(_InstanceTests, base.BaseTestCase):
    BACKEND = 'mysql'


class TestInstancesPostgreSQL(_InstanceTests, base.BaseTestCase):
    BACKEND = 'postgresql'


class TestMultiProcessFailures(_MultiProcessTests, base.BaseTestCase):
    """Broker and manager trouble reach the client as 503, not a hang.

    One backend is enough: the database plays no part here.
    """

    BACKEND = 'postgresql'
    RPC_TIMEOUT = 3

    def test_no_manager_is_503(self):
        host = self._request('POST', '/v1/os-hosts', {'name': 'f-host'},
                             expected=201).json()['host']
        for manager in self.deployment.managers:
            self.assertEqual(0, manager.stop())
        resp = self._request('PUT', '/v1/os-hosts/%s' % host['id'],
                             {'rack': 'r1'}, expected=503)
        self.assertIn('manager', resp.json()['error_message'])
        # Reads do not need the manager.
        self._request('GET', '/v1/os-hosts/%s' % host['id'])

    def test_unreachable_broker_is_503(self):
        # The API checks at start that its broker's port answers (see
        # test_startup_checks); a listener stands in for it until the API
        # serves, then the port answers no more: the broker went down.
        broker = socket.create_server(('127.0.0.1', 0))
        with broker:
            _, endpoint = self.deployment.start_api(
                'api-no-broker',
                '[DEFAULT]\ntransport_url = '
                'rabbit://guest:guest@127.0.0.1:%d/\n'
                '[manager]\nrpc_timeout = 3\n' % broker.getsockname()[1])
        started = time.monotonic()
        resp = self._request('POST', '/v1/os-hosts', {'name': 'f-host'},
                             expected=503, url=endpoint)
        self.assertLess(time.monotonic() - started, 15)
        self.assertIn('manager', resp.json()['error_message'])
        self._request('GET', '/v1/os-hosts', url=endpoint)

    def test_processes_exit_cleanly_on_sigterm(self):
        # After some work, as in production: right at start-up a manager
        # has not installed its SIGTERM handler yet.
        self._request('POST', '/v1/os-hosts', {'name': 'f-host'},
                      expected=201)
        self.deployment.terminate_all()
        for process in [self.deployment.api] + self.deployment.managers:
            self.assertEqual(0, process.stop(), process.name)
