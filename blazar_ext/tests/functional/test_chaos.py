"""Faults and contention that CI time allows; tools/chaos/ has the long
versions (hundreds of requests, killed managers, failing services).
"""

import collections
from concurrent import futures
import datetime
import logging
import os
import random
import shutil
import signal
import socket
import tempfile
import threading
from unittest import mock

import fixtures
import kombu.exceptions
from oslo_db.sqlalchemy import engines
from oslo_db.sqlalchemy import provision
from oslo_db.sqlalchemy import test_fixtures
from oslotest import base
import requests
import sqlalchemy as sa

from blazar_ext import context as blazar_context
from blazar_ext.db.api import lease as lease_api
from blazar_ext.db import migration
from blazar_ext.db import models  # noqa: F401 (registers every table)
from blazar_ext.db.models import base as models_base
from blazar_ext.db import session as db_session
from blazar_ext.enforcement.filters import external_service
from blazar_ext import exceptions
from blazar_ext.plugins import loader
from blazar_ext import rpc
from blazar_ext.rpc import manager_client
from blazar_ext.tests import base as blazar_base
from blazar_ext.tests import fixtures as blazar_fixtures
from blazar_ext.tests.functional.enforcement import fixtures as efixtures
from blazar_ext.tests.functional import services
from blazar_ext.tests.unit.enforcement import base as enforcement_base


class _PostgreSQLFixture(test_fixtures.OpportunisticDbFixture):
    """A PostgreSQL database for the service's own enginefacade."""

    DRIVER = 'postgresql'

    def get_enginefacade(self):
        return db_session.context_manager


class TestLeaseReadIsOneSnapshot(test_fixtures.OpportunisticDBTestMixin,
                                 base.BaseTestCase):
    """A lease deleted while it is being read is read whole or not at all.

    Under READ COMMITTED each query sees what committed before it: the
    lease row, then no reservations. An update racing a delete then failed
    validation with a 400 instead of a 404 (tools/chaos/ha_leases.py).
    """

    FIXTURE = _PostgreSQLFixture

    def setUp(self):
        super().setUp()
        engine = db_session.get_engine()
        backend = provision.Backend(engine.name, engine.url)
        self.addCleanup(backend.drop_all_objects, engine)
        models_base.BASE.metadata.create_all(engine)

    def test_delete_between_the_queries_of_a_read(self):
        context = blazar_context.get_admin_context()
        start = datetime.datetime(2030, 1, 1, 0, 0)
        plugin = loader.get().get('physical:host')
        with db_session.writer.using(context) as session:
            lease_api.lease_insert(session, {
                'id': 'lease-1', 'name': 'l1', 'start_date': start,
                'end_date': start + datetime.timedelta(hours=1),
                'status': 'PENDING'})
            reservation_id = lease_api.reservation_insert(
                session, 'lease-1', 'physical:host', 'pending')
            plugin.add_detail(session, reservation_id, plugin.normalize(
                {'min': 1, 'max': 1}))
            lease_api.set_events(session, 'lease-1', [
                {'event_type': 'start_lease', 'time': start}])
        lease = loader.get().lease_get(context, 'lease-1')
        self.assertEqual(1, len(lease['reservations']))

        real = lease_api._to_dicts
        deleting = []

        def delete_then_read(session, leases):
            # The lease row is read; another transaction deletes it all
            # and commits before its reservations are read. (The delete
            # reads the lease through _to_dicts too.)
            if not deleting:
                deleting.append(True)
                admin = blazar_context.get_admin_context()
                with db_session.writer.using(admin) as other:
                    plugin.delete_details(other, [reservation_id])
                    lease_api.lease_remove(other, 'lease-1',
                                           [reservation_id])
            return real(session, leases)

        with mock.patch.object(lease_api, '_to_dicts', delete_then_read):
            seen = loader.get().lease_get(context, 'lease-1')
        self.assertEqual([lease['reservations'][0]['id']],
                         [r['id'] for r in seen['reservations']])
        self.assertEqual(1, seen['reservations'][0]['min'])
        self.assertEqual(['start_lease'],
                         [e['event_type'] for e in seen['events']])


