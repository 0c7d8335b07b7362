"""Flat allocation candidates: each provider's summary as the database
writes it (inventories and trait ids joined into text) says what its rows
say, on SQLite, MariaDB and PostgreSQL."""

from oslo_utils import uuidutils
import sqlalchemy as sa

from blazar_ext import context as blazar_context
from blazar_ext.db.api.placement import allocation as alloc_api
from blazar_ext.db.api.placement import allocation_candidate as ac_api
from blazar_ext.db.api.placement import candidate_trees
from blazar_ext.db.api.placement import inventory as inv_api
from blazar_ext.db.api.placement import resource_class as rc_api
from blazar_ext.db.api.placement import resource_provider as rp_api
from blazar_ext.db.api.placement import trait as trait_api
from blazar_ext.db import session as db_session
from blazar_ext import exceptions
from blazar_ext.tests import base
from blazar_ext.tests.functional import backends

# More trait ids than MySQL's GROUP_CONCAT keeps by default (1,024 bytes;
# MariaDB keeps 1 MiB): db/session.py raises the bound.
MANY_TRAITS = ['CUSTOM_TRAIT_%04d' % i for i in range(300)]


class TestFlatSummaries(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.ctx = blazar_context.get_admin_context()
        trait_api.sync_standard_traits(self.ctx)
        rc_api.sync_standard_classes(self.ctx)
        for name in MANY_TRAITS:
            trait_api.create_trait(self.ctx, name)

    def _provider(self, name: str, inventories: dict, traits: list) -> str:
        uuid = rp_api.create(self.ctx, name)['uuid']
        inv_api.set_inventories(self.ctx, uuid, inventories, 0)
        trait_api.set_provider_traits(self.ctx, uuid, traits, 1)
        return uuid

    def _allocate(self, uuid: str, resources: dict) -> None:
        alloc_api.replace_allocations(self.ctx, {
            uuidutils.generate_uuid(): {
                'allocations': {uuid: resources}, 'project_id': 'p',
                'user_id': 'u'}})

    def test_summaries_are_the_rows(self):
        odd = self._provider('odd', {
            'VCPU': {'total': 32, 'allocation_ratio': 0.3},
            'MEMORY_MB': {'total': 4096, 'reserved': 7,
                          'allocation_ratio': 1.1},
            'DISK_GB': {'total': 100}}, MANY_TRAITS + ['HW_CPU_X86_AVX'])
        plain = self._provider('plain', {'VCPU': {'total': 8}}, [])
        self._allocate(odd, {'VCPU': 2, 'MEMORY_MB': 100})
        self._allocate(odd, {'VCPU': 1})
        flat = ac_api.get_candidates(self.ctx, {'VCPU': 1})
        self.assertEqual([odd, plain], flat.uuids)
        self.assertEqual([None, None], flat.parents)
        self.assertEqual([odd, plain], flat.roots)
        # Capacity truncated as int() does: 32 * 0.3 = 9.6, 4089 * 1.1 =
        # 4497.9; classes in id order, traits in id order.
        self.assertEqual(
            [{'VCPU': {'capacity': 9, 'used': 3},
              'MEMORY_MB': {'capacity': 4497, 'used': 100},
              'DISK_GB': {'capacity': 100, 'used': 0}},
             {'VCPU': {'capacity': 8, 'used': 0}}], flat.resources)
        self.assertEqual(['HW_CPU_X86_AVX'] + MANY_TRAITS, flat.traits[0])
        self.assertEqual([], flat.traits[1])

    def test_alike_providers_share_their_summary(self):
        first, second = (
            self._provider(name, {'VCPU': {'total': 4}}, ['HW_CPU_X86_SSE'])
            for name in ('first', 'second'))
        flat = ac_api.get_candidates(self.ctx, {'VCPU': 1})
        self.assertEqual([first, second], flat.uuids)
        self.assertIs(flat.resources[0], flat.resources[1])
        self.assertIs(flat.traits[0], flat.traits[1])

    def _statements(self, groups: list) -> tuple:
        """(result, statements run) of get_any_candidates(groups)."""
        seen = []

        def count(conn, cursor, statement, *args):
            if not statement.lstrip().upper().startswith(
                    ('BEGIN', 'COMMIT', 'ROLLBACK', 'SAVEPOINT', 'RELEASE')):
                seen.append(statement)
        sa.event.listen(sa.engine.Engine, 'before_cursor_execute', count)
        try:
            result = ac_api.get_any_candidates(
                self.ctx, groups,
                {'resources': groups[0].resources, 'limit': 10})
        finally:
            sa.event.remove(sa.engine.Engine, 'before_cursor_execute', count)
        return result, seen

    def test_flat_request_is_three_statements(self):
        # Classes with the trees flag, the candidates, their trait names.
        uuid = self._provider('one', {'VCPU': {'total': 4}},
                              ['HW_CPU_X86_SSE'])
        result, statements = self._statements(
            [candidate_trees.RequestGroup(resources={'VCPU': 1})])
        self.assertIsInstance(result, ac_api.FlatCandidates)
        self.assertEqual([uuid], result.uuids)
        self.assertEqual(['HW_CPU_X86_SSE'], result.traits[0])
        self.assertEqual(3, len(statements), statements)

    def test_unknown_class_still_refused(self):
        self._provider('one', {'VCPU': {'total': 4}}, [])
        self.assertRaisesRegex(
            exceptions.InvalidProviderRequest,
            'Invalid resource class in resources parameter: No such '
            'resource class CUSTOM_NOPE', self._statements,
            [candidate_trees.RequestGroup(resources={'CUSTOM_NOPE': 1})])

    def test_classes_and_trees_flag(self):
        # Flat data, then a child, then (without the child) a sharing
        # provider: the flag each class row carries follows.
        root = self._provider('root', {'VCPU': {'total': 4}}, [])
        with db_session.reader.using(self.ctx) as session:
            classes, trees = ac_api._classes_and_trees(session.connection())
        self.assertFalse(trees)
        self.assertIn('VCPU', classes.values())
        child = rp_api.create(self.ctx, 'child', parent_uuid=root)['uuid']
        with db_session.reader.using(self.ctx) as session:
            self.assertTrue(
                ac_api._classes_and_trees(session.connection())[1])
        rp_api.delete(self.ctx, child)
        self._provider('pool', {'DISK_GB': {'total': 100}},
                       [candidate_trees.SHARING_TRAIT])
        with db_session.reader.using(self.ctx) as session:
            self.assertTrue(
                ac_api._classes_and_trees(session.connection())[1])


TestFlatSummariesMySQL, TestFlatSummariesPostgreSQL = (
    backends.on_each_backend(TestFlatSummaries))


class TestMySQLJoinsLongLists(backends.OnBackend, base.DBTestCase):
    """Only MySQL cuts GROUP_CONCAT short; every connection lifts it."""

    BACKEND = 'mysql'

    def test_group_concat_bound(self):
        with db_session.reader.using(
                blazar_context.get_admin_context()) as session:
            self.assertEqual(4194304, session.scalar(
                sa.text('SELECT @@SESSION.group_concat_max_len')))
