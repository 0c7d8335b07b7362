"""Placement read statements are built once per query shape and reused."""

from oslotest import base
import sqlalchemy as sa

from blazar_ext.db.api.placement import allocation_candidate as ac_api
from blazar_ext.db.api.placement import provider_base
from blazar_ext.db.api.placement import resource_provider as rp_api
from blazar_ext.db.models import placement as models
from blazar_ext.query import traits as trait_query

RP = models.ResourceProvider
AVX = trait_query.TraitRequirement(required=frozenset({'HW_CPU_X86_AVX'}),
                                   forbidden=frozenset({'CUSTOM_GPU'}))


class TestStatementsBuiltOnce(base.BaseTestCase):

    def test_candidate_select_reused_for_the_same_request(self):
        args = (((0, 1),), AVX, None, (frozenset({'a'}),), frozenset(),
                None, 100)
        first = ac_api._candidate_select(*args)
        self.assertIs(first, ac_api._candidate_select(*args))
        other = ac_api._candidate_select(((0, 2),), *args[1:])
        self.assertIsNot(first, other)

    def test_provider_list_select_reused_for_the_same_filters(self):
        args = (None, None, None, (), frozenset(), ((0, 1),), AVX)
        self.assertIs(rp_api._list_select(*args),
                      rp_api._list_select(*args))
        self.assertIsNot(rp_api._list_select(*args),
                         rp_api._list_select('rp-1', *args[1:]))


class TestExecuteForIds(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.engine = sa.create_engine('sqlite://')
        RP.__table__.create(self.engine)
        with self.engine.begin() as conn:
            conn.execute(sa.insert(RP.__table__), [
                dict(id=i, uuid='u%d' % i, name='rp-%d' % i, generation=0,
                     root_provider_id=i) for i in range(1, 301)])
        self.addCleanup(self.engine.dispose)

    def _uuids(self, conn, ids):
        return dict(provider_base.execute_for_ids(
            conn, provider_base._uuids_select, ids).all())

    def test_few_ids_one_cached_statement(self):
        with self.engine.connect() as conn:
            self.assertEqual({1: 'u1', 2: 'u2'}, self._uuids(conn, [1, 2]))
            result = provider_base.execute_for_ids(
                conn, provider_base._uuids_select, [3, 4, 5])
            self.assertEqual({3: 'u3', 4: 'u4', 5: 'u5'}, dict(result.all()))
            # Another list of ids is the same statement: a cache hit.
            self.assertEqual(result.context.cache_hit,
                             result.context.dialect.CACHE_HIT)
            self.assertEqual({}, self._uuids(conn, []))

    def test_few_ids_build_the_statement_once(self):
        built = []

        def build(where):
            built.append(where)
            return sa.select(RP.id).where(where(RP.id)).order_by(RP.id)
        with self.engine.connect() as conn:
            for ids in ([1], [2, 3], [4, 5, 6]):
                self.assertEqual(ids, list(provider_base.execute_for_ids(
                    conn, build, ids).scalars()))
            self.assertEqual(1, len(built))
            many = list(range(1, 151))
            self.assertEqual(many, list(provider_base.execute_for_ids(
                conn, build, many).scalars()))
            self.assertEqual(2, len(built))

    def test_many_ids_written_in(self):
        ids = list(range(1, 201))
        with self.engine.connect() as conn:
            self.assertEqual({i: 'u%d' % i for i in ids},
                             self._uuids(conn, ids))