class TestEnforcementServiceTrickling(
        enforcement_base.ExternalServiceTestCase):
    """A service that answers a byte at a time, each byte well within
    [enforcement_external] timeout, the whole answer far beyond it, is a
    service that did not answer in time (tools/chaos/enforcement_faults.py
    measured 16 s and 55 s calls with a 2 s timeout)."""

    def setUp(self):
        super().setUp()
        self.stop = threading.Event()
        self.addCleanup(self.stop.set)
        self.sock = socket.socket()
        self.addCleanup(self.sock.close)
        self.sock.bind(('127.0.0.1', 0))
        self.sock.listen(8)
        threading.Thread(target=self._serve, daemon=True).start()
        self.url = 'http://127.0.0.1:%d' % self.sock.getsockname()[1]

    def _serve(self):
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        with conn:
            conn.recv(65536)
            # An approval, eventually: 204 and a padding header.
            answer = (b'HTTP/1.1 204 No Content\r\nX-Pad: ' + b'a' * 40 +
                      b'\r\nContent-Length: 0\r\n\r\n')
            for byte in answer:
                if self.stop.wait(0.1):
                    return
                try:
                    conn.sendall(bytes([byte]))
                except OSError:
                    return

    def test_trickle_is_no_answer(self):
        exc = self.assertRaises(
            exceptions.EnforcementRejected,
            self.chain(self.url, timeout=0.5).check_create,
            {'user_id': 'u1', 'project_id': 'p1'}, efixtures.make_lease())
        self.assertEqual(external_service.UNAVAILABLE_DENY, str(exc))


class TestBrokerGoneMidCall(blazar_base.TestCase):
    """A broker stopped under load (tools/chaos/rabbitmq_outage.py): once
    [api] rpc_retry is spent the rabbit driver raises kombu's
    OperationalError, which must reach the client as a 503, not a 500.
    Mocked: a broker stopped between calls (TestBrokerStopped) gives
    MessageDeliveryFailure instead, and the moment inside a call cannot be
    hit on purpose."""

    def test_kombu_error_is_service_unavailable(self):
        rpc.init(self.conf)
        self.addCleanup(rpc.cleanup)
        client = manager_client.ManagerClient()
        prepared = mock.Mock()
        prepared.call.side_effect = kombu.exceptions.OperationalError(
            '[Errno 111] Connection refused')
        with mock.patch.object(client._client, 'prepare',
                               return_value=prepared):
            exc = self.assertRaises(
                exceptions.ServiceUnavailable, client.create_lease,
                blazar_context.get_admin_context(), {'name': 'l1'})
        self.assertIn('OperationalError', str(exc))


class TestBrokerStopped(blazar_base.DBTestCase):
    """The real thing: API and manager over a RabbitMQ node of the test's
    own (tools/chaos/chaoslib.py's PrivateRabbitMQ, never the shared one
    on 5672). Stopped, a host registration (an RPC call) is a 503 naming
    the manager unreachable and registers nothing; started again, the
    same call goes through over the reconnected transport."""

    def setUp(self):
        super().setUp()
        for reason in (services.rabbitmq_unavailable(),
                       None if shutil.which('rabbitmq-server')
                       else 'rabbitmq-server is not installed'):
            if reason:
                self.skipTest(reason)
        self.useFixture(fixtures.Timeout(240, gentle=True))
        chaoslib = blazar_fixtures.tool_module('chaos/chaoslib')
        # The node runs as the rabbitmq user: it must reach its directory
        # inside oslotest's private per-test temporary directory.
        os.chmod(tempfile.gettempdir(), 0o711)
        self.broker = self.useFixture(chaoslib.PrivateRabbitMQ())
        self.conf.set_override('transport_url', self.broker.url)
        self.conf.set_override('rpc_timeout', 5, group='manager')
        self.conf.set_override('rpc_retry', 1, group='api')
        self.useFixture(blazar_fixtures.ManagerFixture())
        self.api = self.useFixture(blazar_fixtures.APIFixture())

    def register(self, name: str):
        return self.api.request('POST', '/v1/os-hosts', {'name': name})

    def test_stopped_broker_is_503_then_recovers(self):
        self.assertEqual(201, self.register('before').status)
        self.broker.stop_app()
        resp = self.register('during')
        self.assertEqual(503, resp.status, resp.text)
        message = resp.json()['error_message']
        self.assertIn('the manager cannot be reached', message)
        self.assertIn('try again later', message)
        self.broker.start_app()
        # The transport reconnects on its own; the first calls after the
        # start may still be refused while it does.
        services.wait_for(lambda: self.register('after').status == 201,
                          120, 'a registration once the broker is back')
        names = sorted(h['hypervisor_hostname'] for h in self.api.request(
            'GET', '/v1/os-hosts').json()['hosts'])
        self.assertEqual(['after', 'before'], names)


