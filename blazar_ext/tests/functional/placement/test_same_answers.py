"""The Placement API answers alike on SQLite, MariaDB/MySQL and
PostgreSQL: every response of a scenario (status and body, lists in
their order) on a fresh database of the server equals the response on a
fresh SQLite database.

The gabbi files check the values they name; these compare everything,
so an ordering, a rounding or a collation that differs on one database
shows (nested and sharing providers, granular groups, limits, long
trait lists, fractional ratios, names in another case). Bound to MySQL
and PostgreSQL only: SQLite is the reference.
"""

import re
import uuid

import os_traits

from blazar_ext.api import app as api_app
from blazar_ext.tests import base
from blazar_ext.tests import fixtures
from blazar_ext.tests.functional import backends

HEADERS = {'OpenStack-API-Version': 'placement latest'}
AGG1 = 'aaaaaaaa-0000-0000-0000-000000000001'
AGG2 = 'aaaaaaaa-0000-0000-0000-000000000002'


def _uuid(n: int) -> str:
    return str(uuid.UUID(int=n))


def _inventories(rp: str, generation: int, inventories: dict) -> tuple:
    return ('PUT', '/resource_providers/%s/inventories' % rp,
            {'resource_provider_generation': generation,
             'inventories': inventories})


def _allocate(consumer: int, allocations: dict, project='p', user='u',
              consumer_type='INSTANCE') -> tuple:
    return ('PUT', '/allocations/%s' % _uuid(consumer),
            {'allocations': {rp: {'resources': r}
                             for rp, r in allocations.items()},
             'project_id': project, 'user_id': user,
             'consumer_generation': None, 'consumer_type': consumer_type})


