"""A budget raced through two blazar-ext-api and two blazar-ext-manager
processes over RabbitMQ, on SQLite (one file), MariaDB and PostgreSQL: at
most the budget is charged, the balance never goes below zero, and the
ledger's charges minus refunds equal what the surviving leases cost. And
the managers SIGKILLed during a burst of creates and deletes: once they
are back, every lease and the ledger agree.

Skips with the reason when RabbitMQ or the database does not answer.
"""

import collections
from concurrent import futures
import signal
import threading
import time

import fixtures
from oslotest import base
import requests
import sqlalchemy as sa
import testtools.content

from blazar_ext.tests.functional import services

ADMIN = {'X-Auth-Token': 'admin'}
P1 = {'X-Project-Id': 'p1', 'X-User-Id': 'u1', 'X-Roles': 'member'}
CONFIG = '[enforcement]\nenabled_filters = BudgetFilter\n'


class _BudgetRace:
    BACKEND: str

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.Timeout(300, gentle=True))
        for reason in (services.rabbitmq_unavailable(),
                       services.database_unavailable(self.BACKEND)):
            if reason:
                self.skipTest(reason)

    def deploy(self, rpc_timeout: int = 20) -> None:
        self.deployment = self.useFixture(services.Deployment(
            self.BACKEND, managers=2, extra_config=CONFIG,
            rpc_timeout=rpc_timeout))
        _api, second = self.deployment.start_api('api-2')
        self.urls = [self.deployment.endpoint, second]
        self.engine = sa.create_engine(self.deployment.database.url,
                                       poolclass=sa.pool.NullPool)
        self.addCleanup(self.engine.dispose)

    def query(self, sql: str) -> list:
        with self.engine.connect() as conn:
            return [tuple(r) for r in conn.execute(sa.text(sql))]

    def post(self, path: str, body: dict, headers=ADMIN, url=None):
        return requests.post((url or self.urls[0]) + path, json=body,
                             headers=headers, timeout=60)

    def hosts_and_budget(self, hosts: int, credits: int) -> dict:
        for i in range(hosts):
            resp = self.post('/v1/os-hosts', {'name': 'h%d' % i})
            self.assertEqual(201, resp.status_code, resp.text)
        resp = self.post('/v1/budgets', {'project_id': 'p1',
                                         'credits': credits})
        self.assertEqual(201, resp.status_code, resp.text)
        return resp.json()['budget']

    def create(self, i: int, url: str, timeout: float = 60):
        """One host for one hour, an hour from now: 1 credit."""
        def date(minutes: int) -> str:
            return time.strftime('%Y-%m-%d %H:%M',
                                 time.gmtime(self.now + 60 * minutes))

        body = {'name': 'race-%d' % i, 'start_date': date(60),
                'end_date': date(120),
                'reservations': [{'resource_type': 'physical:host',
                                  'min': 1, 'max': 1,
                                  'hypervisor_properties': '',
                                  'resource_properties': ''}]}
        return requests.post(url + '/v1/leases', json=body, headers=P1,
                             timeout=timeout)

    def test_parallel_creates_never_overdraw(self):
        self.deploy()
        budget = self.hosts_and_budget(24, 10)
        self.now = time.time()
        with futures.ThreadPoolExecutor(16) as pool:
            statuses = list(pool.map(
                lambda i: self.create(i, self.urls[i % 2]).status_code,
                range(100)))
        self.assertEqual(set(), set(statuses) - {201, 403}, statuses)
        self.assertEqual(10, statuses.count(201), statuses)
        shown = requests.get(self.urls[1] + '/v1/budgets/%s' % budget['id'],
                             headers=ADMIN, timeout=30).json()['budget']
        self.assertEqual((10.0, 0.0), (shown['spent'], shown['balance']))
        ledger = requests.get(
            self.urls[0] + '/v1/budgets/%s/ledger' % budget['id'],
            headers=ADMIN, timeout=30).json()['ledger']
        self.assertTrue(all(e['balance'] >= 0 for e in ledger), ledger)
        leases = requests.get(self.urls[0] + '/v1/leases', headers=ADMIN,
                              timeout=30).json()['leases']
        live = sorted(x['id'] for x in leases if x['status'] != 'ERROR')
        self.assertEqual(live, sorted(e['lease_id'] for e in ledger
                                      if e['kind'] == 'charge'))
        self.assertEqual(-10.0, sum(e['amount'] for e in ledger
                                    if e['kind'] in ('charge', 'refund')))

    def burst(self, worker: int, stop: threading.Event) -> list:
        """Create leases and delete every other one until stopped; the
        answers' statuses."""
        statuses = []
        i = 0
        while not stop.is_set():
            url = self.urls[(worker + i) % 2]
            resp = self.create(worker * 1000 + i, url, timeout=30)
            statuses.append(resp.status_code)
            if resp.status_code == 201 and i % 2:
                lease_id = resp.json()['lease']['id']
                statuses.append(requests.delete(
                    url + '/v1/leases/%s' % lease_id, headers=P1,
                    timeout=30).status_code)
            i += 1
        return statuses

    def charges(self) -> int:
        return self.query("SELECT COUNT(*) FROM budget_ledger "
                          "WHERE kind = 'charge'")[0][0]

    def settled(self) -> tuple:
        """Each lease id in the ledger or the leases table with what the
        ledger charged it net and what its hosts cost now."""
        charged = dict(self.query(
            'SELECT lease_id, -SUM(amount) FROM budget_ledger '
            'WHERE lease_id IS NOT NULL GROUP BY lease_id'))
        # One host for one hour at 1 credit: a host held costs 1.
        cost = dict(self.query(
            'SELECT l.id, COUNT(a.id) FROM leases l '
            'JOIN reservations r ON r.lease_id = l.id '
            'LEFT JOIN computehost_allocations a '
            'ON a.reservation_id = r.id GROUP BY l.id'))
        return {lease: (float(charged.get(lease, 0)),
                        float(cost.get(lease, 0)))
                for lease in set(charged) | set(cost)}

    def test_managers_killed_during_a_burst(self):
        self.deploy(rpc_timeout=5)
        budget = self.hosts_and_budget(60, 1000)
        self.now = time.time()
        stop = threading.Event()
        with futures.ThreadPoolExecutor(8) as pool:
            bursts = [pool.submit(self.burst, w, stop) for w in range(8)]
            services.wait_for(lambda: self.charges() >= 12, 60,
                              'a dozen charges')
            for manager in self.deployment.managers:
                manager._signal(signal.SIGKILL)
            killed = [manager.process.wait()
                      for manager in self.deployment.managers]
            killed_at = self.charges()
            time.sleep(1)
            self.deployment.managers = [
                self.deployment._start_manager(m.name)
                for m in self.deployment.managers]
            services.wait_for(
                lambda: services.rpc_consumers(self.deployment.topic) >= 2,
                60, 'the managers back', self.deployment.managers)
            services.wait_for(lambda: self.charges() >= killed_at + 12, 60,
                              'a dozen more charges')
            stop.set()
            statuses = sum((b.result() for b in bursts), [])
        # Calls sent while the managers were down expire on the broker
        # (their timeout); wait that out before the final read.
        time.sleep(7)
        self.assertIn(201, statuses)
        self.assertIn(204, statuses)
        self.assertEqual([-signal.SIGKILL] * 2, killed)
        # Calls lost with the managers answer 503 or 504; how many depends
        # on the timing.
        self.addDetail('statuses', testtools.content.text_content(
            str(collections.Counter(statuses))))
        settled = self.settled()
        self.assertEqual({}, {lease: pair for lease, pair in settled.items()
                              if pair[0] != pair[1]})
        spent = sum(cost for _, cost in settled.values())
        self.assertGreater(spent, 0)
        shown = requests.get(self.urls[1] + '/v1/budgets/%s' % budget['id'],
                             headers=ADMIN, timeout=30).json()['budget']
        self.assertEqual((spent, 1000.0 - spent),
                         (shown['spent'], shown['balance']))
        self.assertEqual([], self.query(
            "SELECT id, status FROM leases WHERE status NOT IN "
            "('PENDING', 'ERROR')"))


class TestBudgetRaceMySQL(_BudgetRace, base.BaseTestCase):
    BACKEND = 'mysql'


class TestBudgetRacePostgreSQL(_BudgetRace, base.BaseTestCase):
    BACKEND = 'postgresql'


class TestBudgetRaceSQLite(_BudgetRace, base.BaseTestCase):
    """Two managers on one SQLite file: each writer takes the file's write
    lock before it reads, so they take turns."""
    BACKEND = 'sqlite'