class TestDatabaseStopped(blazar_base.TestCase):
    """The real thing: API and manager on a mariadbd of the test's own
    (tools/chaos/chaoslib.py's PrivateMariaDB, never the shared one on
    3306). Stopped, a read in the API and a write in the manager are 503s
    saying to try again; started again, both go through."""

    def setUp(self):
        super().setUp()
        for program in ('mariadbd', 'mariadb-install-db'):
            if not shutil.which(program):
                self.skipTest('%s is not installed' % program)
        self.useFixture(fixtures.Timeout(300, gentle=True))
        chaoslib = blazar_fixtures.tool_module('chaos/chaoslib')
        # mariadbd runs as the mysql user: it must reach its directory
        # inside oslotest's private per-test temporary directory.
        os.chmod(tempfile.gettempdir(), 0o711)
        self.database = self.useFixture(chaoslib.PrivateMariaDB())
        engine = engines.create_engine(self.database.url)
        self.addCleanup(engine.dispose)
        migration.upgrade('head', engine)
        self.conf.set_override('connection', self.database.url,
                               group='database')
        self.addCleanup(db_session.context_manager.patch_engine(engine))
        self.useFixture(blazar_fixtures.ManagerFixture())
        self.api = self.useFixture(blazar_fixtures.APIFixture())

    def test_stopped_database_is_503_then_recovers(self):
        log = self.useFixture(fixtures.FakeLogger(
            name='blazar_ext.api.middleware.faults', level=logging.WARNING))
        self.assertEqual(200, self.api.request('GET', '/v1/leases').status)
        self.database.stop()
        read = self.api.request('GET', '/v1/leases')
        self.assertEqual(503, read.status, read.text)
        self.assertIn('try again', read.json()['error_message'])
        # Expected during a restart: one line per request, no traceback.
        self.assertIn('Database unreachable for GET /v1/leases', log.output)
        self.assertNotIn('Traceback', log.output)
        write = self.api.request('POST', '/v1/os-hosts', {'name': 'during'})
        self.assertEqual(503, write.status, write.text)
        self.assertIn('try again', write.json()['error_message'])
        self.database.start()
        # Pooled connections to the stopped server are found dead and
        # replaced; the first requests after the start may still fail.
        services.wait_for(
            lambda: self.api.request('GET', '/v1/leases').status == 200,
            120, 'a read once the database is back')
        services.wait_for(
            lambda: self.api.request('POST', '/v1/os-hosts',
                                     {'name': 'after'}).status == 201,
            120, 'a write once the database is back')
        names = [h['hypervisor_hostname'] for h in self.api.request(
            'GET', '/v1/os-hosts').json()['hosts']]
        self.assertEqual(['after'], names)


ADMIN = {'X-Auth-Token': 'admin'}
TRANSITIONAL = ('CREATING', 'STARTING', 'UPDATING', 'TERMINATING',
                'DELETING')


def _date(minutes: int) -> str:
    return (datetime.datetime.now(datetime.timezone.utc) +
            datetime.timedelta(minutes=minutes)).strftime('%Y-%m-%d %H:%M')


def _host_spec(low: int, high: int) -> dict:
    return {'resource_type': 'physical:host', 'min': low, 'max': high,
            'hypervisor_properties': '', 'resource_properties': ''}


class _Deployment(services.Deployment):
    """services.Deployment with configuration text of the test's own."""

    def __init__(self, backend: str, extra_config: str = '', **kwargs):
        super().__init__(backend, **kwargs)
        self.extra_config = extra_config

    def _write_config(self) -> str:
        path = super()._write_config()
        with open(path, 'a') as f:
            f.write(self.extra_config)
        return path


