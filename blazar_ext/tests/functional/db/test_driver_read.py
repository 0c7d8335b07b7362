"""db.driver_read against SQLAlchemy's own execution, on SQLite, MySQL
and PostgreSQL (tests.functional.backends):
the same names and values, the same transaction, oslo.db's exceptions,
and statement listeners still shown every statement."""

import datetime
import logging

import fixtures as fixtures_lib
from oslo_db import exception as db_exc
import sqlalchemy as sa

from blazar_ext import context as blazar_context
from blazar_ext.db import driver_read
from blazar_ext.db import session as db_session
from blazar_ext.tests import base
from blazar_ext.tests.functional import backends

METADATA = sa.MetaData()
THINGS = sa.Table(
    'driver_read_things', METADATA,
    sa.Column('id', sa.String(36), primary_key=True),
    sa.Column('number', sa.Integer),
    sa.Column('flag', sa.Boolean, nullable=False),
    sa.Column('at', sa.DateTime),
    sa.Column('note', sa.Text))
# A table the database does not have.
MISSING = sa.Table('driver_read_missing', sa.MetaData(),
                   sa.Column('id', sa.String(36), primary_key=True))

T0 = datetime.datetime(2030, 1, 2, 3, 4, 5, 678901)
ROWS = [{'id': 't%d' % n, 'number': n if n % 3 else None,
         'flag': n % 2 == 0, 'at': T0 + datetime.timedelta(hours=n),
         'note': 'note \u00e9 %d' % n if n % 4 else None}
        for n in range(12)]

STATEMENTS = {
    'all': (sa.select(THINGS).order_by(THINGS.c.id), None),
    'by id': (sa.select(THINGS).where(THINGS.c.id == sa.bindparam('id')),
              {'id': 't5'}),
    'datetime bound': (
        sa.select(THINGS.c.id, THINGS.c.at)
        .where(THINGS.c.at > sa.bindparam('after')).order_by(THINGS.c.at),
        {'after': T0 + datetime.timedelta(hours=7)}),
    'expanding': (
        sa.select(THINGS.c.id, THINGS.c.flag)
        .where(THINGS.c.id.in_(sa.bindparam('ids', expanding=True)))
        .order_by(THINGS.c.id),
        {'ids': ['t1', 't4', 't9', 'nope']}),
    'labelled, limited': (
        sa.select(THINGS.c.id.label('thing'),
                  sa.func.coalesce(THINGS.c.number, -1).label('n'))
        .where(THINGS.c.flag == sa.bindparam('flag'))
        .order_by(THINGS.c.id).limit(sa.bindparam('size')),
        {'flag': True, 'size': 4}),
    'two lists, datetimes': (
        sa.select(THINGS.c.id)
        .where(THINGS.c.id.in_(sa.bindparam('ids', expanding=True)),
               THINGS.c.at.in_(sa.bindparam('times', expanding=True)))
        .order_by(THINGS.c.id),
        {'ids': ['t2', 't3', 't4'],
         'times': [T0 + datetime.timedelta(hours=3),
                   T0 + datetime.timedelta(hours=4)]}),
    'pairs': (
        sa.select(THINGS.c.id).where(
            sa.tuple_(THINGS.c.id, THINGS.c.number).in_(
                sa.bindparam('pairs', expanding=True)))
        .order_by(THINGS.c.id),
        {'pairs': [('t1', 1), ('t2', 2), ('t3', 4)]}),
    'values of its own': (
        sa.select(THINGS.c.id).where(
            THINGS.c.id.in_(['t1', 't2', 't7']),
            THINGS.c.at > T0 + datetime.timedelta(hours=1),
            THINGS.c.flag.is_(True)).order_by(THINGS.c.id),
        None),
    'nothing': (sa.select(THINGS).where(THINGS.c.id == sa.bindparam('id')),
                {'id': 'absent'}),
}


