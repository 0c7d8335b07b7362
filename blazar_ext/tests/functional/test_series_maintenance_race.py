"""Two blazar-ext-manager processes over RabbitMQ extend lease series and
apply maintenance windows (on hosts and on a floating IP) while clients
create leases through the API, on MariaDB and on PostgreSQL (issue 30): no
host nor floating IP is booked twice over one time, and no occurrence of a
series is created twice.

The series are created while the managers book two days ahead; the
managers are then restarted booking thirty days ahead, and their series
tasks (every half second, in both processes) extend every series while the
API's lease creates and maintenance windows, queued on the broker during
the restart, reach the same two managers.
"""

from concurrent import futures
import datetime
import os

import fixtures
from oslotest import base
import requests
import sqlalchemy as sa

from blazar_ext.tests.functional import services

ADMIN = {'X-Auth-Token': 'admin'}
FMT = '%Y-%m-%d %H:%M'
HOSTS = 3
SERIES = 2
COUNT = 8
DAY = datetime.timedelta(days=1)
CONFIG = ('[manager]\n'
          'series_interval = 0.5\n'
          'maintenance_interval = 0.5\n'
          'series_horizon_days = 2\n')


def _host_reservation() -> dict:
    return {'resource_type': 'physical:host', 'min': 1, 'max': 1,
            'hypervisor_properties': '', 'resource_properties': ''}


def _fip_reservation() -> dict:
    return {'resource_type': 'virtual:floatingip', 'network_id': 'net-1',
            'amount': 1}


