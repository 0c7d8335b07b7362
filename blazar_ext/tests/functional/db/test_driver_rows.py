"""db.driver_read on the Placement statements (the candidates', built
once per filter with their values) and the shapes they bind: a
built-once statement read on the DBAPI cursor gives what SQLAlchemy's
execution gives, on SQLite, MariaDB/MySQL and PostgreSQL."""

from unittest import mock

from oslo_db import exception as db_exc
import sqlalchemy as sa

from blazar_ext import context as blazar_context
from blazar_ext.db.api.placement import allocation_candidate as ac_api
from blazar_ext.db.api.placement import candidate_trees
from blazar_ext.db.api.placement import resource_class as rc_api
from blazar_ext.db.api.placement import trait as trait_api
from blazar_ext.db import driver_read
from blazar_ext.db.models import placement as models
from blazar_ext.db import session as db_session
from blazar_ext.tests import base
from blazar_ext.tests.functional import backends

RC = models.ResourceClass
TRAIT = models.Trait
RP = models.ResourceProvider

# Fixed values, a '%' operator (written %% in the 'format' and
# 'pyformat' parameter styles), an expanding list, a Boolean that
# SQLAlchemy converts from SQLite's and MySQL's integers, a LIMIT.
_BY_NAME = sa.select(RC.id, RC.name).where(
    RC.name.in_(['VCPU', 'DISK_GB'])).order_by(RC.id)
_MODULO = sa.select(RC.id, (RC.id % 3).label('rest')).where(
    RC.name == 'MEMORY_MB')
_BY_IDS = sa.select(TRAIT.id, TRAIT.name).where(
    TRAIT.id.in_(sa.bindparam('ids', expanding=True))).order_by(TRAIT.id)
# A value given, a list given, a value of the statement's own.
_MIXED = sa.select(TRAIT.id, TRAIT.name).where(
    TRAIT.id.in_(sa.bindparam('ids', expanding=True)),
    TRAIT.id >= sa.bindparam('least')).order_by(TRAIT.id).limit(2)
_FLAGS = sa.select(RC.name, sa.exists().where(RC.id < 0).label('none'),
                   sa.exists().where(RC.id > 0).label('some')).order_by(
    RC.id).limit(2)
_MISSING = sa.select(sa.table('no_such_table', sa.column('x')).c.x)


class TestDriverRows(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.context = blazar_context.get_admin_context()
        # The service's standard classes and traits.
        rc_api.sync_standard_classes(self.context)
        trait_api.sync_standard_traits(self.context)

    def _both(self, statement, params=None) -> tuple:
        with db_session.reader.connection.using(self.context) as conn:
            expected = [tuple(row) for row in
                        conn.execute(statement, params).all()]
            got = driver_read.rows(conn, statement, params)[1]
            again = driver_read.rows(conn, statement, params)[1]
        return expected, got, again

    def _check(self, statement, params=None) -> list:
        expected, got, again = self._both(statement, params)
        self.assertTrue(expected)
        for rows in (got, again):  # compiled, then kept
            self.assertIsInstance(rows, list)
            self.assertEqual(expected, [tuple(row) for row in rows])
            self.assertEqual([tuple(map(type, row)) for row in expected],
                             [tuple(map(type, row)) for row in rows])
        return got

    def test_fixed_values(self):
        self.assertEqual(['DISK_GB', 'VCPU'],
                         sorted(name for _, name in self._check(_BY_NAME)))

    def test_modulo(self):
        ((cid, rest),) = self._check(_MODULO)
        self.assertEqual(cid % 3, rest)

    def test_expanding_list(self):
        with db_session.reader.connection.using(self.context) as conn:
            ids = [i for i, in conn.execute(
                sa.select(TRAIT.id).order_by(TRAIT.id).limit(3))]
        self.assertEqual(3, len(self._check(_BY_IDS, {'ids': ids})))
        self.assertEqual(1, len(self._check(_BY_IDS, {'ids': ids[1:2]})))

    def test_values_and_lists(self):
        with db_session.reader.connection.using(self.context) as conn:
            ids = [i for i, in conn.execute(
                sa.select(TRAIT.id).order_by(TRAIT.id).limit(4))]
        for least, lists in ((ids[0], ids), (ids[2], ids), (ids[0], ids[3:]),
                             (ids[1], ids[:3])):
            # Each shape's recipe is found once, then reused.
            self._check(_MIXED, {'ids': lists, 'least': least})
        self.assertEqual([(ids[2], mock.ANY), (ids[3], mock.ANY)],
                         self._check(_MIXED, {'ids': ids, 'least': ids[2]}))

    def test_booleans_converted(self):
        rows = self._check(_FLAGS)
        self.assertEqual([(False, True)] * 2, [row[1:] for row in rows])
        self.assertIs(True, rows[0][2])

    def test_candidate_statements(self):
        self._check(ac_api._CLASSES_AND_TREES)
        with db_session.reader.connection.using(self.context) as conn:
            classes = ac_api.class_names(conn)
        vcpu = {name: cid for cid, name in classes.items()}['VCPU']
        with db_session.writer.using(self.context) as session:
            for n in range(1, 13):
                session.add(RP(id=n, uuid='%032d' % n, name='rp%d' % n,
                               generation=0, root_provider_id=n))
                session.flush()
                session.add(models.Inventory(
                    resource_provider_id=n, resource_class_id=vcpu,
                    total=8, reserved=0, min_unit=1, max_unit=8,
                    step_size=1, allocation_ratio=2.0))
        statement = ac_api.candidate_query(
            {name: cid for cid, name in classes.items()}, {'VCPU': 1},
            limit=10)
        expected, got, again = self._both(statement)
        self.assertEqual(10, len(expected))
        self.assertEqual(expected, [tuple(row) for row in got])
        self.assertEqual(expected, [tuple(row) for row in again])

    def test_uses_trees(self):
        with db_session.writer.using(self.context) as session:
            session.add(RP(id=1, uuid='a' * 32, name='root', generation=0,
                           root_provider_id=1))
        with db_session.reader.connection.using(self.context) as conn:
            self.assertFalse(candidate_trees.uses_trees(conn))
            self.assertEqual(0, driver_read.rows(
                conn, ac_api._CLASSES_AND_TREES)[1][0][2])
        with db_session.writer.using(self.context) as session:
            session.add(RP(id=2, uuid='b' * 32, name='child', generation=0,
                           parent_provider_id=1, root_provider_id=1))
        with db_session.reader.connection.using(self.context) as conn:
            self.assertTrue(candidate_trees.uses_trees(conn))
            self.assertEqual(1, driver_read.rows(
                conn, ac_api._CLASSES_AND_TREES)[1][0][2])

    def test_error_raised_as_sqlalchemy_raises_it(self):
        # Wrapped, as by SQLAlchemy and oslo.db: not the driver's own.
        with db_session.reader.connection.using(self.context) as conn:
            self.assertRaises((db_exc.DBError, sa.exc.StatementError),
                              driver_read.rows, conn, _MISSING)


TestDriverRowsMySQL, TestDriverRowsPostgreSQL = backends.on_each_backend(
    TestDriverRows)
