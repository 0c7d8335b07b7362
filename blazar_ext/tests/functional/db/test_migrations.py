"""Migrations on real databases: SQLite, MySQL/MariaDB and PostgreSQL.

Each backend is opportunistic (oslo.db's test_fixtures): the MySQL and
PostgreSQL classes run when the ``openstack_citest`` user made by
``tools/test-setup.sh`` can connect, and skip with oslo.db's reason
otherwise. Every test gets its own freshly created database.
"""

import datetime
import hashlib

from alembic import script as alembic_script
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import provision
from oslo_db.sqlalchemy import test_fixtures
from oslo_db.sqlalchemy import test_migrations
from oslotest import base
import sqlalchemy as sa
import testtools

from blazar_ext.db.api.placement import provider_summary
from blazar_ext.db import migration
from blazar_ext.db import models
from blazar_ext.db import session as db_session
from blazar_ext.query import language
from blazar_ext.query import slot_plan

HOST_RESOURCE_TYPE = 'physical:host'
# Longer than any VARCHAR the schema has, so a silent truncation shows.
LONG_VALUE = 'x' * 5000 + '-end'


class _SQLiteFixture(test_fixtures.OpportunisticDbFixture):
    """Provisions through the service's own enginefacade."""

    DRIVER = 'sqlite'

    def get_enginefacade(self):
        return db_session.context_manager


class _MySQLFixture(_SQLiteFixture):
    DRIVER = 'mysql'


class _PostgreSQLFixture(_SQLiteFixture):
    DRIVER = 'postgresql'


def _revisions() -> list[str]:
    """Every revision id, oldest first."""
    scripts = alembic_script.ScriptDirectory.from_config(
        migration._config(engine=object()))
    return [rev.revision for rev in reversed(list(scripts.walk_revisions()))]


