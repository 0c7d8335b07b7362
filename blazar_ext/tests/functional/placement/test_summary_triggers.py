"""resource_provider_summaries is kept by database triggers (migration
0021): whatever writes providers, inventories, allocations and traits,
through the API's code or raw SQL, each provider's stored summary stays
what its rows make, on SQLite, MariaDB/MySQL and PostgreSQL."""

import importlib.util
import os
import threading

import sqlalchemy as sa

from blazar_ext import context as blazar_context
from blazar_ext.db.api import blazar_import
from blazar_ext.db.api.placement import resource_class as rc_api
from blazar_ext.db.api.placement import trait as trait_api
from blazar_ext.db.models import placement as models
from blazar_ext.tests import base
from blazar_ext.tests.functional import backends
from blazar_ext.tests.functional import contention
from blazar_ext.tests import summaries

RP = models.ResourceProvider.__table__
INV = models.Inventory.__table__
ALLOC = models.Allocation.__table__
RPT = models.ResourceProviderTrait.__table__
SUMMARY = models.ResourceProviderSummary.__table__
BENCH = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..',
                     'tools', 'bench', 'placement.py')
# Longer, joined, than MySQL's default group_concat_max_len (1,024 bytes).
MANY_TRAITS = ['CUSTOM_SUMMARY_%04d' % i for i in range(300)]


def _bench():
    spec = importlib.util.spec_from_file_location('bench_placement', BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _SummaryCase(base.DBTestCase):
    """Rows written by SQL, summaries read back."""

    def setUp(self):
        super().setUp()
        self.ctx = blazar_context.get_admin_context()
        trait_api.sync_standard_traits(self.ctx)
        rc_api.sync_standard_classes(self.ctx)
        self.engine = self.db.engine
        with self.engine.begin() as conn:
            self.classes = dict(conn.execute(sa.text(
                'SELECT name, id FROM resource_classes')).all())
            self.traits = dict(conn.execute(sa.text(
                'SELECT name, id FROM traits')).all())

    def _provider(self, conn, name: str) -> int:
        return conn.execute(RP.insert().values(
            uuid=name.ljust(36, '0')[:36], name=name, generation=0)
        ).inserted_primary_key[0]

    def _inventory(self, conn, pid: int, rc: str, total: int,
                   reserved: int = 0, ratio: float = 1.0) -> None:
        conn.execute(INV.insert().values(
            resource_provider_id=pid, resource_class_id=self.classes[rc],
            total=total, reserved=reserved, min_unit=1, max_unit=total,
            step_size=1, allocation_ratio=ratio))

    def _stored(self, pid: int) -> tuple:
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(SUMMARY.c.inventories,
                                         SUMMARY.c.traits).where(
                SUMMARY.c.resource_provider_id == pid)).one()
        return tuple(None if text is None else sorted(text.split(','))
                     for text in row)