class TestDriverRead(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.engine = db_session.get_engine()
        METADATA.create_all(self.engine)
        self.addCleanup(METADATA.drop_all, self.engine)
        with self.engine.begin() as connection:
            connection.execute(THINGS.insert(), ROWS)
        self.context = blazar_context.get_admin_context()

    def _both(self, statement, params):
        with db_session.reader.using(self.context) as session:
            connection = session.connection()
            result = connection.execute(statement, params)
            expected = (list(result.keys()), [tuple(r) for r in result])
            return expected, driver_read.rows(connection, statement, params)

    def test_same_names_and_values_as_sqlalchemy(self):
        for label, (statement, params) in STATEMENTS.items():
            for _ in range(2):  # the plan made, then the plan kept
                expected, got = self._both(statement, params)
                self.assertEqual(expected, (got[0], list(got[1])), label)
        # Types as SQLAlchemy gives them, not as the driver stores them.
        _keys, rows = self._both(*STATEMENTS['by id'])[1]
        self.assertEqual(('t5', 5, False, 'note \u00e9 5'),
                         rows[0][:3] + rows[0][4:])
        self.assertIs(False, rows[0][2])
        # MySQL's DATETIME keeps whole seconds.
        self.assertEqual(T0.replace(microsecond=0)
                         + datetime.timedelta(hours=5),
                         rows[0][3].replace(microsecond=0))

    def test_each_call_binds_its_own_values(self):
        statement = STATEMENTS['expanding'][0]
        with db_session.reader.using(self.context) as session:
            connection = session.connection()
            for ids in (['t2'], ['t3', 't0'], [], ['t11'] * 3):
                self.assertEqual(
                    sorted(set(ids) & {r['id'] for r in ROWS}),
                    [row[0] for row in driver_read.rows(
                        connection, statement, {'ids': ids})[1]], ids)

    def test_lists_of_each_length(self):
        # Expansions are kept per length: each call's values still bound.
        statement = STATEMENTS['two lists, datetimes'][0]
        hours = {'t%d' % n: T0 + datetime.timedelta(hours=n)
                 for n in range(12)}
        for ids, times in ((['t2'], ['t2']), (['t5', 't6'], ['t6', 't7']),
                           ([], ['t1']), (['t1', 't8'], ['t1', 't8']),
                           (['t9'], ['t9', 't9', 't9']), (['t2'], ['t2'])):
            params = {'ids': ids, 'times': [hours[t] for t in times]}
            expected, got = self._both(statement, params)
            # (MySQL's DATETIME dropped the microseconds: no match there.)
            self.assertEqual(expected, (got[0], list(got[1])), params)
        for pairs in ([('t4', 4)], [('t1', 1), ('t5', 5)], []):
            expected, got = self._both(STATEMENTS['pairs'][0],
                                       {'pairs': pairs})
            self.assertEqual(expected, (got[0], list(got[1])), pairs)
            self.assertEqual([p[0] for p in pairs], [r[0] for r in got[1]])

    def test_records_and_dicts_are_read_by_name(self):
        statement, params = STATEMENTS['labelled, limited']
        with db_session.reader.using(self.context) as session:
            connection = session.connection()
            expected = connection.execute(statement, params).all()
            for _ in range(2):
                got = driver_read.records(connection, statement, params)
                self.assertEqual([tuple(row) for row in expected],
                                 [tuple(row) for row in got])
                self.assertEqual([(row.thing, row.n) for row in expected],
                                 [(row.thing, row.n) for row in got])
                self.assertEqual([row[1] for row in expected],
                                 [row[1] for row in got])
                self.assertEqual([dict(row._mapping) for row in expected],
                                 driver_read.dicts(connection, statement,
                                                   params))

    def test_reads_the_callers_transaction(self):
        statement, params = STATEMENTS['by id']
        with self.engine.begin() as connection:
            connection.execute(THINGS.update().where(THINGS.c.id == 't5')
                               .values(note='not yet committed'))
            rows = driver_read.rows(connection, statement, params)[1]
            self.assertEqual('not yet committed', rows[0][4])

    def _raised(self, read) -> BaseException:
        with db_session.reader.using(self.context) as session:
            try:
                read(session.connection(), sa.select(MISSING))
            except Exception as exc:
                return exc
        self.fail('%s read a table that is not there' % read)

    def test_driver_errors_come_out_as_from_sqlalchemy(self):
        expected = self._raised(lambda connection, statement:
                                connection.execute(statement))
        raised = self._raised(driver_read.rows)
        # oslo.db's translation where it has one (SQLite, PostgreSQL:
        # DBNonExistentTable), SQLAlchemy's wrapping where not (MySQL).
        self.assertIs(type(expected), type(raised))
        self.assertIsInstance(raised, (db_exc.DBError, sa.exc.DBAPIError))
        self.assertIn('driver_read_missing', str(raised))

    def test_logged_sql_shows_every_statement(self):
        # oslo.db's connection_debug sets this logger's level.
        logger = self.useFixture(fixtures_lib.FakeLogger(
            name='sqlalchemy.engine', level=logging.INFO))
        expected, got = self._both(*STATEMENTS['by id'])
        self.assertEqual(expected, (got[0], list(got[1])))
        self.assertEqual(2, logger.output.count('FROM driver_read_things'))

    def test_statement_listeners_see_every_statement(self):
        seen = []

        def record(conn, cursor, statement, parameters, context, many):
            seen.append(statement)
        sa.event.listen(self.engine, 'before_cursor_execute', record)
        self.addCleanup(sa.event.remove, self.engine,
                        'before_cursor_execute', record)
        expected, got = self._both(*STATEMENTS['by id'])
        self.assertEqual(expected, (got[0], list(got[1])))
        self.assertEqual(2, sum('driver_read_things' in s for s in seen))


TestDriverReadMySQL, TestDriverReadPostgreSQL = backends.on_each_backend(
    TestDriverRead)