class _MigrationsMixin(test_migrations.ModelsMigrationsSync):
    """Tests shared by every backend; the concrete classes pick FIXTURE."""

    def setUp(self):
        super().setUp()
        # The fixture has pointed the service's enginefacade at a database
        # provisioned for this test.
        self.engine = db_session.get_engine()
        backend = provision.Backend(self.engine.name, self.engine.url)
        self.addCleanup(backend.drop_all_objects, self.engine)

    # ModelsMigrationsSync hooks.

    def db_sync(self, engine) -> None:
        migration.upgrade('head', engine)

    def get_engine(self):
        return self.engine

    def get_metadata(self) -> sa.MetaData:
        return models.BASE.metadata

    def include_object(self, object_, name, type_, reflected, compare_to):
        # Alembic's comparison of server defaults fails on a reflected
        # generated column (it reads a Computed as a DefaultClause); the
        # generated columns of 0030 are checked by
        # test_allocation_microseconds_filled_then_kept_after_0030.
        if type_ == 'column' and getattr(object_, 'computed', None):
            return False
        return super().include_object(object_, name, type_, reflected,
                                      compare_to)

    # Helpers.

    def _tables(self) -> dict[str, sa.Table]:
        meta = sa.MetaData()
        meta.reflect(self.engine)
        return dict(meta.tables)

    def _columns(self, table: str) -> set[str]:
        return {c['name'] for c in sa.inspect(self.engine).get_columns(table)}

    # Tests.

    def test_runs_on_the_backend_named(self):
        # Guards the fixture wiring: the service's engine is the
        # provisioned database of this class's backend, not a fallback.
        self.assertEqual(self.FIXTURE.DRIVER, self.engine.name)
        self.assertIs(self.engine, self._db_default.engine)

    def test_walk_every_revision(self):
        revisions = _revisions()
        self.assertEqual(migration.head(), revisions[-1])
        self.assertIsNone(migration.version(self.engine))
        for revision in revisions:
            migration.upgrade(revision, self.engine)
            self.assertEqual(revision, migration.version(self.engine))
            check = getattr(self, '_check_%s' % revision, None)
            if check is not None:
                check()
        # Upgrading a database already at head changes nothing.
        migration.upgrade('head', self.engine)
        self.assertEqual(revisions[-1], migration.version(self.engine))

    def _check_0001(self):
        self.assertIn('capability_name',
                      self._columns('computehost_extra_capabilities'))
        self.assertNotIn('extra_capabilities', self._tables())

    def _check_0002(self):
        columns = self._columns('computehost_extra_capabilities')
        self.assertIn('capability_id', columns)
        self.assertNotIn('capability_name', columns)
        self.assertEqual(
            {'id', 'resource_type', 'capability_name', 'private',
             'created_at', 'updated_at'},
            self._columns('extra_capabilities'))

    def test_upgrade_head_creates_every_model_table(self):
        migration.upgrade('head', self.engine)
        self.assertTrue(
            set(models.BASE.metadata.tables) <= set(self._tables()))

    def test_normalization_keeps_every_row(self):
        migration.upgrade('0001', self.engine)
        legacy = self._insert_legacy_rows()

        migration.upgrade('0002', self.engine)
        self._assert_normalized(legacy)

        migration.upgrade('head', self.engine)
        self._assert_normalized(legacy)

    def test_upgrade_with_thousands_of_rows_keeps_every_row(self):
        """From the first revision to head with every 0001 table full."""
        migration.upgrade('0001', self.engine)
        counts = self._insert_many(hosts=1000, capabilities_per_host=5)
        migration.upgrade('head', self.engine)
        tables = self._tables()
        with self.engine.connect() as conn:
            for table, expected in counts.items():
                found = conn.execute(sa.select(sa.func.count()).select_from(
                    tables[table])).scalar()
                self.assertEqual(expected, found, table)
            # Each allocation got its lease's window (revision 0005).
            alloc = tables['computehost_allocations']
            res = tables['reservations']
            leases = tables['leases']
            mismatched = conn.execute(
                sa.select(sa.func.count()).select_from(
                    alloc.join(res, res.c.id == alloc.c.reservation_id)
                    .join(leases, leases.c.id == res.c.lease_id))
                .where(sa.or_(alloc.c.start_date != leases.c.start_date,
                              alloc.c.end_date != leases.c.end_date))
            ).scalar()
            self.assertEqual(0, mismatched)
            # Every capability value points at one of the five names.
            names = tables['extra_capabilities']
            caps = tables['computehost_extra_capabilities']
            self.assertEqual(5, conn.execute(sa.select(
                sa.func.count()).select_from(names)).scalar())
            self.assertEqual(counts['computehost_extra_capabilities'],
                             conn.execute(sa.select(sa.func.count())
                                          .select_from(caps.join(names)))
                             .scalar())
            # Every value is a number here, and each got it (0008).
            self.assertEqual(0, conn.execute(
                sa.select(sa.func.count()).select_from(caps).where(
                    caps.c.capability_number.is_(None))).scalar())

    def _insert_many(self, hosts: int, capabilities_per_host: int) -> dict:
        """Bulk rows in every table of revision 0001; their counts."""
        tables = self._tables()
        start = datetime.datetime(2030, 1, 1)
        rows = {name: [] for name in (
            'computehosts', 'computehost_extra_capabilities', 'leases',
            'reservations', 'computehost_reservations',
            'computehost_allocations', 'events')}
        for i in range(1, hosts + 1):
            rows['computehosts'].append({
                'id': i, 'vcpus': 8, 'cpu_info': '{}',
                'hypervisor_type': 'QEMU', 'hypervisor_version': 1,
                'hypervisor_hostname': 'host-%05d' % i, 'memory_mb': 4096,
                'local_gb': 100})
            for c in range(capabilities_per_host):
                rows['computehost_extra_capabilities'].append({
                    'id': 'cap-%d-%d' % (i, c), 'computehost_id': i,
                    'capability_name': 'cap%d' % c,
                    'capability_value': str(i * c)})
            lease_id, res_id = 'lease-%d' % i, 'res-%d' % i
            begin = start + datetime.timedelta(hours=i)
            rows['leases'].append({
                'id': lease_id, 'name': lease_id, 'project_id': 'p',
                'user_id': 'u', 'start_date': begin,
                'end_date': begin + datetime.timedelta(hours=2),
                'status': 'PENDING'})
            rows['reservations'].append({
                'id': res_id, 'lease_id': lease_id,
                'resource_type': 'physical:host', 'status': 'pending'})
            rows['computehost_reservations'].append({
                'id': 'chr-%d' % i, 'reservation_id': res_id,
                'count_range': '1-2', 'resource_properties': '',
                'hypervisor_properties': ''})
            for h in (i, i % hosts + 1):
                rows['computehost_allocations'].append({
                    'id': 'alloc-%d-%d' % (i, h), 'compute_host_id': h,
                    'reservation_id': res_id})
            for event in ('start_lease', 'before_end_lease', 'end_lease'):
                rows['events'].append({
                    'id': '%s-%s' % (event, i), 'lease_id': lease_id,
                    'event_type': event, 'time': begin,
                    'status': 'UNDONE'})
        with self.engine.begin() as conn:
            for name, values in rows.items():
                conn.execute(tables[name].insert(), values)
        return {name: len(values) for name, values in rows.items()}

    def test_capability_numbers_filled_for_existing_rows(self):
        migration.upgrade('0001', self.engine)
        legacy = [row[3] for row in self._insert_legacy_rows()]
        migration.upgrade('0006', self.engine)
        extra = ['-0.25', '007', '1' * 32, '1' * 33, '1.', '--1', '12 ',
                 '-0']
        tables = self._tables()
        caps = tables['computehost_extra_capabilities']
        names = tables['extra_capabilities']
        with self.engine.begin() as conn:
            host_id = conn.execute(sa.select(caps.c.computehost_id)).first()[0]
            for number, value in enumerate(extra):
                conn.execute(names.insert().values(
                    id='name-%d' % number, resource_type=HOST_RESOURCE_TYPE,
                    capability_name='extra%d' % number))
                conn.execute(caps.insert().values(
                    id='value-%d' % number, computehost_id=host_id,
                    capability_id='name-%d' % number, capability_value=value))

        migration.upgrade('head', self.engine)
        caps = self._tables()['computehost_extra_capabilities']
        with self.engine.connect() as conn:
            found = conn.execute(sa.select(
                caps.c.capability_value, caps.c.capability_number)).all()
        self.assertEqual(sorted(legacy + extra), sorted(v for v, _ in found))
        # The migration's SQL guard and the writer's Python agree. SQLite
        # keeps numbers as 64-bit floats, as its CAST always did.
        exact = self.engine.name != 'sqlite'

        def same(number, expected):
            if number is None or expected is None or exact:
                return number == expected
            return float(number) == float(expected)
        wrong = [(value, number) for value, number in found
                 if not same(number, language.number_of(value))]
        self.assertEqual([], wrong)
        numbers = dict(found)
        self.assertEqual(512, numbers['512'])
        self.assertEqual(7, numbers['007'])
        self.assertIsNone(numbers['1.5e3'])

    def test_capability_value_summary_filled_from_existing_rows(self):
        migration.upgrade('0001', self.engine)
        legacy = self._insert_legacy_rows()
        migration.upgrade('0011', self.engine)
        self.assertNotIn('extra_capability_values', self._tables())

        migration.upgrade('0012', self.engine)
        tables = self._tables()
        summary, names = (tables['extra_capability_values'],
                          tables['extra_capabilities'])
        with self.engine.connect() as conn:
            found = {(name, value): count
                     for name, value, count in conn.execute(
                         sa.select(names.c.capability_name,
                                   summary.c.capability_value,
                                   summary.c.resources)
                         .join(names, names.c.id ==
                               summary.c.capability_id))}
        expected: dict = {}
        for _row_id, _host, name, value, _created in legacy:
            expected[(name, value)] = expected.get((name, value), 0) + 1
        self.assertEqual(expected, found)
        self.assertEqual(2, found[('gpu', 'true')])
        self.assertEqual(1, found[('notes', LONG_VALUE)])

    def test_capability_value_duplicates_removed_and_made_impossible(self):
        migration.upgrade('0001', self.engine)
        legacy = self._insert_legacy_rows()
        migration.upgrade('0014', self.engine)
        tables = self._tables()
        summary, names = (tables['extra_capability_values'],
                          tables['extra_capabilities'])
        # What two racing writers of revision 0012 could leave: a second
        # row for a value, each counting one resource.
        with self.engine.begin() as conn:
            for name, value in (('gpu', 'true'), ('notes', LONG_VALUE)):
                capability_id = conn.scalar(sa.select(names.c.id).where(
                    names.c.capability_name == name))
                conn.execute(summary.update().where(
                    summary.c.capability_id == capability_id,
                    summary.c.capability_value == value).values(resources=1))
                conn.execute(summary.insert().values(
                    capability_id=capability_id, capability_value=value,
                    resources=1))
        with self.engine.connect() as conn:
            self.assertEqual(len({(name, value) for _i, _h, name, value, _c
                                  in legacy}) + 2, conn.scalar(
                sa.select(sa.func.count()).select_from(summary)))

        migration.upgrade('0015', self.engine)
        summary = self._tables()['extra_capability_values']
        with self.engine.connect() as conn:
            found = conn.execute(
                sa.select(names.c.capability_name,
                          summary.c.capability_value,
                          summary.c.value_digest, summary.c.resources)
                .join(names, names.c.id == summary.c.capability_id)).all()
        expected: dict = {}
        for _row_id, _host, name, value, _created in legacy:
            expected[(name, value)] = expected.get((name, value), 0) + 1
        self.assertEqual(expected, {(name, value): count
                                    for name, value, _d, count in found})
        self.assertEqual(len(expected), len(found))
        self.assertEqual(2, expected[('gpu', 'true')])
        self.assertEqual(
            [hashlib.sha256(value.encode()).hexdigest()
             for _name, value, _d, _count in found],
            [digest for _name, _value, digest, _count in found])
        # The constraint now refuses another row for a value.
        with self.engine.connect() as conn:
            capability_id, value, digest = conn.execute(
                sa.select(summary.c.capability_id,
                          summary.c.capability_value,
                          summary.c.value_digest)
                .where(summary.c.resources == 2)).first()
        with testtools.ExpectedException(db_exc.DBDuplicateEntry):
            with self.engine.begin() as conn:
                conn.execute(summary.insert().values(
                    capability_id=capability_id, capability_value=value,
                    value_digest=digest, resources=1))

    def test_host_ids_become_strings_everywhere_they_are_used(self):
        migration.upgrade('0009', self.engine)
        numbered = self._insert_numbered_hosts()
        # oslo.db drops SQLite tables by name, with foreign keys on:
        # instance_allocations comes after the computehosts it points at.
        self.addCleanup(self._empty, 'instance_allocations')

        migration.upgrade('0010', self.engine)
        tables = self._tables()
        hosts = tables['computehosts']
        caps = tables['computehost_extra_capabilities']
        allocs = tables['computehost_allocations']
        providers = tables['resource_providers']
        with self.engine.connect() as conn:
            found = conn.execute(
                sa.select(hosts.c.id, hosts.c.hypervisor_hostname,
                          providers.c.name)
                .select_from(hosts.join(
                    providers,
                    providers.c.id == hosts.c.resource_provider_id))
                .order_by(hosts.c.hypervisor_hostname)).all()
            capability_hosts = conn.execute(
                sa.select(caps.c.id, caps.c.computehost_id)
                .select_from(caps.join(hosts))).all()
            allocation_hosts = conn.execute(
                sa.select(allocs.c.id, allocs.c.compute_host_id)
                .select_from(allocs.join(hosts))).all()
            instances = tables['instance_allocations']
            instance_hosts = conn.execute(
                sa.select(instances.c.id, instances.c.compute_host_id)
                .select_from(instances.join(hosts))).all()
        # Each host keeps its number as a string, still joined to its
        # provider, its capability values and its allocations.
        self.assertEqual(
            sorted((str(i), name, name) for name, i in numbered.items()),
            sorted(tuple(row) for row in found))
        self.assertEqual(
            sorted(('cap-%s' % name, str(i)) for name, i in numbered.items()),
            sorted(tuple(row) for row in capability_hosts))
        self.assertEqual(
            sorted(('alloc-%s' % name, str(i))
                   for name, i in numbered.items()),
            sorted(tuple(row) for row in allocation_hosts))
        self.assertEqual(
            sorted(('inst-%s' % name, str(i))
                   for name, i in numbered.items()),
            sorted(tuple(row) for row in instance_hosts))

        # New rows take string ids, and the keys still hold.
        with self.engine.begin() as conn:
            conn.execute(hosts.insert().values(
                id='6f1c2a4e-9d0b-4c57-8a3e-1b2c3d4e5f60', vcpus=1,
                cpu_info='', hypervisor_type='', hypervisor_version=0,
                hypervisor_hostname='uuid-host', memory_mb=1, local_gb=1))
        with self.engine.connect() as conn:
            if self.engine.name == 'sqlite':
                # SQLite checks foreign keys only when a connection asks,
                # and only outside a transaction.
                conn.exec_driver_sql('PRAGMA foreign_keys = ON')
            self.assertRaises(
                db_exc.DBReferenceError, conn.execute,
                allocs.insert().values(id='dangling', compute_host_id='999',
                                       reservation_id='res-host-a'))
            conn.rollback()
            if self.engine.name == 'sqlite':
                conn.exec_driver_sql('PRAGMA foreign_keys = OFF')

    def test_instance_capacities_filled_from_inventories(self):
        migration.upgrade('0013', self.engine)
        tables = self._tables()
        # provider: {class: (total, reserved, allocation_ratio)}
        inventories = {
            'full': {'VCPU': (16, 2, 4.0), 'MEMORY_MB': (65536, 512, 1.5),
                     'DISK_GB': (1000, 0, 1.0), 'CUSTOM_FPGA': (2, 0, 1.0)},
            'no-disk': {'VCPU': (8, 0, 1.0), 'MEMORY_MB': (4096, 0, 1.0)},
            'other-classes-only': {'CUSTOM_FPGA': (4, 0, 1.0)},
            'none': {}}
        with self.engine.begin() as conn:
            classes = {}
            for n, name in enumerate(['VCPU', 'MEMORY_MB', 'DISK_GB',
                                      'CUSTOM_FPGA']):
                classes[name] = conn.execute(
                    tables['resource_classes'].insert().values(
                        id=n + 1, name=name)).inserted_primary_key[0]
            providers = {}
            for name, rows in inventories.items():
                providers[name] = conn.execute(
                    tables['resource_providers'].insert().values(
                        uuid='rp-' + name, name=name, generation=1)
                ).inserted_primary_key[0]
                for rc, (total, reserved, ratio) in rows.items():
                    conn.execute(tables['inventories'].insert().values(
                        resource_provider_id=providers[name],
                        resource_class_id=classes[rc], total=total,
                        reserved=reserved, min_unit=1, max_unit=total,
                        step_size=1, allocation_ratio=ratio))

        migration.upgrade('0014', self.engine)
        capacities = self._tables()['instance_capacities']
        with self.engine.connect() as conn:
            found = {row[0]: tuple(row[1:]) for row in conn.execute(
                sa.select(capacities.c.resource_provider_id,
                          capacities.c.vcpus, capacities.c.memory_mb,
                          capacities.c.disk_gb))}
        # (total - reserved) x allocation_ratio, rounded down; 0 for a
        # class missing; no row for a provider with none of the three.
        self.assertEqual({providers['full']: (56, 97536, 1000),
                          providers['no-disk']: (8, 4096, 0)}, found)

    def test_allocation_ratios_exact_after_0017(self):
        migration.upgrade('0016', self.engine)
        tables = self._tables()
        ratios = {'VCPU': 0.7, 'MEMORY_MB': 1.1, 'DISK_GB': 16.0}
        with self.engine.begin() as conn:
            provider = conn.execute(
                tables['resource_providers'].insert().values(
                    uuid='rp', name='rp', generation=1)
            ).inserted_primary_key[0]
            for n, (name, ratio) in enumerate(sorted(ratios.items())):
                conn.execute(tables['resource_classes'].insert().values(
                    id=n + 1, name=name))
                conn.execute(tables['inventories'].insert().values(
                    resource_provider_id=provider, resource_class_id=n + 1,
                    total=10, reserved=0, min_unit=1, max_unit=10,
                    step_size=1, allocation_ratio=ratio))

        migration.upgrade('0017', self.engine)
        inventories = self._tables()['inventories']
        classes = self._tables()['resource_classes']
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(classes.c.name, inventories.c.allocation_ratio,
                          inventories.c.total * inventories.c.allocation_ratio)
                .join(classes, classes.c.id ==
                      inventories.c.resource_class_id)).all()
        # Read back, and multiplied in SQL, as written: MySQL's FLOAT
        # gave 0.699999988 and 6.99999988. (Reflected, MySQL's DOUBLE
        # reads as Decimal.)
        self.assertEqual(ratios, {name: float(ratio)
                                  for name, ratio, _ in rows})
        self.assertEqual({'VCPU': 7, 'MEMORY_MB': 11, 'DISK_GB': 160},
                         {name: round(float(product), 9)
                          for name, _, product in rows})

    def test_placement_names_compare_as_written_after_0018(self):
        migration.upgrade('0017', self.engine)
        tables = self._tables()
        traits, consumers = tables['traits'], tables['consumers']
        allocations = tables['allocations']
        with self.engine.begin() as conn:
            conn.execute(traits.insert().values(name='CUSTOM_GPU'))
            conn.execute(tables['resource_classes'].insert().values(
                id=1, name='VCPU'))
            provider = conn.execute(
                tables['resource_providers'].insert().values(
                    uuid='rp', name='rp', generation=1)
            ).inserted_primary_key[0]
            conn.execute(consumers.insert().values(
                uuid='c', project_id='Proj', user_id='u', generation=1))
            conn.execute(allocations.insert().values(
                resource_provider_id=provider, consumer_id='c',
                resource_class_id=1, used=1))

        migration.upgrade('0018', self.engine)
        with self.engine.begin() as conn:
            # MySQL's default collation found these, and refused the
            # second trait as a duplicate.
            self.assertIsNone(conn.scalar(sa.select(traits.c.id).where(
                traits.c.name == 'custom_gpu')))
            self.assertIsNone(conn.scalar(sa.select(consumers.c.id).where(
                consumers.c.project_id == 'proj')))
            conn.execute(traits.insert().values(name='custom_gpu'))
            # The columns joined together share their collation.
            self.assertEqual(1, conn.scalar(
                sa.select(sa.func.count()).select_from(allocations).join(
                    consumers,
                    consumers.c.uuid == allocations.c.consumer_id)))

    def test_provider_summaries_backfilled_then_kept_after_0021(self):
        migration.upgrade('0020', self.engine)
        tables = self._tables()
        rp, inv = tables['resource_providers'], tables['inventories']
        with self.engine.begin() as conn:
            for n, name in enumerate(['VCPU', 'MEMORY_MB']):
                conn.execute(tables['resource_classes'].insert().values(
                    id=n + 1, name=name))
            conn.execute(tables['traits'].insert(), [
                {'id': 1, 'name': 'HW_CPU_X86_AVX'},
                {'id': 2, 'name': 'CUSTOM_GPU'}])
            ids = [conn.execute(rp.insert().values(
                uuid='rp-%d' % i, name='rp-%d' % i, generation=1)
            ).inserted_primary_key[0] for i in range(3)]
            # (total - reserved) x ratio truncated toward zero: 9.6 is 9,
            # (2 - 5) x 1.5 = -4.5 is -4.
            for pid, rc, total, reserved, ratio in [
                    (ids[0], 1, 32, 0, 0.3), (ids[0], 2, 4096, 7, 1.1),
                    (ids[1], 1, 2, 5, 1.5)]:
                conn.execute(inv.insert().values(
                    resource_provider_id=pid, resource_class_id=rc,
                    total=total, reserved=reserved, min_unit=1,
                    max_unit=total, step_size=1, allocation_ratio=ratio))
            conn.execute(tables['allocations'].insert(), [
                dict(resource_provider_id=ids[0], consumer_id='c',
                     resource_class_id=rc, used=used)
                for rc, used in [(1, 2), (1, 1), (2, 100)]])
            conn.execute(tables['resource_provider_traits'].insert(), [
                dict(resource_provider_id=ids[0], trait_id=t)
                for t in (1, 2)])

        migration.upgrade('0021', self.engine)
        summary = self._tables()['resource_provider_summaries']

        def stored():
            with self.engine.connect() as conn:
                return {pid: tuple(None if t is None else sorted(t.split(','))
                                   for t in texts)
                        for pid, *texts in conn.execute(sa.select(
                            summary.c.resource_provider_id,
                            summary.c.inventories, summary.c.traits))}
        self.assertEqual({ids[0]: (['1:9:3', '2:4497:100'], ['1', '2']),
                          ids[1]: (['1:-4:0'], None),
                          ids[2]: (None, None)}, stored())
        with self.engine.connect() as conn:
            self.assertEqual([], provider_summary.mismatches(conn))
        # And the triggers keep them from then on.
        with self.engine.begin() as conn:
            conn.execute(tables['allocations'].delete().where(
                tables['allocations'].c.resource_class_id == 2))
            conn.execute(tables['resource_provider_traits'].insert().values(
                resource_provider_id=ids[2], trait_id=2))
        self.assertEqual({ids[0]: (['1:9:3', '2:4497:0'], ['1', '2']),
                          ids[1]: (['1:-4:0'], None),
                          ids[2]: (None, ['2'])}, stored())

    def test_provider_summary_triggers_at_head(self):
        # A later revision that rebuilds a watched table (SQLite's batch
        # copy, say) would drop its triggers with it: the summaries would
        # go stale with no error.
        migration.upgrade('head', self.engine)
        query = {
            'sqlite': "SELECT tbl_name, name FROM sqlite_master "
                      "WHERE type = 'trigger'",
            'mysql': 'SELECT event_object_table, trigger_name FROM '
                     'information_schema.triggers '
                     'WHERE trigger_schema = DATABASE()',
            'postgresql': 'SELECT tgrelid::regclass::text, tgname '
                          'FROM pg_trigger WHERE NOT tgisinternal',
        }[self.engine.name]
        with self.engine.connect() as conn:
            found = set(map(tuple, conn.execute(sa.text(query))))
        expected = {('resource_providers', 'rps_resource_providers_insert')}
        if self.engine.name == 'sqlite':
            expected.add(('resource_providers',
                          'rps_resource_providers_delete'))
        for table in ('inventories', 'allocations',
                      'resource_provider_traits'):
            for event in ('insert', 'update', 'delete'):
                expected.add((table, 'rps_%s_%s' % (table, event)))
        self.assertEqual(expected, {row for row in found
                                    if row[1].startswith('rps_')})

    def _allocation_microseconds(self) -> list:
        allocs = self._tables()['computehost_allocations']
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(
                allocs.c.start_date, allocs.c.end_date, allocs.c.start_us,
                allocs.c.end_us).order_by(allocs.c.id)).all()
        return [((slot_plan.microseconds(start), slot_plan.microseconds(end)),
                 (start_us, end_us))
                for start, end, start_us, end_us in rows]

    def test_allocation_microseconds_filled_then_kept_after_0030(self):
        migration.upgrade('0009', self.engine)
        self._insert_numbered_hosts()
        self.addCleanup(self._empty, 'instance_allocations')
        migration.upgrade('0029', self.engine)
        odd = datetime.datetime(2031, 2, 28, 23, 59, 58, 999999)
        with self.engine.begin() as conn:
            conn.execute(sa.text(
                "UPDATE computehost_allocations SET end_date = :e "
                "WHERE id = 'alloc-host-b'"), {'e': odd})
        migration.upgrade('0030', self.engine)
        # Existing rows: filled as the columns were added.
        found = self._allocation_microseconds()
        self.assertEqual(3, len(found))
        for expected, stored in found:
            self.assertEqual(expected, stored)
        # Later writes: the database keeps them.
        allocs = self._tables()['computehost_allocations']
        with self.engine.begin() as conn:
            conn.execute(allocs.update().where(
                allocs.c.id == 'alloc-host-a').values(
                start_date=datetime.datetime(1969, 12, 31, 23, 0, 1)))
            conn.execute(allocs.delete().where(allocs.c.id == 'alloc-host-c'))
        found = self._allocation_microseconds()
        self.assertEqual(2, len(found))
        for expected, stored in found:
            self.assertEqual(expected, stored)
        self.assertEqual(
            ['compute_host_id', 'start_date', 'end_date', 'start_us',
             'end_us'],
            [index['column_names'] for index in sa.inspect(
                self.engine).get_indexes('computehost_allocations')
             if index['name'] == 'ix_computehost_allocations_host_window'
             ][0])

    def _empty(self, table: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(sa.text('DELETE FROM %s' % table))

    def _insert_numbered_hosts(self) -> dict:
        """At revision 0009: numbered hosts, each with a provider, one
        capability value and one allocation; {hostname: number}."""
        tables = self._tables()
        start = datetime.datetime(2030, 1, 1)
        numbered = {}
        with self.engine.begin() as conn:
            conn.execute(tables['extra_capabilities'].insert().values(
                id='gpu', resource_type=HOST_RESOURCE_TYPE,
                capability_name='gpu', private=False))
            conn.execute(tables['leases'].insert().values(
                id='lease', name='lease', start_date=start,
                end_date=start + datetime.timedelta(hours=1),
                status='PENDING'))
            for name in ('host-a', 'host-b', 'host-c'):
                provider_id = conn.execute(
                    tables['resource_providers'].insert().values(
                        uuid='rp-' + name, name=name, generation=1)
                ).inserted_primary_key[0]
                host_id = conn.execute(tables['computehosts'].insert().values(
                    vcpus=1, cpu_info='', hypervisor_type='QEMU',
                    hypervisor_version=1, hypervisor_hostname=name,
                    memory_mb=1, local_gb=1,
                    resource_provider_id=provider_id)
                ).inserted_primary_key[0]
                numbered[name] = host_id
                conn.execute(
                    tables['computehost_extra_capabilities'].insert().values(
                        id='cap-' + name, computehost_id=host_id,
                        capability_id='gpu', capability_value='true'))
                conn.execute(tables['reservations'].insert().values(
                    id='res-' + name, lease_id='lease',
                    resource_type=HOST_RESOURCE_TYPE, status='pending'))
                conn.execute(tables['computehost_allocations'].insert().values(
                    id='alloc-' + name, compute_host_id=host_id,
                    reservation_id='res-' + name, start_date=start,
                    end_date=start + datetime.timedelta(hours=1)))
                conn.execute(tables['instance_allocations'].insert().values(
                    id='inst-' + name, compute_host_id=host_id,
                    reservation_id='res-' + name, slots=1, vcpus=1,
                    memory_mb=1, disk_gb=1, start_date=start,
                    end_date=start + datetime.timedelta(hours=1)))
        self.assertEqual(3, len(set(numbered.values())))
        return numbered

    def test_normalization_keeps_names_differing_in_case(self):
        migration.upgrade('0001', self.engine)
        tables = self._tables()
        hosts = tables['computehosts']
        caps = tables['computehost_extra_capabilities']
        legacy = [('1', 'host-a', 'GPU', 'x'), ('2', 'host-a', 'gpu', 'y'),
                  ('3', 'host-b', 'gpu', 'z')]
        with self.engine.begin() as conn:
            ids = {}
            for name in ('host-a', 'host-b'):
                ids[name] = conn.execute(hosts.insert().values(
                    vcpus=1, cpu_info='', hypervisor_type='',
                    hypervisor_version=0, hypervisor_hostname=name,
                    memory_mb=1, local_gb=1)).inserted_primary_key[0]
            for row_id, host, name, value in legacy:
                conn.execute(caps.insert().values(
                    id=row_id, computehost_id=ids[host],
                    capability_name=name, capability_value=value))

        migration.upgrade('head', self.engine)
        tables = self._tables()
        hosts = tables['computehosts']
        caps = tables['computehost_extra_capabilities']
        names = tables['extra_capabilities']
        with self.engine.connect() as conn:
            kept = conn.execute(
                sa.select(caps.c.id, hosts.c.hypervisor_hostname,
                          names.c.capability_name, caps.c.capability_value)
                .select_from(caps.join(hosts).join(names))).all()
            distinct = conn.execute(
                sa.select(names.c.capability_name)).scalars().all()
        self.assertEqual(legacy, sorted(tuple(row) for row in kept))
        self.assertEqual(['GPU', 'gpu'], sorted(distinct))

    def _insert_legacy_rows(self) -> list[tuple]:
        """Hosts and legacy capability rows; returns the rows inserted.

        Names repeat across hosts, values are of several kinds (numbers,
        booleans, JSON, unicode, empty, quotes, a long one), and one host
        has no capability at all.
        """
        tables = self._tables()
        hosts = tables['computehosts']
        caps = tables['computehost_extra_capabilities']
        created = datetime.datetime(2024, 5, 17, 10, 30, 0)
        values = {
            'host-a': [('gpu', 'true'), ('rack', 'r1'),
                       ('ram_gb', '512'), ('tags', '["ssd", "nvme"]'),
                       ('notes', LONG_VALUE)],
            'host-b': [('gpu', 'false'), ('rack', 'r2'),
                       ('ram_gb', '256'), ('label', 'ünïcødé ✓'),
                       ('quote', "it's \"quoted\"; DROP TABLE x;--")],
            'host-c': [('gpu', 'true'), ('rack', 'r1'), ('empty', ''),
                       ('ram_gb', '1.5e3'), ('notes', 'short')],
            'host-d': [],
        }
        rows = []
        with self.engine.begin() as conn:
            for number, (name, capabilities) in enumerate(
                    sorted(values.items())):
                host_id = conn.execute(hosts.insert().values(
                    vcpus=8 * (number + 1), cpu_info='{"arch": "x86_64"}',
                    hypervisor_type='QEMU', hypervisor_version=8002000,
                    hypervisor_hostname=name, memory_mb=4096, local_gb=100,
                    created_at=created)).inserted_primary_key[0]
                for index, (cap, value) in enumerate(capabilities):
                    row_id = '%s-%s' % (name, cap)
                    timestamp = created + datetime.timedelta(minutes=index)
                    conn.execute(caps.insert().values(
                        id=row_id, computehost_id=host_id,
                        capability_name=cap, capability_value=value,
                        created_at=timestamp))
                    rows.append((row_id, name, cap, value, timestamp))
        self.assertEqual(15, len(rows))
        return rows

    def _assert_normalized(self, legacy: list[tuple]) -> None:
        tables = self._tables()
        hosts = tables['computehosts']
        caps = tables['computehost_extra_capabilities']
        names = tables['extra_capabilities']
        with self.engine.connect() as conn:
            count = conn.execute(
                sa.select(sa.func.count()).select_from(caps)).scalar()
            kept = conn.execute(
                sa.select(caps.c.id, hosts.c.hypervisor_hostname,
                          names.c.capability_name, caps.c.capability_value,
                          caps.c.created_at)
                .select_from(caps.join(hosts).join(names))).all()
            capabilities = conn.execute(
                sa.select(names.c.capability_name, names.c.resource_type,
                          names.c.private)).all()

        self.assertEqual(len(legacy), count)
        # The inner joins drop nothing: every row found its host and name.
        self.assertEqual(sorted(legacy), sorted(tuple(r) for r in kept))

        distinct = sorted({row[2] for row in legacy})
        self.assertEqual(distinct,
                         sorted(name for name, _, _ in capabilities))
        for name, resource_type, private in capabilities:
            self.assertEqual(HOST_RESOURCE_TYPE, resource_type, name)
            # MySQL reflects BOOLEAN as TINYINT, so 0 there.
            self.assertIn(private, (False, 0), name)


class TestMigrationsSQLite(_MigrationsMixin,
                           test_fixtures.OpportunisticDBTestMixin,
                           base.BaseTestCase):
    FIXTURE = _SQLiteFixture


class TestMigrationsMySQL(_MigrationsMixin,
                          test_fixtures.OpportunisticDBTestMixin,
                          base.BaseTestCase):
    FIXTURE = _MySQLFixture

    def test_every_table_utf8mb4_whatever_the_server_default(self):
        # A server whose default character set is latin1: a table created
        # without its own charset would take latin1, and a foreign key
        # from it to a utf8mb4 table is refused (errno 150).
        with self.engine.begin() as conn:
            conn.execute(sa.text(
                'ALTER DATABASE `%s` CHARACTER SET latin1 '
                'COLLATE latin1_swedish_ci' % self.engine.url.database))
        migration.upgrade('head', self.engine)
        with self.engine.connect() as conn:
            others = conn.execute(sa.text(
                "SELECT table_name, table_collation "
                "FROM information_schema.tables "
                "WHERE table_schema = DATABASE() "
                "AND table_name != 'alembic_version' "  # alembic's own
                "AND table_collation NOT LIKE 'utf8mb4%'")).all()
        self.assertEqual([], [tuple(row) for row in others])


class TestMigrationsPostgreSQL(_MigrationsMixin,
                               test_fixtures.OpportunisticDBTestMixin,
                               base.BaseTestCase):
    FIXTURE = _PostgreSQLFixture