def trees():
    """Three compute trees (root, two NUMA nodes, a NIC PF under each)
    in two aggregates, a sharing storage provider in each aggregate."""
    for name in ('CUSTOM_PHYSNET1', 'CUSTOM_PHYSNET2', 'CUSTOM_GOLD',
                 'CUSTOM_FAST'):
        yield 'PUT', '/traits/' + name, None
    yield 'POST', '/resource_classes', {'name': 'CUSTOM_VF'}
    for cn in (1, 2, 3):
        root = _uuid(cn * 100)
        yield 'POST', '/resource_providers', {'name': 'cn%d' % cn,
                                              'uuid': root}
        yield _inventories(root, 0, {'DISK_GB': {'total': 100 * cn}})
        yield ('PUT', '/resource_providers/%s/aggregates' % root,
               {'aggregates': [AGG1 if cn < 3 else AGG2],
                'resource_provider_generation': 1})
        yield ('PUT', '/resource_providers/%s/traits' % root,
               {'traits': ['HW_CPU_X86_AVX' if cn == 2 else 'CUSTOM_GOLD'],
                'resource_provider_generation': 2})
        for numa in (1, 2):
            node = _uuid(cn * 100 + numa)
            yield 'POST', '/resource_providers', {
                'name': 'cn%d_numa%d' % (cn, numa), 'uuid': node,
                'parent_provider_uuid': root}
            yield _inventories(node, 0, {
                'VCPU': {'total': 4 * numa, 'allocation_ratio': 1.5},
                'MEMORY_MB': {'total': 2048 * numa, 'min_unit': 256,
                              'step_size': 256}})
            yield ('PUT', '/resource_providers/%s/traits' % node, {
                'traits': (['HW_CPU_X86_AVX'] if numa == 1
                           else ['HW_CPU_X86_AVX2', 'CUSTOM_FAST']),
                'resource_provider_generation': 1})
            nic = _uuid(cn * 100 + 10 + numa)
            yield 'POST', '/resource_providers', {
                'name': 'cn%d_pf%d' % (cn, numa), 'uuid': nic,
                'parent_provider_uuid': node}
            yield _inventories(nic, 0, {
                'CUSTOM_VF': {'total': 8},
                'NET_BW_EGR_KILOBIT_PER_SEC': {'total': 10000}})
            yield ('PUT', '/resource_providers/%s/traits' % nic,
                   {'traits': ['CUSTOM_PHYSNET%d' % numa],
                    'resource_provider_generation': 1})
    for i, aggregate in ((1, AGG1), (2, AGG2)):
        shared = _uuid(900 + i)
        yield 'POST', '/resource_providers', {'name': 'ss%d' % i,
                                              'uuid': shared}
        yield _inventories(shared, 0, {
            'DISK_GB': {'total': 2000, 'reserved': 100},
            'IPV4_ADDRESS': {'total': 10}})
        yield ('PUT', '/resource_providers/%s/traits' % shared,
               {'traits': ['MISC_SHARES_VIA_AGGREGATE'],
                'resource_provider_generation': 1})
        yield ('PUT', '/resource_providers/%s/aggregates' % shared,
               {'aggregates': [aggregate],
                'resource_provider_generation': 2})
    yield _allocate(5000, {_uuid(101): {'VCPU': 3, 'MEMORY_MB': 512},
                           _uuid(901): {'DISK_GB': 50}})
    for query in (
            'resources=VCPU:1',
            'resources=VCPU:1,MEMORY_MB:512',
            'resources=VCPU:1,DISK_GB:10',
            'resources=VCPU:2,DISK_GB:150',
            'resources=DISK_GB:10,IPV4_ADDRESS:1',
            'resources=VCPU:1&required=CUSTOM_FAST',
            'resources=VCPU:1&required=!CUSTOM_FAST',
            'resources=VCPU:1&root_required=CUSTOM_GOLD',
            'resources=VCPU:1&root_required=!CUSTOM_GOLD',
            'resources=VCPU:1&member_of=%s' % AGG2,
            'resources=VCPU:1&member_of=!%s' % AGG2,
            'resources=VCPU:1&in_tree=%s' % _uuid(200),
            'resources=VCPU:1,DISK_GB:10&limit=4',
            'resources1=VCPU:1&resources2=CUSTOM_VF:1'
            '&required2=CUSTOM_PHYSNET1&group_policy=none',
            'resources1=VCPU:1&resources2=CUSTOM_VF:1'
            '&resources3=CUSTOM_VF:1&group_policy=isolate',
            'resources1=VCPU:1&resources2=CUSTOM_VF:1'
            '&resources3=CUSTOM_VF:1&group_policy=none',
            'resources_COMPUTE=VCPU:1,MEMORY_MB:256'
            '&resources_NET1=CUSTOM_VF:1&required_NET1=CUSTOM_PHYSNET1'
            '&resources_NET2=CUSTOM_VF:1&required_NET2=CUSTOM_PHYSNET2'
            '&same_subtree=_COMPUTE,_NET1&group_policy=isolate',
            'resources=VCPU:1,DISK_GB:10&resources1=CUSTOM_VF:2'
            '&required1=in:CUSTOM_PHYSNET1,CUSTOM_PHYSNET2'
            '&group_policy=none',
            'resources=DISK_GB:10&required=CUSTOM_GOLD&resources1=VCPU:1'
            '&group_policy=none',
            'resources1=VCPU:5&resources2=VCPU:5&group_policy=none',
            'resources1=MEMORY_MB:1024&resources2=MEMORY_MB:1024'
            '&group_policy=isolate',
            'resources=VCPU:1&resources_X=DISK_GB:5&member_of_X=%s'
            '&group_policy=none' % AGG1,
            'resources=NET_BW_EGR_KILOBIT_PER_SEC:1000,CUSTOM_VF:2,VCPU:1'):
        yield 'GET', '/allocation_candidates?' + query, None
    yield 'GET', '/resource_providers?resources=DISK_GB:150', None
    yield 'GET', '/resource_providers?in_tree=%s' % _uuid(100), None
    yield 'GET', '/resource_providers?member_of=in:%s,%s' % (AGG1, AGG2), None


