"""Concurrent Placement writers all succeed, and none is lost.

Eight threads write at once through the API, as Nova's computes and
schedulers do. Before, on MariaDB most concurrent PUT /allocations died
as deadlock victims (500), on SQLite as "database is locked" (500), and
on PostgreSQL some lost the provider generation race ten times (409).
"""

import uuid

from blazar_ext.api import app as api_app
from blazar_ext.tests import base
from blazar_ext.tests import fixtures as blazar_fixtures
from blazar_ext.tests.functional import backends
from blazar_ext.tests.functional import concurrent
from blazar_ext.tests import summaries

PLACEMENT = {'OpenStack-API-Version': 'placement 1.39'}
THREADS = 8
WRITES = 6


class TestConcurrentWrites(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.api = self.useFixture(
            blazar_fixtures.APIFixture(api_app.build_placement))

    def _provider(self, name: str) -> str:
        rp = str(uuid.uuid4())
        resp = self.api.request('POST', '/resource_providers',
                                {'name': name, 'uuid': rp},
                                headers=PLACEMENT)
        self.assertEqual(200, resp.status, resp.text)
        resp = self.api.request(
            'PUT', '/resource_providers/%s/inventories' % rp,
            {'resource_provider_generation': 0, 'inventories': {
                'VCPU': {'total': 1000}, 'MEMORY_MB': {'total': 100000},
                'DISK_GB': {'total': 10000}}}, headers=PLACEMENT)
        self.assertEqual(200, resp.status, resp.text)
        return rp

    def test_allocations_on_shared_providers(self):
        providers = [self._provider('rp%d' % i) for i in range(2)]

        def allocate(number):
            for write in range(WRITES):
                # Some consumers on both providers, in either order.
                rps = (providers if (number + write) % 3
                       else [providers[number % 2]])
                yield self.api.request(
                    'PUT', '/allocations/%s' % uuid.uuid4(),
                    {'allocations': {rp: {'resources': {
                        'VCPU': 1, 'MEMORY_MB': 10, 'DISK_GB': 1}}
                        for rp in rps},
                     'project_id': 'p', 'user_id': 'u',
                     'consumer_generation': None,
                     'consumer_type': 'INSTANCE'}, headers=PLACEMENT)
        self.assertEqual([], concurrent.failed_requests(THREADS, allocate))

        # Every write counted: usages add up, each moved the generation.
        used = sum(
            self.api.request('GET', '/resource_providers/%s/usages' % rp,
                             headers=PLACEMENT).json()['usages']['VCPU']
            for rp in providers)
        writes = sum(2 if (n + w) % 3 else 1
                     for n in range(THREADS) for w in range(WRITES))
        self.assertEqual(writes, used)
        generations = sum(
            self.api.request('GET', '/resource_providers/%s' % rp,
                             headers=PLACEMENT).json()['generation']
            for rp in providers)
        self.assertEqual(writes + 2, generations)  # + each inventory PUT
        summaries.assert_kept(self.db.engine)

    def test_replacing_and_deleting_allocations(self):
        rp = self._provider('rp')

        def churn(number):
            consumer = str(uuid.uuid4())
            generation = None
            for write in range(WRITES):
                resp = self.api.request(
                    'PUT', '/allocations/%s' % consumer,
                    {'allocations': {rp: {'resources': {
                        'VCPU': write + 1}}},
                     'project_id': 'p', 'user_id': 'u',
                     'consumer_generation': generation,
                     'consumer_type': 'INSTANCE'}, headers=PLACEMENT)
                generation = (generation or 0) + 1
                yield resp
            if number % 2:
                yield self.api.request('DELETE', '/allocations/%s' % consumer,
                                       headers=PLACEMENT)
        self.assertEqual([], concurrent.failed_requests(THREADS, churn))
        usages = self.api.request('GET', '/resource_providers/%s/usages'
                                  % rp, headers=PLACEMENT).json()['usages']
        self.assertEqual(WRITES * THREADS // 2, usages['VCPU'])
        summaries.assert_kept(self.db.engine)

    def test_inventories_traits_and_aggregates_of_many_providers(self):
        providers = [self._provider('rp%d' % i) for i in range(THREADS)]

        def describe(number):
            rp = providers[number]
            generation = 1
            for write in range(WRITES):
                for path, body in (
                        ('inventories', {'inventories': {
                            'VCPU': {'total': 100 + write},
                            'DISK_GB': {'total': 1000}}}),
                        ('traits', {'traits': [
                            'HW_CPU_X86_AVX', 'HW_CPU_X86_SSE'][write % 2:]}),
                        ('aggregates', {'aggregates': [str(uuid.uuid4())]})):
                    body['resource_provider_generation'] = generation
                    resp = self.api.request(
                        'PUT', '/resource_providers/%s/%s' % (rp, path),
                        body, headers=PLACEMENT)
                    if resp.status == 200:
                        generation = resp.json()[
                            'resource_provider_generation']
                    yield resp
        self.assertEqual([], concurrent.failed_requests(THREADS, describe))
        summaries.assert_kept(self.db.engine)


TestConcurrentWritesMySQL, TestConcurrentWritesPostgreSQL = (
    backends.on_each_backend(TestConcurrentWrites))