class _ChaosDeploymentTest:
    BACKEND: str

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.Timeout(120, gentle=True))
        for reason in (services.rabbitmq_unavailable(),
                       services.database_unavailable(self.BACKEND)):
            if reason:
                self.skipTest(reason)

    def deploy(self, extra_config: str = '') -> list:
        """Two APIs and two managers; their endpoints."""
        self.deployment = self.useFixture(_Deployment(
            self.BACKEND, extra_config=extra_config, managers=2,
            rpc_timeout=60))
        _, second = self.deployment.start_api('api-2')
        self.engine = sa.create_engine(self.deployment.database.url,
                                       poolclass=sa.pool.NullPool)
        self.addCleanup(self.engine.dispose)
        return [self.deployment.endpoint, second]

    def query(self, sql: str) -> list:
        with self.engine.connect() as conn:
            return [tuple(r) for r in conn.execute(sa.text(sql))]

    def assert_nothing_lost(self) -> None:
        self.assertEqual([], self.query(
            'SELECT a.compute_host_id, a.reservation_id, b.reservation_id '
            'FROM computehost_allocations a JOIN computehost_allocations b '
            'ON a.compute_host_id = b.compute_host_id AND a.id < b.id '
            'AND a.start_date < b.end_date AND b.start_date < a.end_date'))
        self.assertEqual([], self.query(
            'SELECT id, status FROM leases WHERE status IN (%s)'
            % ', '.join("'%s'" % s for s in TRANSITIONAL)))
        for lease_id, status, count_range, held in self.query(
                'SELECT l.id, l.status, c.count_range, '
                '(SELECT COUNT(*) FROM computehost_allocations a '
                ' WHERE a.reservation_id = r.id) FROM leases l '
                'JOIN reservations r ON r.lease_id = l.id '
                'JOIN computehost_reservations c '
                'ON c.reservation_id = r.id'):
            low, high = (int(v) for v in count_range.split('-'))
            wanted = range(low, high + 1) if status == 'PENDING' else [0]
            self.assertIn(held, wanted, '%s lease %s' % (status, lease_id))


class _ContentionTests(_ChaosDeploymentTest):
    """Concurrent lease creates, updates and deletes through two APIs and
    two managers, competing for three hosts (tools/chaos/ha_leases.py is
    the long version)."""

    def test_no_host_booked_twice(self):
        endpoints = self.deploy()
        for n in range(3):
            resp = requests.post(endpoints[n % 2] + '/v1/os-hosts',
                                 json={'name': 'c-host-%d' % n},
                                 headers=ADMIN, timeout=60)
            self.assertEqual(201, resp.status_code, resp.text)
        answers = collections.Counter()
        leases = []
        lock = threading.Lock()

        def worker(n):
            rnd = random.Random(n)
            session = requests.Session()
            session.headers.update(ADMIN)
            for i in range(10):
                url = rnd.choice(endpoints) + '/v1/leases'
                with lock:
                    target = rnd.choice(leases) if leases else None
                roll = rnd.random()
                if target is None or roll < 0.5:
                    start = 60 + 30 * rnd.randrange(4)
                    low = rnd.randint(1, 2)
                    resp = session.post(url, timeout=90, json={
                        'name': 'c-%d-%d' % (n, i),
                        'start_date': _date(start),
                        'end_date': _date(start + rnd.choice((30, 60))),
                        'reservations': [_host_spec(low,
                                                    rnd.randint(low, 3))],
                        'events': []})
                    if resp.status_code == 201:
                        lease = resp.json()['lease']
                        with lock:
                            leases.append(
                                (lease['id'], lease['reservations'][0]['id']))
                elif roll < 0.8:
                    start = 60 + 30 * rnd.randrange(4)
                    body = rnd.choice((
                        {'start_date': _date(start),
                         'end_date': _date(start + 60)},
                        {'reservations': [{'id': target[1], 'min': 1,
                                           'max': rnd.randint(1, 3)}]}))
                    resp = session.put('%s/%s' % (url, target[0]),
                                       json=body, timeout=90)
                else:
                    resp = session.delete('%s/%s' % (url, target[0]),
                                          timeout=90)
                with lock:
                    answers[resp.status_code] += 1

        with futures.ThreadPoolExecutor(16) as pool:
            list(pool.map(worker, range(16)))
        self.assertEqual(set(), set(answers) - {200, 201, 204, 404, 409},
                         dict(answers))
        # Contention there was: some creates were refused for want of
        # hosts, some went through.
        self.assertIn(409, answers)
        self.assertIn(201, answers)
        self.assert_nothing_lost()