class TestSummaryTriggers(_SummaryCase):

    def test_each_row_change_refreshes_its_provider(self):
        vcpu, mem = self.classes['VCPU'], self.classes['MEMORY_MB']
        with self.engine.begin() as conn:
            a = self._provider(conn, 'a')
            b = self._provider(conn, 'b')
        self.assertEqual((None, None), self._stored(a))
        with self.engine.begin() as conn:
            # Truncated toward zero as int() is: 32 x 0.3 = 9.6,
            # 4089 x 1.1 = 4497.9, (2 - 5) x 1.5 = -4.5.
            self._inventory(conn, a, 'VCPU', 32, ratio=0.3)
            self._inventory(conn, a, 'MEMORY_MB', 4096, 7, 1.1)
            self._inventory(conn, b, 'VCPU', 2, 5, 1.5)
            conn.execute(ALLOC.insert(), [
                dict(resource_provider_id=a, consumer_id='c1',
                     resource_class_id=vcpu, used=2),
                dict(resource_provider_id=a, consumer_id='c2',
                     resource_class_id=vcpu, used=1),
                dict(resource_provider_id=a, consumer_id='c1',
                     resource_class_id=mem, used=100)])
            conn.execute(RPT.insert(), [
                dict(resource_provider_id=a, trait_id=self.traits[name])
                for name in ('HW_CPU_X86_AVX', 'HW_CPU_X86_SSE')])
        summaries.assert_kept(self.engine)
        self.assertEqual(sorted(['%d:4497:100' % mem, '%d:9:3' % vcpu]),
                         self._stored(a)[0])
        self.assertEqual((['%d:-4:0' % vcpu], None), self._stored(b))
        with self.engine.begin() as conn:
            # An allocation moved to another provider and class, with a
            # new amount: both providers change.
            conn.execute(ALLOC.update().where(
                ALLOC.c.consumer_id == 'c2').values(
                resource_provider_id=b, used=3))
            conn.execute(INV.update().where(
                INV.c.resource_provider_id == a,
                INV.c.resource_class_id == mem).values(reserved=4096))
        summaries.assert_kept(self.engine)
        self.assertEqual(['%d:-4:3' % vcpu], self._stored(b)[0])
        self.assertEqual(sorted(['%d:0:100' % mem, '%d:9:2' % vcpu]),
                         self._stored(a)[0])
        with self.engine.begin() as conn:
            # The statement reads resource_providers (MySQL refuses a
            # trigger writing a table its statement reads: error 1442).
            conn.execute(ALLOC.delete().where(
                ALLOC.c.resource_provider_id.in_(
                    sa.select(RP.c.id).where(RP.c.name == 'a'))))
            conn.execute(RPT.delete().where(RPT.c.resource_provider_id.in_(
                sa.select(RP.c.id).where(RP.c.name == 'a'))))
            conn.execute(INV.delete().where(INV.c.resource_provider_id == b))
        summaries.assert_kept(self.engine)
        self.assertEqual((sorted(['%d:0:0' % mem, '%d:9:0' % vcpu]), None),
                         self._stored(a))
        self.assertEqual((None, None), self._stored(b))

    def test_deleted_provider_takes_its_summary(self):
        # (On SQLite, whether or not the connection enforces foreign
        # keys: this engine's does not.)
        with self.engine.begin() as conn:
            a = self._provider(conn, 'a')
            self._inventory(conn, a, 'VCPU', 8)
        with self.engine.begin() as conn:
            conn.execute(INV.delete())
            conn.execute(RP.delete().where(RP.c.id == a))
            self.assertEqual(0, conn.scalar(
                sa.select(sa.func.count()).select_from(SUMMARY)))
        with self.engine.begin() as conn:
            again = self._provider(conn, 'again')
        self.assertEqual((None, None), self._stored(again))
        summaries.assert_kept(self.engine)

    def test_long_texts_whole_whatever_the_session_allows(self):
        for name in MANY_TRAITS:
            trait_api.create_trait(self.ctx, name)
        with self.engine.begin() as conn:
            traits = dict(conn.execute(sa.text(
                'SELECT name, id FROM traits')).all())
            a = self._provider(conn, 'a')
            if self.engine.dialect.name == 'mysql':
                # A writer that kept MySQL's default bound (the bulk
                # load of a mysql client, say).
                conn.execute(sa.text(
                    'SET SESSION group_concat_max_len = 1024'))
            conn.execute(RPT.insert(), [
                dict(resource_provider_id=a, trait_id=traits[name])
                for name in MANY_TRAITS])
        self.assertEqual(sorted(str(traits[n]) for n in MANY_TRAITS),
                         self._stored(a)[1])
        summaries.assert_kept(self.engine)

    def test_blazar_import_write(self):
        # What import-blazar writes (db/api/blazar_import.write): hosts'
        # providers made in bulk, upstream's inventories replacing theirs,
        # traits added, a host out of service (COMPUTE_STATUS_DISABLED).
        planned = blazar_import.Plan()
        for n, reservable in enumerate((True, False)):
            host = 'h%d' % n
            planned.rows['computehosts'].append(dict(
                id=str(n + 1), vcpus=8, cpu_info='{}', hypervisor_type='x',
                hypervisor_version=1, hypervisor_hostname=host,
                memory_mb=4096, local_gb=100, reservable=reservable))
            planned.rows['inventories'].append(dict(
                computehost_id=str(n + 1), resource_class='VCPU', total=16,
                reserved=1, min_unit=1, max_unit=16, step_size=1,
                allocation_ratio=2.5))
            planned.rows['resource_provider_traits'].append(dict(
                computehost_id=str(n + 1), trait='HW_CPU_X86_AVX'))
        blazar_import.write(self.ctx, planned)
        summaries.assert_kept(self.engine)
        with self.engine.connect() as conn:
            self.assertEqual(2, conn.scalar(sa.text(
                "SELECT count(*) FROM resource_provider_summaries "
                "WHERE inventories LIKE '%:37:0%'")))

    def test_bench_bulk_load_by_raw_sql(self):
        bench = _bench()
        trait_api.create_trait(self.ctx, 'CUSTOM_GPU')
        bench.bulk_load(self.db.url, bench.flat_data(30))
        summaries.assert_kept(self.engine)

    def test_bench_nested_bulk_load(self):
        bench = _bench()
        trait_api.create_trait(self.ctx, 'CUSTOM_GPU')
        bench.bulk_load(self.db.url, bench.nested_data(5))
        summaries.assert_kept(self.engine)


