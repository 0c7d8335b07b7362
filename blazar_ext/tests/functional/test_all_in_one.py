"""blazar-ext-all-in-one, the README's first command, as a real process:
migrations, first-start steps, the three API families, clean exit."""

import datetime
import os

import fixtures
from oslo_utils import timeutils
import requests
import sqlalchemy as sa
import testtools

from blazar_ext.rpc import manager_client
from blazar_ext.tests import base
from blazar_ext.tests.functional import services

PLACEMENT = {'OpenStack-API-Version': 'placement 1.39'}


class TestAllInOne(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.state = self.useFixture(fixtures.TempDir()).path
        service = self.useFixture(services.AllInOne(self.state))
        self.url, self.process = service.url, service.process

    def call(self, method: str, path: str, body=None, headers=None,
             expected: int = 200):
        headers = dict(headers or {}, **{'X-Auth-Token': 'admin'})
        resp = requests.request(method, self.url + path, json=body,
                                headers=headers, timeout=30)
        self.assertEqual(expected, resp.status_code, resp.text)
        return resp

    def test_embedded_default_serves_every_family(self):
        # State in the state directory: the SQLite file, migrated.
        engine = sa.create_engine('sqlite:///%s' % os.path.join(
            self.state, 'blazar_ext.sqlite'))
        self.addCleanup(engine.dispose)
        with engine.connect() as conn:
            self.assertTrue(conn.execute(sa.text(
                'SELECT version_num FROM alembic_version')).scalar())
        # Reservation API: a host, then a lease on it.
        self.call('POST', '/v1/os-hosts', {'name': 'h1', 'gpu': 'true'},
                  expected=201)
        start = timeutils.utcnow() + datetime.timedelta(hours=1)
        lease = self.call('POST', '/v1/leases', {
            'name': 'l1', 'start_date': start.strftime('%Y-%m-%d %H:%M'),
            'end_date': (start + datetime.timedelta(hours=1)).strftime(
                '%Y-%m-%d %H:%M'),
            'reservations': [{'resource_type': 'physical:host', 'min': 1,
                              'max': 1, 'hypervisor_properties': '',
                              'resource_properties': ''}],
            'events': []}, expected=201).json()['lease']
        self.assertEqual('PENDING', lease['status'])
        # Placement: standard traits synced at start; the host's provider.
        self.call('GET', '/placement/traits/HW_CPU_X86_AVX',
                  headers=PLACEMENT, expected=204)
        providers = self.call('GET', '/placement/resource_providers?name=h1',
                              headers=PLACEMENT).json()
        self.assertEqual(1, len(providers['resource_providers']))
        # Metadefs: the shipped definitions loaded on first start, and the
        # version document glanceclient reads.
        names = [n['namespace'] for n in self.call(
            'GET', '/v2/metadefs/namespaces').json()['namespaces']]
        self.assertIn('OS::Blazar::HostCapabilities', names)
        self.assertIn('versions', self.call('GET', '/versions').json())
        # SIGTERM ends it cleanly.
        self.assertEqual(0, self.process.stop(timeout=15))


class TestLocalDispatch(base.APITestCase):
    """The all-in-one calls its manager directly, not over fake://."""

    def test_writes_reach_the_local_manager_without_rpc(self):
        # No RPC server listens any more: only a direct call can succeed.
        self.manager.service.stop()
        manager_client.serve_locally(self.manager.service.endpoint)
        resp = self.request('POST', '/v1/os-hosts', {'name': 'h1'})
        self.assertEqual(201, resp.status, resp.text)
        # Errors raised by the manager keep their status.
        resp = self.request('POST', '/v1/os-hosts', {'name': 'h1'})
        self.assertEqual(409, resp.status, resp.text)

    def test_reset_goes_back_to_rpc(self):
        manager_client.serve_locally(self.manager.service.endpoint)
        manager_client.reset_client()
        self.conf.set_override('rpc_timeout', 1, group='manager')
        self.manager.service.stop()
        resp = self.request('POST', '/v1/os-hosts', {'name': 'h1'})
        self.assertEqual(503, resp.status, resp.text)