class TestContentionMySQL(_ContentionTests, base.BaseTestCase):
    BACKEND = 'mysql'


class TestContentionPostgreSQL(_ContentionTests, base.BaseTestCase):
    BACKEND = 'postgresql'


class _TricklingService(fixtures.Fixture):
    """Answers every request ``answer``, a byte every ``gap`` seconds."""

    def __init__(self, answer: bytes, gap: float):
        super().__init__()
        self.answer = answer
        self.gap = gap

    def _setUp(self):
        self.stop = threading.Event()
        self.addCleanup(self.stop.set)
        self.sock = socket.socket()
        self.addCleanup(self.sock.close)
        self.sock.bind(('127.0.0.1', 0))
        self.sock.listen(16)
        self.url = 'http://127.0.0.1:%d' % self.sock.getsockname()[1]
        self.requests = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,),
                             daemon=True).start()

    def _serve(self, conn):
        with conn:
            if not conn.recv(65536):
                return
            self.requests += 1
            for byte in self.answer:
                if self.stop.wait(self.gap):
                    return
                try:
                    conn.sendall(bytes([byte]))
                except OSError:
                    return


class TestTricklingEnforcementService(_ChaosDeploymentTest,
                                      base.BaseTestCase):
    """With the real processes, an enforcement service that trickles its
    denial past [enforcement_external] timeout did not answer in time:
    allow_on_error decides (here: allow), and no lease is left stuck
    (tools/chaos/enforcement_faults.py plays every fault)."""

    BACKEND = 'postgresql'

    def test_allow_on_error_decides(self):
        body = b'{"message": "too late to count"}'
        service = self.useFixture(_TricklingService(
            b'HTTP/1.1 403 Forbidden\r\nContent-Type: application/json'
            b'\r\nContent-Length: %d\r\n\r\n%s' % (len(body), body),
            gap=0.3))
        endpoints = self.deploy(
            '[enforcement]\nenabled_filters = ExternalServiceFilter\n'
            '[enforcement_external]\nendpoint_url = %s\ntimeout = 1\n'
            'allow_on_error = true\ntoken = t\n' % service.url)
        for n in range(2):
            resp = requests.post(endpoints[n] + '/v1/os-hosts',
                                 json={'name': 'e-host-%d' % n},
                                 headers=ADMIN, timeout=60)
            self.assertEqual(201, resp.status_code, resp.text)

        def create(n):
            start = 60 + 60 * n
            return requests.post(
                endpoints[n % 2] + '/v1/leases', headers=ADMIN, timeout=90,
                json={'name': 'e-%d' % n, 'start_date': _date(start),
                      'end_date': _date(start + 30),
                      'reservations': [_host_spec(1, 1)], 'events': []})

        with futures.ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(create, range(4)))
        self.assertEqual([201] * 4, [r.status_code for r in answers],
                         [r.text for r in answers])
        self.assertEqual(4, service.requests)
        self.assertEqual([('PENDING', 4)], self.query(
            'SELECT status, COUNT(*) FROM leases GROUP BY status'))
        self.assert_nothing_lost()