def flat():
    """Thirty providers without trees: mixed ratios, traits, aggregates
    and usage by several projects and consumer types."""
    names = ['CUSTOM_Z', 'CUSTOM_A', 'CUSTOM_M', 'CUSTOM_B_2', 'CUSTOM_B2']
    aggregates = ['bbbbbbbb-0000-0000-0000-%012d' % i for i in range(4)]
    for name in names:
        yield 'PUT', '/traits/' + name, None
    yield 'PUT', '/resource_classes/CUSTOM_A', None
    for i in range(1, 31):
        rp = _uuid(i)
        yield 'POST', '/resource_providers', {'name': 'host-%02d' % (31 - i),
                                              'uuid': rp}
        inventories = {
            'VCPU': {'total': i % 7 + 1, 'reserved': i % 2,
                     'allocation_ratio': [1.0, 2.5, 0.3, 16.0][i % 4]},
            'MEMORY_MB': {'total': 1024 * (i % 5 + 1), 'max_unit': 2048}}
        if i % 3 == 0:
            inventories['CUSTOM_A'] = {'total': 3}
        yield _inventories(rp, 0, inventories)
        yield ('PUT', '/resource_providers/%s/traits' % rp, {
            'traits': [t for j, t in enumerate(names + ['HW_CPU_X86_AVX'])
                       if (i >> j) & 1],
            'resource_provider_generation': 1})
        yield ('PUT', '/resource_providers/%s/aggregates' % rp, {
            'aggregates': sorted({aggregates[i % 4],
                                  aggregates[(i * 7) % 4]}),
            'resource_provider_generation': 2})
    for c in range(10):
        yield _allocate(1000 + c, {_uuid(c + 1): {'VCPU': 1,
                                                  'MEMORY_MB': 256},
                                   _uuid(c + 11): {'MEMORY_MB': 512}},
                        project='p%d' % (c % 3), user='u%d' % (c % 2),
                        consumer_type=['INSTANCE', 'MIGRATION'][c % 2])
    for query in (
            'resources=VCPU:1', 'resources=VCPU:2,MEMORY_MB:1024',
            'resources=VCPU:1&limit=5',
            'resources=VCPU:3&required=CUSTOM_Z,!CUSTOM_M',
            'resources=CUSTOM_A:1&required=in:CUSTOM_B_2,CUSTOM_B2',
            'resources=VCPU:1&member_of=in:%s,%s&member_of=!%s' % (
                aggregates[0], aggregates[1], aggregates[3]),
            'resources=MEMORY_MB:2048', 'resources=MEMORY_MB:2049',
            'resources=VCPU:4&root_required=HW_CPU_X86_AVX',
            'resources1=VCPU:1&resources2=MEMORY_MB:512'
            '&group_policy=isolate&limit=7',
            'resources=VCPU:1,MEMORY_MB:256,CUSTOM_A:1'):
        yield 'GET', '/allocation_candidates?' + query, None
    for query in ('', 'resources=VCPU:2', 'required=CUSTOM_B_2',
                  'member_of=%s' % aggregates[2], 'name=host-07',
                  'resources=CUSTOM_A:3',
                  'required=in:CUSTOM_Z,CUSTOM_M&required=!CUSTOM_A'):
        yield 'GET', '/resource_providers?' + query, None
    yield 'GET', '/traits?name=startswith:CUSTOM_B', None
    yield 'GET', '/traits?associated=false', None
    for project in ('p0', 'p1', 'p2'):
        yield 'GET', '/usages?project_id=%s' % project, None
        yield 'GET', '/usages?project_id=%s&user_id=u1' % project, None
    yield 'GET', '/resource_providers/%s/allocations' % _uuid(12), None
    yield 'POST', '/allocations', {
        _uuid(1003): {'allocations': {_uuid(20): {'resources': {'VCPU': 1}}},
                      'project_id': 'p0', 'user_id': 'u0',
                      'consumer_generation': 1, 'consumer_type': 'INSTANCE'},
        _uuid(1004): {'allocations': {}, 'project_id': 'p1',
                      'user_id': 'u0', 'consumer_generation': 1,
                      'consumer_type': 'INSTANCE'}}
    yield 'GET', '/allocations/%s' % _uuid(1003), None
    yield 'DELETE', '/resource_providers/%s' % _uuid(20), None
    yield 'DELETE', '/resource_classes/CUSTOM_A', None
    yield 'GET', '/resource_providers?resources=VCPU:1', None


