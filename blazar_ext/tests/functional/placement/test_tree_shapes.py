"""Allocation candidates over trees: answers found once per pattern of
options and reused for every tree like it are the answers each tree
gives when enumerated on its own, in the same order."""

from unittest import mock

from blazar_ext import context as blazar_context
from blazar_ext.db.api.placement import aggregate as agg_api
from blazar_ext.db.api.placement import candidate_trees
from blazar_ext.db.api.placement import inventory as inv_api
from blazar_ext.db.api.placement import resource_class as rc_api
from blazar_ext.db.api.placement import resource_provider as rp_api
from blazar_ext.db.api.placement import trait as trait_api
from blazar_ext.db import session as db_session
from blazar_ext.query import traits as trait_query
from blazar_ext.tests import base
from blazar_ext.tests.functional import backends

AGG_A = 'aaaaaaaa-0000-0000-0000-000000000001'
AGG_B = 'aaaaaaaa-0000-0000-0000-000000000002'
Group = candidate_trees.RequestGroup


class TestTreeShapes(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.ctx = blazar_context.get_admin_context()
        trait_api.sync_standard_traits(self.ctx)
        rc_api.sync_standard_classes(self.ctx)
        # Pools made before and after the hosts they serve, hosts whose
        # children come in different orders and amounts: trees of
        # several patterns, and several trees of one pattern.
        self._pool('pool-a', [AGG_A])
        for host in range(4):
            self._host('h%d' % host, [AGG_A], numa=2)
        self._host('odd', [AGG_A, AGG_B], numa=1, own_disk=True)
        self._host('small', [AGG_B], numa=2, vcpu=1)
        self._pool('pool-b', [AGG_B])
        self._host('late', [AGG_B], numa=3)
        self._host('lone', [], numa=2)

    def _provider(self, name, parent=None, inventories=None, traits=(),
                  aggregates=()):
        provider = rp_api.create(self.ctx, name, parent_uuid=parent)
        generation = 0
        if inventories:
            inv_api.set_inventories(self.ctx, provider['uuid'],
                                    inventories, generation)
            generation += 1
        if traits:
            trait_api.set_provider_traits(self.ctx, provider['uuid'],
                                          list(traits), generation)
        if aggregates:
            agg_api.set_aggregates(self.ctx, provider['uuid'],
                                   list(aggregates))
        return provider['uuid']

    def _pool(self, name, aggregates):
        self._provider(name, inventories={'DISK_GB': {'total': 1000}},
                       traits=['MISC_SHARES_VIA_AGGREGATE'],
                       aggregates=aggregates)

    def _host(self, name, aggregates, numa, vcpu=8, own_disk=False):
        root = self._provider(
            name, inventories={'DISK_GB': {'total': 500}} if own_disk
            else None, traits=['HW_CPU_X86_AVX'], aggregates=aggregates)
        for index in range(numa):
            self._provider('%s-numa%d' % (name, index), parent=root,
                           inventories={'VCPU': {'total': vcpu},
                                        'MEMORY_MB': {'total': 4096}})

    def _find(self, groups, **kwargs):
        with db_session.reader.using(self.ctx) as session:
            conn = session.connection()
            names = {n for g in groups for n in g.resources}
            class_ids = dict(zip(sorted(names), (
                cid for cid, _ in rp_api.resource_amounts(
                    session, dict.fromkeys(sorted(names), 1)))))
            found, _ = candidate_trees.find(conn, groups, class_ids,
                                            **kwargs)
        return [request for pids, shape in found
                for request in candidate_trees.expanded(pids, shape)]

    def _assert_shapes_change_nothing(self, groups, **kwargs):
        reused = self._find(groups, **kwargs)
        with mock.patch.object(candidate_trees._Request, 'general',
                               new_callable=mock.PropertyMock,
                               return_value=True):
            alone = self._find(groups, **kwargs)
        self.assertEqual(alone, reused)
        return reused

    def test_unnamed_group_over_trees_and_pools(self):
        found = self._assert_shapes_change_nothing([Group(resources={
            'VCPU': 1, 'MEMORY_MB': 1024, 'DISK_GB': 100})])
        # h0-h3: 2 x 2 from the pool; odd: own disk or pool a or b;
        # small: 4; late: 9; lone has no disk.
        self.assertEqual(4 * 4 + 3 + 4 + 9, len(found))

    def test_granular_isolate_and_none(self):
        for policy in ('isolate', 'none'):
            self._assert_shapes_change_nothing([
                Group(suffix='1', resources={'VCPU': 1}),
                Group(suffix='2', resources={'MEMORY_MB': 1024}),
                Group(suffix='3', resources={'DISK_GB': 100})],
                group_policy=policy)
            self._assert_shapes_change_nothing([
                Group(suffix='1', resources={'VCPU': 1, 'MEMORY_MB': 1}),
                Group(suffix='2', resources={'DISK_GB': 100})],
                group_policy=policy)

    def test_suffixed_groups_summed_on_one_provider(self):
        # Each suffixed group's classes come from one query; two groups
        # on one NUMA node must fit its capacity together.
        counts = []
        for vcpu in (4, 5):
            counts.append(len(self._assert_shapes_change_nothing([
                Group(suffix='1', resources={'VCPU': vcpu,
                                             'MEMORY_MB': 1024}),
                Group(suffix='2', resources={'VCPU': vcpu,
                                             'MEMORY_MB': 1024})],
                group_policy='none')))
        # 2 x 2 a two-node host (h0-h3, lone), 1 on odd, 3 x 3 on late;
        # with 5 VCPU each, never both on one node.
        self.assertEqual([4 * 5 + 1 + 9, 2 * 5 + 0 + 6], counts)

    def test_root_filter_resourceless_group_and_limits(self):
        avx = trait_query.parse('HW_CPU_X86_AVX')
        groups = [Group(resources={'VCPU': 1}),
                  Group(suffix='1', required=avx),
                  Group(suffix='2', resources={'DISK_GB': 10})]
        everything = self._assert_shapes_change_nothing(
            groups, group_policy='none', root_filter=avx)
        for limit in (1, 3, 7, len(everything) - 1):
            self.assertEqual(everything[:limit],
                             self._assert_shapes_change_nothing(
                                 groups, group_policy='none',
                                 root_filter=avx, limit=limit))

    def test_sharing_providers_alone_come_once(self):
        found = self._assert_shapes_change_nothing([Group(resources={
            'DISK_GB': 100})])
        # pool a, pool b, odd's own disk: each once, though the pools
        # serve several trees.
        self.assertEqual(3, len(found))


TestTreeShapesMySQL, TestTreeShapesPostgreSQL = (
    backends.on_each_backend(TestTreeShapes))