TestSummaryTriggersMySQL, TestSummaryTriggersPostgreSQL = (
    backends.on_each_backend(TestSummaryTriggers))


class _ConcurrentWriters:
    """Two transactions allocating from one provider at once: the second
    recomputes after the first commits, not from what it saw before."""

    def test_concurrent_allocations_on_one_provider(self):
        self._concurrent_allocations(self.engine)

    def test_concurrent_allocations_under_read_committed(self):
        # A snapshot per statement (Galera and many MySQL deployments run
        # READ COMMITTED): the second still counts the first's rows.
        self._concurrent_allocations(self.engine.execution_options(
            isolation_level='READ COMMITTED'))

    def _concurrent_allocations(self, engine) -> None:
        vcpu = self.classes['VCPU']
        with engine.begin() as conn:
            a = self._provider(conn, 'a')
            self._inventory(conn, a, 'VCPU', 64)
        first = engine.connect()
        self.addCleanup(first.close)
        first.begin()
        first.execute(ALLOC.insert().values(
            resource_provider_id=a, consumer_id='c1',
            resource_class_id=vcpu, used=1))
        inserts = contention.StatementWatch(self.engine,
                                            'INSERT INTO allocations')
        self.addCleanup(inserts.remove)
        done = []

        def second():
            with engine.begin() as conn:
                conn.execute(ALLOC.insert().values(
                    resource_provider_id=a, consumer_id='c2',
                    resource_class_id=vcpu, used=2))
            done.append(True)
        thread = threading.Thread(target=second)
        thread.start()
        # The second waits on the first's summary row lock, as the server
        # reports it.
        blocked = contention.wait_until(
            lambda: contention.lock_waits(self.engine))
        finished_before_commit = inserts.finished
        first.commit()
        thread.join(30)
        self.assertEqual([True], done)
        self.assertEqual(1, blocked)
        self.assertEqual(0, finished_before_commit)
        self.assertEqual(1, inserts.finished)
        self.assertEqual((['%d:64:3' % vcpu], None), self._stored(a))
        summaries.assert_kept(self.engine)


# Not on SQLite, where one writer at a time holds the whole database.
class TestConcurrentWritersMySQL(backends.OnBackend, _ConcurrentWriters,
                                 _SummaryCase):
    BACKEND = 'mysql'


class TestConcurrentWritersPostgreSQL(backends.OnBackend, _ConcurrentWriters,
                                      _SummaryCase):
    BACKEND = 'postgresql'