def wide():
    """A provider with hundreds of traits and many classes, with sums
    past 32 bits: long texts and big numbers the database builds."""
    rp, child = _uuid(1), _uuid(2)
    yield 'POST', '/resource_providers', {'name': 'wide', 'uuid': rp}
    yield _inventories(rp, 0, {
        'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 4096, 'reserved': 7},
        'DISK_GB': {'total': 10, 'allocation_ratio': 0.7},
        'PCI_DEVICE': {'total': 4}, 'SRIOV_NET_VF': {'total': 16},
        'IPV4_ADDRESS': {'total': 20, 'allocation_ratio': 0.123456789},
        'VGPU': {'total': 2, 'allocation_ratio': 1234567.89},
        'NET_BW_IGR_KILOBIT_PER_SEC': {'total': 2147483647,
                                       'allocation_ratio': 3.7}})
    yield ('PUT', '/resource_providers/%s/traits' % rp, {
        'traits': sorted(t for t in os_traits.get_traits()
                         if t.startswith(('HW_', 'COMPUTE_'))),
        'resource_provider_generation': 1})
    for consumer in (100, 101):
        yield _allocate(consumer, {rp: {'NET_BW_IGR_KILOBIT_PER_SEC':
                                        2147483647}})
    yield 'GET', '/resource_providers/%s/inventories' % rp, None
    yield 'GET', '/allocation_candidates?resources=DISK_GB:7', None
    yield 'GET', ('/allocation_candidates?resources='
                  'NET_BW_IGR_KILOBIT_PER_SEC:1000'), None
    yield 'GET', '/resource_providers/%s/usages' % rp, None
    yield 'GET', '/usages?project_id=p', None
    yield 'POST', '/resource_providers', {'name': 'child', 'uuid': child,
                                          'parent_provider_uuid': rp}
    yield _inventories(child, 0, {'VCPU': {'total': 4}})
    yield 'GET', '/allocation_candidates?resources=DISK_GB:7,VCPU:1', None
    yield 'GET', '/resource_providers/%s/traits' % rp, None


def names():
    """Names and ids in another case are other names and ids."""
    yield 'PUT', '/traits/CUSTOM_GPU', None
    yield 'GET', '/traits/custom_gpu', None
    yield 'GET', '/traits?name=startswith:custom', None
    yield 'PUT', '/resource_classes/CUSTOM_FOO', None
    yield 'DELETE', '/resource_classes/custom_foo', None
    yield 'GET', '/resource_classes/CUSTOM_FOO', None
    yield 'POST', '/resource_providers', {'name': 'cn1', 'uuid': _uuid(1)}
    yield 'POST', '/resource_providers', {'name': 'CN1', 'uuid': _uuid(2)}
    yield 'GET', '/resource_providers?name=CN1', None
    yield ('PUT', '/resource_providers/%s/aggregates' % _uuid(1),
           {'aggregates': [AGG1.upper()], 'resource_provider_generation': 0})
    yield 'GET', '/resource_providers?member_of=%s' % AGG1, None
    yield _allocate(100, {}, project='Proj')
    yield 'GET', '/usages?project_id=proj', None


class _SameAnswers:
    """Each scenario on the backend answers as on SQLite."""

    def _answers(self, database: fixtures.fixtures.Fixture,
                 scenario) -> list:
        with database, fixtures.APIFixture(api_app.build_placement) as api:
            answers = []
            for method, path, body in scenario():
                response = api.request(method, path, body=body,
                                       headers=HEADERS)
                # Request ids differ from run to run.
                answers.append('%s %s -> %d %s' % (
                    method, path, response.status,
                    re.sub(r'req-[0-9a-f-]+', 'req-ID', response.text)))
            return answers

    def _compare(self, scenario) -> None:
        # First: it skips when the server does not answer.
        database = self.database_fixture()
        reference = self._answers(fixtures.DatabaseFixture(), scenario)
        answers = self._answers(database, scenario)
        self.assertEqual(len(reference), len(answers))
        for expected, got in zip(reference, answers):
            self.assertEqual(expected, got)

    def test_trees(self):
        self._compare(trees)

    def test_flat(self):
        self._compare(flat)

    def test_wide(self):
        self._compare(wide)

    def test_names(self):
        self._compare(names)


class TestSameAnswersMySQL(backends.OnBackend, _SameAnswers, base.TestCase):
    BACKEND = 'mysql'


class TestSameAnswersPostgreSQL(backends.OnBackend, _SameAnswers,
                                base.TestCase):
    BACKEND = 'postgresql'
