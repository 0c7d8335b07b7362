"""Prometheus metrics of a running deployment.

blazar-ext-api --workers 2 and a manager over RabbitMQ on PostgreSQL:
known traffic to each API family, each worker in turn serving alone
(the other stopped), then /metrics read as an admin (a non-admin is
refused) from either worker finds every family, counted across both.
"""

import datetime
import os
import re

import fixtures
from oslo_utils import timeutils
from oslotest import base
from prometheus_client import parser
import requests
import sqlalchemy as sa

from blazar_ext.db import migration
from blazar_ext.tests.functional import services

ADMIN = {'X-Auth-Token': 'admin'}
USER = {'X-Auth-Token': 'alice:project-a'}
PLACEMENT = dict(ADMIN, **{'OpenStack-API-Version': 'placement 1.39'})
DASHBOARD = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir,
                         os.pardir, 'doc', 'grafana', 'blazar-ext.json')
MISSING_UUID = '2f1d7a52-9a3c-4b8e-8f1e-000000000000'
# GET /v1/leases sent while each worker serves alone.
LISTS_PER_WORKER = 5


def _date(delta: datetime.timedelta) -> str:
    return (timeutils.utcnow() + delta).strftime('%Y-%m-%d %H:%M')


def samples(text: str) -> dict:
    """{(sample name, frozenset of label items): value}."""
    found = {}
    for family in parser.text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, frozenset(sample.labels.items()))] = (
                sample.value)
    return found


def value(found: dict, name: str, **labels) -> float | None:
    return found.get((name, frozenset(labels.items())))


class TestMetrics(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.Timeout(240, gentle=True))
        for reason in (services.rabbitmq_unavailable(),
                       services.database_unavailable('postgresql')):
            if reason:
                self.skipTest(reason)
        self.manager_port = services.free_port()
        self.deployment = self.useFixture(services.Deployment(
            'postgresql', managers=1, api_workers=2,
            extra_config='[metrics]\nmanager_port = %d\n'
            % self.manager_port))
        self.url = self.deployment.endpoint
        self.workers = services.api_workers(
            self.deployment.api.process.pid, 2)

    def call(self, method: str, path: str, body=None, expected: int = 200,
             headers: dict = ADMIN) -> requests.Response:
        resp = requests.request(method, self.url + path, json=body,
                                headers=headers, timeout=60)
        self.assertEqual(expected, resp.status_code, resp.text)
        return resp

    def lease(self, name: str, start: str, end: str) -> dict:
        return self.call('POST', '/v1/leases', {
            'name': name, 'start_date': start, 'end_date': end,
            'reservations': [{'resource_type': 'physical:host', 'min': 1,
                              'max': 1, 'hypervisor_properties': '',
                              'resource_properties': ''}],
            'events': []}, expected=201).json()['lease']

    def traffic(self) -> None:
        for name in ('m-host-1', 'm-host-2', 'm-host-3'):
            self.call('POST', '/v1/os-hosts', {'name': name}, expected=201)
        now = self.lease('m-now', 'now', _date(datetime.timedelta(days=1)))
        self.lease('m-later', _date(datetime.timedelta(days=2)),
                   _date(datetime.timedelta(days=3)))
        services.wait_for(
            lambda: self.call('GET', '/v1/leases/%s' % now['id']).json()[
                'lease']['status'] == 'ACTIVE', 60, 'the lease to start')
        for _ in range(2):
            self.call('GET', '/placement/resource_providers',
                      headers=PLACEMENT)
            self.call('GET', '/placement/resource_providers/%s'
                      % MISSING_UUID, headers=PLACEMENT, expected=404)
            self.call('GET', '/v2/metadefs/namespaces')
        # Each worker alone in turn: both count requests.
        for worker in self.workers:
            with services.stopped(worker):
                for _ in range(LISTS_PER_WORKER):
                    self.call('GET', '/v1/leases')

    def test_each_family_after_known_traffic(self):
        self.traffic()
        forbidden = self.call('GET', '/metrics', headers=USER,
                              expected=403)
        self.assertIn('blazar:metrics:get', forbidden.json()['error'][
            'message'])
        leases = self.call('GET', '/v1/leases').json()['leases']
        by_status = {}
        for lease in leases:
            by_status[lease['status']] = by_status.get(
                lease['status'], 0) + 1
        self.assertEqual({'ACTIVE': 1, 'PENDING': 1}, by_status)
        # A worker counts a request when the server closes its body, just
        # after the client has read it: wait until the last list is
        # counted, before a worker that may not have counted it stops.
        services.wait_for(lambda: (value(
            samples(self.call('GET', '/metrics').text),
            'blazar_ext_api_requests_total', family='v1', method='GET',
            route='LeasesController.get_all', status='200') or 0)
            >= 2 * LISTS_PER_WORKER + 1, 30, 'the last list to be counted')
        # Whichever worker answers, the counts are both workers'.
        for worker in self.workers:
            with services.stopped(worker):
                resp = self.call('GET', '/metrics')
            self.assertTrue(resp.headers['Content-Type'].startswith(
                'text/plain'), resp.headers)
            found = samples(resp.text)
            self._check(found, by_status)
        # The Grafana dashboard in doc/ uses only metrics that exist.
        with open(DASHBOARD) as f:
            used = set(re.findall(r'blazar_ext_[a-z_]+', f.read()))
        self.assertTrue(used)
        self.assertEqual(set(), used - {name for name, _ in found})
        # The manager's own port: its state gauges, no token needed.
        manager = samples(requests.get(
            'http://127.0.0.1:%d/metrics' % self.manager_port,
            timeout=30).text)
        self.assertEqual(1, value(manager, 'blazar_ext_database_up'))
        self.assertEqual(1, value(manager, 'blazar_ext_leases',
                                  status='ACTIVE'))
        self.assertIsNotNone(value(manager, 'blazar_ext_db_retries_total',
                                   reason='deadlock'))

    def _check(self, found: dict, by_status: dict) -> None:
        requests_total = 'blazar_ext_api_requests_total'
        self.assertGreaterEqual(
            value(found, requests_total, family='v1', method='GET',
                  route='LeasesController.get_all', status='200'),
            2 * LISTS_PER_WORKER + 1)
        self.assertGreaterEqual(
            value(found, requests_total, family='v1', method='POST',
                  route='LeasesController.post', status='201'), 2)
        self.assertGreaterEqual(
            value(found, requests_total, family='placement', method='GET',
                  route='/resource_providers', status='200'), 2)
        self.assertGreaterEqual(
            value(found, requests_total, family='placement', method='GET',
                  route='/resource_providers/{uuid}', status='404'), 2)
        self.assertGreaterEqual(
            value(found, requests_total, family='metadefs', method='GET',
                  route='/v2/metadefs/namespaces', status='200'), 2)
        self.assertGreaterEqual(
            value(found, requests_total, family='other', method='GET',
                  route='/metrics', status='403'), 1)
        # No raw path (an id) as a route.
        for name, labels in found:
            route = dict(labels).get('route', '')
            self.assertNotIn(MISSING_UUID, route)
        duration = 'blazar_ext_api_request_duration_seconds_count'
        self.assertGreaterEqual(
            value(found, duration, family='v1', method='GET',
                  route='LeasesController.get_all'),
            2 * LISTS_PER_WORKER + 1)
        self.assertGreaterEqual(
            value(found, 'blazar_ext_api_request_duration_seconds_bucket',
                  family='metadefs', method='GET',
                  route='/v2/metadefs/namespaces', le='+Inf'), 2)
        for status, count in by_status.items():
            self.assertEqual(count, value(found, 'blazar_ext_leases',
                                          status=status), status)
        self.assertEqual(0, value(found, 'blazar_ext_leases_degraded'))
        self.assertEqual(2, sum(
            count for (name, labels), count in found.items()
            if name == 'blazar_ext_reservations'
            and dict(labels)['resource_type'] == 'physical:host'))
        self.assertEqual(3, value(found, 'blazar_ext_resources_reservable',
                                  resource_type='physical:host'))
        self.assertEqual(1, value(found, 'blazar_ext_resources_reserved',
                                  resource_type='physical:host'))
        self.assertEqual(0, value(found, 'blazar_ext_resources_reserved',
                                  resource_type='virtual:floatingip'))
        self.assertEqual(
            0, value(found, 'blazar_ext_reservations_missing_resources'))
        self.assertGreaterEqual(value(found, 'blazar_ext_events_overdue'),
                                0)
        self.assertGreaterEqual(
            value(found, 'blazar_ext_event_loop_lag_seconds'), 0)
        self.assertEqual(1, value(found, 'blazar_ext_database_up'))
        self.assertGreaterEqual(
            value(found, 'blazar_ext_db_retries_total', reason='deadlock'),
            0)