class _RaceTests:

    BACKEND: str

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.Timeout(300, gentle=True))
        for reason in (services.rabbitmq_unavailable(),
                       services.database_unavailable(self.BACKEND)):
            if reason:
                self.skipTest(reason)
        self.deployment = self.useFixture(services.Deployment(
            self.BACKEND, managers=2, rpc_timeout=90, extra_config=CONFIG))
        self.url = self.deployment.endpoint
        self.t0 = (datetime.datetime.utcnow().replace(second=0,
                                                      microsecond=0)
                   + datetime.timedelta(hours=2))

    def call(self, method: str, path: str, body: dict | None = None
             ) -> requests.Response:
        return requests.request(method, self.url + path, json=body,
                                headers=ADMIN, timeout=150)

    def at(self, days: int, hours: float = 0) -> str:
        return (self.t0 + days * DAY
                + datetime.timedelta(hours=hours)).strftime(FMT)

    def restart_managers(self, config: str) -> None:
        """Stop both managers and start them again with ``config``
        appended to their configuration; without waiting for them."""
        for manager in self.deployment.managers:
            manager.stop()
        extra = os.path.join(self.deployment.dir, 'restart.conf')
        with open(extra, 'w') as f:
            f.write(config)
        self.deployment.managers = [
            self.useFixture(services.ServiceProcess(
                '%s-restarted' % manager.name,
                manager.argv + ['--config-file', extra],
                self.deployment.dir, env=self.deployment.env))
            for manager in self.deployment.managers]

    def test_extend_and_maintenance_while_leases_are_created(self):
        hosts = []
        for i in range(HOSTS):
            resp = self.call('POST', '/v1/os-hosts', {'name': 'h%d' % i})
            self.assertEqual(201, resp.status_code, resp.text)
            hosts.append(resp.json()['host']['id'])
        fips = []
        for i in range(2):
            resp = self.call('POST', '/v1/floatingips', {
                'floating_network_id': 'net-1',
                'floating_ip_address': '172.24.4.%d' % (10 + i)})
            self.assertEqual(201, resp.status_code, resp.text)
            fips.append(resp.json()['floatingip']['id'])
        series_ids = []
        for i in range(SERIES):
            resp = self.call('POST', '/v1/leases', {
                'name': 'lab%d' % i, 'start_date': self.at(0),
                'end_date': self.at(0, 2),
                'recurrence': 'FREQ=DAILY;COUNT=%d' % COUNT,
                'reservations': [_host_reservation()]})
            self.assertEqual(201, resp.status_code, resp.text)
            series_ids.append(resp.json()['lease']['series_id'])
        for series_id in series_ids:
            self.assertEqual(2, len(self.occurrences(series_id)))

        self.restart_managers('[manager]\nseries_horizon_days = 30\n')
        requests_made = (
            [('POST', '/v1/leases', {
                'name': 'one-%d' % day, 'start_date': self.at(day, 1),
                'end_date': self.at(day, 3),
                'reservations': [_host_reservation()]})
             for day in range(2, COUNT)]
            + [('POST', '/v1/leases', {
                'name': 'fip-%d-%d' % (day, i), 'start_date': self.at(day),
                'end_date': self.at(day, 3),
                'reservations': [_fip_reservation()]})
               for day in (3, 4) for i in range(2)]
            + [('POST', '/v1/floatingips/%s/maintenance' % fips[0], {
                'start_date': self.at(3, -1), 'end_date': self.at(3, 4),
                'reason': 'router'})]
            + [('POST', '/v1/os-hosts/%s/maintenance' % hosts[n], {
                'start_date': self.at(day, -1),
                'end_date': self.at(day, 4), 'reason': 'disks'})
               for n, day in ((0, 3), (1, 5), (2, 6))])
        with futures.ThreadPoolExecutor(len(requests_made)) as pool:
            answers = list(pool.map(lambda r: self.call(*r), requests_made))
        for (_method, _path, body), resp in zip(requests_made, answers):
            # No free floating IP is a 400 (as upstream's).
            allowed = ((201, 400, 409) if body.get('name', '').startswith(
                'fip-') else (201, 409))
            self.assertIn(resp.status_code, allowed, resp.text)
        self.assertTrue(any(r.status_code == 201 for r in answers[:-3]))
        # A lease that could not move stays beside the window's hold.
        unmovable = {(r.json()['maintenance']['lease_id'],
                      u['lease_id']) for r in answers
                     if r.status_code == 201 and 'maintenance' in r.json()
                     for u in r.json()['unmovable']}

        services.wait_for(
            lambda: all(len(self.occurrences(s)) == COUNT
                        for s in series_ids),
            120, 'every series booked to its end',
            processes=self.deployment.managers)
        self.assert_each_occurrence_once(series_ids)
        self.assert_no_double_booking(unmovable, 'computehost_allocations',
                                      'compute_host_id')
        self.assert_no_double_booking(unmovable, 'floatingip_allocations',
                                      'floatingip_id', least=1)

    def occurrences(self, series_id: str) -> list:
        resp = self.call('GET', '/v1/lease-series/%s' % series_id)
        self.assertEqual(200, resp.status_code, resp.text)
        return resp.json()['lease_series']['occurrences']

    def rows(self, query: str) -> list:
        engine = sa.create_engine(self.deployment.database.url,
                                  poolclass=sa.pool.NullPool)
        try:
            with engine.connect() as conn:
                return conn.execute(sa.text(query)).all()
        finally:
            engine.dispose()

    def assert_each_occurrence_once(self, series_ids: list) -> None:
        occurrences = self.rows('SELECT series_id, start_date, lease_id '
                                'FROM lease_series_occurrences')
        self.assertEqual(SERIES * COUNT, len(occurrences))
        self.assertEqual(len(occurrences),
                         len({(s, d) for s, d, _ in occurrences}))
        booked = [lease for _, _, lease in occurrences if lease]
        self.assertEqual(len(booked), len(set(booked)))
        # Every lease of a series is one of its occurrences: none was
        # written twice by two managers.
        leases = self.rows("SELECT id FROM leases WHERE name LIKE 'lab%'")
        self.assertEqual(sorted(booked), sorted(r[0] for r in leases))
        for series_id in series_ids:
            self.assertEqual(
                sorted(self.at(day).replace(' ', 'T')
                       for day in range(COUNT)),
                sorted(o['start_date'][:16]
                       for o in self.occurrences(series_id)))

    def assert_no_double_booking(self, unmovable: set, table: str,
                                 column: str, least: int = SERIES * 2
                                 ) -> None:
        """No two allocations of a resource (``column`` of ``table``)
        overlap, but a maintenance hold and a lease its window reported
        unmovable."""
        rows = self.rows(
            'SELECT a.%s, a.start_date, a.end_date, r.lease_id '
            'FROM %s a JOIN reservations r '
            'ON r.id = a.reservation_id' % (column, table))
        self.assertGreater(len(rows), least)
        for i, (host, start, end, lease) in enumerate(rows):
            for other, o_start, o_end, o_lease in rows[i + 1:]:
                if host == other and start < o_end and o_start < end:
                    self.assertTrue(
                        {(lease, o_lease), (o_lease, lease)} & unmovable,
                        (rows, unmovable))


class TestSeriesMaintenanceRaceMySQL(_RaceTests, base.BaseTestCase):
    BACKEND = 'mysql'


class TestSeriesMaintenanceRacePostgreSQL(_RaceTests, base.BaseTestCase):
    BACKEND = 'postgresql'
