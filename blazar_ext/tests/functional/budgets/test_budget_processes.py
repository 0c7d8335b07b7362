"""A budget raced through two blazar-ext-api and two blazar-ext-manager
processes over RabbitMQ, on MariaDB and PostgreSQL: at most the budget is
charged, the balance never goes below zero, and the ledger's charges minus
refunds equal what the surviving leases cost.

Skips with the reason when RabbitMQ or the database does not answer.
"""

from concurrent import futures
import time

import fixtures
from oslotest import base
import requests

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
        self.deployment = self.useFixture(services.Deployment(
            self.BACKEND, managers=2, extra_config=CONFIG))
        _api, second = self.deployment.start_api('api-2')
        self.urls = [self.deployment.endpoint, second]

    def post(self, path: str, body: dict, headers=ADMIN, url=None):
        return requests.post((url or self.urls[0]) + path, json=body,
                             headers=headers, timeout=60)

    def test_parallel_creates_never_overdraw(self):
        for i in range(24):
            resp = self.post('/v1/os-hosts', {'name': 'h%d' % i})
            self.assertEqual(201, resp.status_code, resp.text)
        resp = self.post('/v1/budgets', {'project_id': 'p1', 'credits': 10})
        self.assertEqual(201, resp.status_code, resp.text)
        budget = resp.json()['budget']
        now = time.time()

        def date(minutes: int) -> str:
            return time.strftime('%Y-%m-%d %H:%M',
                                 time.gmtime(now + 60 * minutes))

        def create(i: int) -> int:
            # One host for one hour: 1 credit each.
            body = {'name': 'race-%d' % i, 'start_date': date(60),
                    'end_date': date(120),
                    'reservations': [{'resource_type': 'physical:host',
                                      'min': 1, 'max': 1,
                                      'hypervisor_properties': '',
                                      'resource_properties': ''}]}
            return self.post('/v1/leases', body, headers=P1,
                             url=self.urls[i % 2]).status_code

        with futures.ThreadPoolExecutor(8) as pool:
            statuses = list(pool.map(create, range(40)))
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


class TestBudgetRaceMySQL(_BudgetRace, base.BaseTestCase):
    BACKEND = 'mysql'


class TestBudgetRacePostgreSQL(_BudgetRace, base.BaseTestCase):
    BACKEND = 'postgresql'