class TestMetricsPort(base.BaseTestCase):
    """[metrics] port: the parent of the workers serves the metrics there,
    without a token, and /metrics on the API port is no more."""

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.Timeout(120, gentle=True))
        self.dir = self.useFixture(fixtures.TempDir()).path
        url = 'sqlite:///%s' % os.path.join(self.dir, 'blazar-ext.sqlite')
        engine = sa.create_engine(url)
        self.addCleanup(engine.dispose)
        migration.upgrade('head', engine)
        port, self.metrics_port = services.free_port(), services.free_port()
        self.endpoint = 'http://127.0.0.1:%d' % port
        config = os.path.join(self.dir, 'blazar-ext.conf')
        with open(config, 'w') as f:
            f.write('[DEFAULT]\ntransport_url = fake:/\nstate_path = %s\n'
                    '[database]\nconnection = %s\n'
                    '[api]\nhost = 127.0.0.1\nport = %d\n'
                    'auth_strategy = noauth\n'
                    '[metrics]\nport = %d\n'
                    % (self.dir, url, port, self.metrics_port))
        api = self.useFixture(services.ServiceProcess(
            'api', [services.script('blazar-ext-api'), '--config-file',
                    config, '--workers', '2'], self.dir))
        services.wait_for(
            lambda: services.http_answers(self.endpoint + '/'), 60,
            'blazar-ext-api on %s' % self.endpoint, processes=[api])

    def test_served_on_their_own_port(self):
        for _ in range(4):
            resp = requests.get(self.endpoint + '/v1/leases', headers=ADMIN,
                                timeout=20)
            self.assertEqual(200, resp.status_code, resp.text)
        resp = requests.get(self.endpoint + '/metrics', headers=ADMIN,
                            timeout=20)
        self.assertEqual(404, resp.status_code, resp.text)
        found = samples(requests.get(
            'http://127.0.0.1:%d/metrics' % self.metrics_port,
            timeout=20).text)
        self.assertGreaterEqual(
            value(found, 'blazar_ext_api_requests_total', family='v1',
                  method='GET', route='LeasesController.get_all',
                  status='200'), 4)
        self.assertEqual(1, value(found, 'blazar_ext_database_up'))
        self.assertEqual(0, value(found, 'blazar_ext_resources_reservable',
                                  resource_type='physical:host'))