class TestManagerCrashMidStart(_ChaosDeploymentTest, base.BaseTestCase):
    """A manager killed while it started a lease left the start event
    IN_PROGRESS and the lease STARTING; a manager started afterwards takes
    the stale claim over and finishes the start, once
    (tools/chaos/manager_kill.py kills managers at random instead)."""

    BACKEND = 'mysql'

    def test_stale_claim_is_finished(self):
        endpoint = self.deploy(
            '[manager]\nevent_interval = 0.2\nevent_claim_timeout = 2\n'
            '[oslo_messaging_notifications]\ndriver = log\n')[0]
        resp = requests.post(endpoint + '/v1/os-hosts', json={'name': 'k'},
                             headers=ADMIN, timeout=60)
        self.assertEqual(201, resp.status_code, resp.text)
        resp = requests.post(endpoint + '/v1/leases', headers=ADMIN,
                             timeout=60, json={
                                 'name': 'k', 'start_date': _date(60),
                                 'end_date': _date(120), 'events': [],
                                 'reservations': [_host_spec(1, 1)]})
        self.assertEqual(201, resp.status_code, resp.text)
        lease_id = resp.json()['lease']['id']
        for manager in self.deployment.managers:
            manager._signal(signal.SIGKILL)
            manager.process.wait()
        # What a manager killed mid-start leaves: its claim on the start
        # event, older than the claim timeout, and the lease STARTING.
        past = (datetime.datetime.utcnow() -
                datetime.timedelta(minutes=1)).replace(microsecond=0)
        with self.engine.begin() as conn:
            conn.execute(sa.text(
                "UPDATE events SET status = 'IN_PROGRESS', time = :past, "
                "updated_at = :past WHERE lease_id = :lease "
                "AND event_type = 'start_lease'"),
                {'past': past, 'lease': lease_id})
            conn.execute(sa.text(
                "UPDATE leases SET status = 'STARTING', start_date = :past "
                "WHERE id = :lease"), {'past': past, 'lease': lease_id})
        manager = self.deployment._start_manager('manager-1')
        services.wait_for(
            lambda: self.query(
                "SELECT status FROM leases WHERE id = '%s'" % lease_id)
            == [('ACTIVE',)], 60, 'the lease to start', [manager])
        self.assertEqual(
            [('before_end_lease', 'UNDONE'), ('end_lease', 'UNDONE'),
             ('start_lease', 'DONE')],
            sorted(self.query("SELECT event_type, status FROM events "
                              "WHERE lease_id = '%s'" % lease_id)))
        self.assertEqual([(1,)], self.query(
            'SELECT COUNT(*) FROM computehost_allocations'))
        services.wait_for(
            lambda: 'lease.event.start_lease' in manager.log(), 10,
            'the start notification')
        self.assertEqual(1, manager.log().count(
            'oslo.messaging.notification.lease.event.start_lease'))


class TestUpdateRacingAnEvent(blazar_base.LeaseTestCase):
    """A lease extended while its end event is due (found by
    tools/chaos/ha_leases.py --live): the update answered 200, then the
    event, claimed at the old end, ended the lease and freed its hosts."""

    def _due_end_event(self, lease_id: str, at: datetime.datetime):
        timeout = datetime.timedelta(seconds=300)
        return [e for e in lease_api.events_due(
            blazar_context.get_admin_context(), at, timeout)
            if e['lease_id'] == lease_id and
            e['event_type'] == 'end_lease'][0], timeout

    def _extend(self, lease_id: str):
        return self.request('PUT', '/v1/leases/%s' % lease_id,
                            {'end_date': blazar_base.lease_date(600)})

    def test_claimed_end_event_cannot_move(self):
        self.add_host('h1')
        lease = self.create(start='now', end=blazar_base.lease_date(2))
        self.run_events()
        context = blazar_context.get_admin_context()
        later = datetime.datetime.utcnow() + datetime.timedelta(minutes=3)
        event, timeout = self._due_end_event(lease['id'], later)
        self.assertTrue(lease_api.event_claim(context, event['id'], later,
                                              timeout))
        resp = self._extend(lease['id'])
        self.assertEqual(409, resp.status, resp.text)
        self.manager.service.event_loop.leases.handle_event(context, event)
        shown = self.show(lease['id'])
        # It ended at the end it had, which the update did not change.
        self.assertEqual('TERMINATED', shown['status'])
        self.assertLess(shown['end_date'], blazar_base.lease_date(60)
                        .replace(' ', 'T'))

    def test_moved_end_event_cannot_be_claimed(self):
        self.add_host('h1')
        lease = self.create(start='now', end=blazar_base.lease_date(2))
        self.run_events()
        context = blazar_context.get_admin_context()
        later = datetime.datetime.utcnow() + datetime.timedelta(minutes=3)
        event, timeout = self._due_end_event(lease['id'], later)
        # Found due, then the lease is extended before the claim.
        self.assertEqual(200, self._extend(lease['id']).status)
        self.assertFalse(lease_api.event_claim(context, event['id'], later,
                                               timeout))
        self.assertEqual('ACTIVE', self.show(lease['id'])['status'])
