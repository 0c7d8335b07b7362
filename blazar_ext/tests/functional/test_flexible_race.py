"""Twenty clients book flexible leases for the same window at once,
through blazar-ext-api and two blazar-ext-manager processes over RabbitMQ,
on MariaDB and on PostgreSQL: every 201 holds its hosts, no host is booked
twice, and every client that lost an option got the next one or a 409.
"""

from concurrent import futures
import datetime

import fixtures
from oslotest import base
import requests
import sqlalchemy as sa

from blazar_ext.tests.functional import services

ADMIN = {'X-Auth-Token': 'admin'}
FMT = '%Y-%m-%d %H:%M'
CLIENTS = 20
HOSTS = 2
HOURS = 5


class _RaceTests:

    BACKEND: str

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.Timeout(240, gentle=True))
        for reason in (services.rabbitmq_unavailable(),
                       services.database_unavailable(self.BACKEND)):
            if reason:
                self.skipTest(reason)
        self.deployment = self.useFixture(services.Deployment(
            self.BACKEND, managers=2, rpc_timeout=60))
        self.url = self.deployment.endpoint

    def post(self, path: str, body: dict) -> requests.Response:
        return requests.post(self.url + path, json=body, headers=ADMIN,
                             timeout=120)

    def test_twenty_clients_one_window(self):
        for i in range(HOSTS):
            resp = self.post('/v1/os-hosts', {'name': 'h%d' % i})
            self.assertEqual(201, resp.status_code, resp.text)
        t0 = (datetime.datetime.utcnow().replace(second=0, microsecond=0)
              + datetime.timedelta(hours=1))
        body = {'reservations': [{'resource_type': 'physical:host',
                                  'min': 1, 'max': 1,
                                  'hypervisor_properties': '',
                                  'resource_properties': ''}],
                'duration': 3600, 'not_before': t0.strftime(FMT),
                'not_after': (t0 + datetime.timedelta(hours=HOURS)
                              ).strftime(FMT)}

        def book(i):
            return self.post('/v1/leases', dict(body, name='race-%d' % i))

        with futures.ThreadPoolExecutor(CLIENTS) as pool:
            answers = list(pool.map(book, range(CLIENTS)))
        statuses = sorted(r.status_code for r in answers)
        booked = HOSTS * HOURS
        self.assertEqual([201] * booked + [409] * (CLIENTS - booked),
                         statuses, [r.text for r in answers])
        starts = sorted(r.json()['lease']['start_date'][:16]
                        for r in answers if r.status_code == 201)
        # Every slot of the window taken once per host: the losers of the
        # first options got the next ones.
        self.assertEqual(
            sorted((t0 + datetime.timedelta(hours=h)).strftime(
                '%Y-%m-%dT%H:%M') for h in range(HOURS)
                for _ in range(HOSTS)), starts)
        for resp in answers:
            if resp.status_code == 409:
                self.assertIn('no slot', resp.json()['error_message'])
        self.assert_no_double_booking(booked)

    def assert_no_double_booking(self, booked: int) -> None:
        engine = sa.create_engine(self.deployment.database.url,
                                  poolclass=sa.pool.NullPool)
        self.addCleanup(engine.dispose)
        with engine.connect() as conn:
            rows = conn.execute(sa.text(
                'SELECT compute_host_id, start_date, end_date FROM '
                'computehost_allocations')).all()
        self.assertEqual(booked, len(rows))
        for i, (host, start, end) in enumerate(rows):
            for other, o_start, o_end in rows[i + 1:]:
                self.assertFalse(host == other and start < o_end
                                 and o_start < end, rows)


class TestFlexibleRaceMySQL(_RaceTests, base.BaseTestCase):
    BACKEND = 'mysql'


class TestFlexibleRacePostgreSQL(_RaceTests, base.BaseTestCase):
    BACKEND = 'postgresql'
