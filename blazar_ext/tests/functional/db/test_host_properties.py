"""The host property language against real databases: which hosts each
expression selects.

Hosts are inserted through blazar_ext.db.api.host.host_create, the filter
is compiled by blazar_ext.db.api.capability.host_filter (the db-layer entry
point) and run as one SELECT. The same expectations run on SQLite and, when
the ``openstack_citest`` user of tools/test-setup.sh can connect, on
MySQL/MariaDB and PostgreSQL (oslo.db's opportunistic fixtures; those
classes skip with oslo.db's reason otherwise). The cases are chosen where
the databases differ by default: case and trailing spaces in string
equality (MySQL), collation order (PostgreSQL), failed CASTs (PostgreSQL),
LIKE's case folding (SQLite).
"""

import collections
import threading
from unittest import mock

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import provision
from oslo_db.sqlalchemy import test_fixtures
from oslotest import base
import sqlalchemy as sa
import testtools

from blazar_ext import context as blazar_context
from blazar_ext.db.api import capability as capability_api
from blazar_ext.db.api import host as host_api
from blazar_ext.db.api import host_filter
from blazar_ext.db.api import host_properties
from blazar_ext.db.models import host as models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions
from blazar_ext.query import language
from blazar_ext.query import sql
from blazar_ext.query import traits as trait_query

ALL = {'h1', 'h2', 'h3', 'h4', 'h5'}

# name: (columns, public capabilities)
HOSTS = {
    'h1': ({'vcpus': 8, 'memory_mb': 4096, 'hypervisor_type': 'QEMU',
            'availability_zone': 'az1'},
           {'gpu': 'true', 'rack': 'r1', 'nic': '9', 'cpu_model': 'Haswell',
            'cpu_features': '["aes", "avx", "sse4_2"]', 'label': 'Alpha',
            'ram_speed': '2400'}),
    'h2': ({'vcpus': 32, 'memory_mb': 65536, 'hypervisor_type': 'QEMU',
            'availability_zone': None},
           {'gpu': 'false', 'rack': 'r2', 'nic': '32',
            'cpu_model': 'Skylake-Server', 'cpu_features': 'aes,sse',
            'label': 'alpha', 'weight': '-1.5'}),
    'h3': ({'vcpus': 16, 'memory_mb': 16384, 'hypervisor_type': 'ironic',
            'availability_zone': 'az2'},
           {'rack': 'r10', 'nic': '100', 'cpu_model': 'Haswell-noTSX',
            'cpu_features': 'avx sse aes', 'label': 'Beta ',
            'weight': '0.25'}),
    'h4': ({'vcpus': 4, 'memory_mb': 2048, 'hypervisor_type': 'QEMU',
            'availability_zone': 'az1'},
           {}),
    'h5': ({'vcpus': 8, 'memory_mb': 8192, 'hypervisor_type': 'QEMU',
            'availability_zone': 'az1'},
           {'nic': 'fast', 'rack': '9', 'cpu_features': 'sse4_2, avx2',
            'weight': '1e3'}),
}
# Private capabilities: a non-admin must not learn they exist.
PRIVATE = {'h5': {'secret': 'yes'}}

# (resource_properties, hosts selected)
CASES = [
    # Numbers compare as numbers where both sides are numbers; upstream
    # compared text, where '9' > '32' and '100' < '32'.
    ('[">", "$nic", "10"]', {'h2', 'h3', 'h5'}),  # 'fast' > '10' as text
    ('["<", "$nic", "32"]', {'h1'}),
    ('["<=", "$nic", "32"]', {'h1', 'h2'}),
    ('[">=", "$nic", "32"]', {'h2', 'h3', 'h5'}),
    ('["==", "$nic", "32.0"]', {'h2'}),
    ('["==", "$nic", 32]', {'h2'}),
    ('["!=", "$nic", "9"]', {'h2', 'h3', 'h5'}),  # h4 has no nic
    ('["==", "$nic", "fast"]', {'h5'}),
    ('["==", "$ram_speed", "2400"]', {'h1'}),
    ('[">=", "$weight", "-1.5"]', {'h2', 'h3', 'h5'}),
    ('["<", "$weight", "0"]', {'h2'}),
    ('[">", "$weight", "0.2"]', {'h3', 'h5'}),
    # String comparisons always compare text, in code point order.
    ('["s==", "$nic", "32.0"]', set()),
    ('["s==", "$nic", "32"]', {'h2'}),
    ('["s<", "$nic", "32"]', {'h3'}),
    ('["s<=", "$nic", "32"]', {'h2', 'h3'}),
    ('["s>", "$nic", "32"]', {'h1', 'h5'}),
    ('["s>=", "$nic", "9"]', {'h1', 'h5'}),
    ('["s!=", "$nic", "9"]', {'h2', 'h3', 'h5'}),
    # Exact: case matters and trailing spaces count (MySQL's default
    # collations would say otherwise).
    ('["==", "$label", "alpha"]', {'h2'}),
    ('["==", "$label", "Beta"]', set()),
    ('["==", "$label", "Beta "]', {'h3'}),
    ('["s<", "$label", "B"]', {'h1'}),
    ('["s>=", "$label", "a"]', {'h2'}),
    ('["s!=", "$label", "alpha"]', {'h1', 'h3'}),
    # Booleans as the hosts API stores them.
    ('["==", "$gpu", "true"]', {'h1'}),
    ('["==", "$gpu", true]', {'h1'}),
    ('["not", ["==", "$gpu", "true"]]', {'h2', 'h3', 'h4', 'h5'}),
    # in / <or>: equal to any value, numerically where numeric.
    ('["in", "$rack", "r1", "r2"]', {'h1', 'h2'}),
    ('["<or>", "$rack", "r1", "r10"]', {'h1', 'h3'}),
    ('["in", "$rack", ["r2"]]', {'h2'}),
    ('["in", "$rack", "9.0"]', {'h5'}),
    ('["<or>", "$cpu_model", "Haswell", "Skylake"]', {'h1'}),
    # <all-in>: whole elements of a JSON list, comma or space separated
    # string; 'sse' does not match 'sse4_2', 'avx' does not match 'avx2'.
    ('["<all-in>", "$cpu_features", "aes", "avx"]', {'h1', 'h3'}),
    ('["<all-in>", "$cpu_features", "sse"]', {'h2', 'h3'}),
    ('["<all-in>", "$cpu_features", "avx"]', {'h1', 'h3'}),
    ('["<all-in>", "$cpu_features", "sse4_2"]', {'h1', 'h5'}),
    ('["<all-in>", "$cpu_features", "avx2", "sse4_2"]', {'h5'}),
    ('["<all-in>", "$cpu_features", "AES"]', set()),
    ('["<all-in>", "$rack", "r1"]', {'h1'}),
    ('["not", ["<all-in>", "$cpu_features", "sse"]]', {'h1', 'h4', 'h5'}),
    # <in>: case-sensitive substring (SQLite's LIKE would fold case).
    ('["<in>", "$cpu_model", "Has"]', {'h1', 'h3'}),
    ('["<in>", "$cpu_model", "has"]', set()),
    ('["<in>", "$cpu_model", "Server"]', {'h2'}),
    ('["<in>", "$cpu_model", "%"]', set()),
    ('["<in>", "$cpu_features", "sse"]', {'h1', 'h2', 'h3', 'h5'}),
    # Host columns.
    ('[">=", "$memory_mb", "4096"]', {'h1', 'h2', 'h3', 'h5'}),
    ('["==", "$vcpus", "8"]', {'h1', 'h5'}),
    ('["==", "$vcpus", "8.0"]', {'h1', 'h5'}),
    ('["<", "$vcpus", "16"]', {'h1', 'h4', 'h5'}),
    ('["<=", "$vcpus", "16"]', {'h1', 'h3', 'h4', 'h5'}),
    ('[">", "$vcpus", "9"]', {'h2', 'h3'}),
    ('["!=", "$vcpus", "8"]', {'h2', 'h3', 'h4'}),
    ('["in", "$vcpus", 4, 32]', {'h2', 'h4'}),
    ('["s==", "$vcpus", "32"]', {'h2'}),
    ('["<in>", "$vcpus", "2"]', {'h2'}),
    ('["==", "$hypervisor_type", "ironic"]', {'h3'}),
    ('["s!=", "$hypervisor_type", "QEMU"]', {'h3'}),
    ('["==", "$hypervisor_hostname", "h4"]', {'h4'}),
    # A NULL column is "no value": neither == nor !=, but not(==).
    ('["!=", "$availability_zone", "az1"]', {'h3'}),
    ('["not", ["==", "$availability_zone", "az1"]]', {'h2', 'h3'}),
    # Logic.
    ('["and", [">=", "$memory_mb", "4096"], ["==", "$gpu", "true"]]',
     {'h1'}),
    ('["or", ["==", "$gpu", "true"], ["==", "$rack", "r10"]]',
     {'h1', 'h3'}),
    ('["not", ["or", ["==", "$rack", "r1"], ["<", "$vcpus", "8"]]]',
     {'h2', 'h3', 'h5'}),
    ('["and", ["not", ["==", "$gpu", "true"]], ["in", "$rack", "r2", "9"],'
     ' ["or", [">", "$nic", "20"], ["<all-in>", "$cpu_features", "avx2"]]]',
     {'h2', 'h5'}),
    ('["not", ["not", ["==", "$gpu", "true"]]]', {'h1'}),
    ('["and", ["==", "$gpu", "true"]]', {'h1'}),
    # No filter.
    ('', ALL),
    (None, ALL),
    ('[]', ALL),
]

# Strings on which SQL's numeric guard must agree with Python's.
NUMBER_SAMPLES = ['0', '9', '32', '-1.5', '0.25', '007', '1' * 32,
                  '1' * 33, '', '-', '.', '.5', '5.', '-.5', '1.2.3', '1-2',
                  '+1', '1e3', ' 1', '1 ', '12 ', 'fast', 'r1', '--1', '1..2',
                  '-0', '\u0663', 'true', '[1]']


class _SQLiteFixture(test_fixtures.OpportunisticDbFixture):
    """Provisions a database for the service's own enginefacade."""

    DRIVER = 'sqlite'

    def get_enginefacade(self):
        return db_session.context_manager


class _MySQLFixture(_SQLiteFixture):
    DRIVER = 'mysql'


class _PostgreSQLFixture(_SQLiteFixture):
    DRIVER = 'postgresql'


class _HostPropertiesMixin:

    def setUp(self):
        super().setUp()
        self.engine = db_session.get_engine()
        backend = provision.Backend(self.engine.name, self.engine.url)
        self.addCleanup(backend.drop_all_objects, self.engine)
        # From the models: this test is about queries, and the migration
        # history is tested in test_migrations. Every table, as registering
        # a host creates its resource provider.
        models.ComputeHost.metadata.create_all(self.engine)
        self.context = blazar_context.get_admin_context()
        for name, (columns, capabilities) in HOSTS.items():
            values = {'hypervisor_hostname': name, 'cpu_info': '{}',
                      'hypervisor_version': 1, 'local_gb': 100}
            values.update(columns)
            host = host_api.host_create(self.context, values, capabilities)
            if name in PRIVATE:
                host_api.host_update_capabilities(
                    self.context, host['id'], PRIVATE[name],
                    private_default=True)

    def select(self, resource_properties, hypervisor_properties=None,
               private_visible=True) -> set:
        with db_session.reader.using(self.context) as session:
            condition = host_filter.build(session, host_properties.HostQuery(
                hypervisor_properties, resource_properties),
                private_visible=private_visible)
            return set(session.scalars(
                sa.select(models.ComputeHost.hypervisor_hostname)
                .where(condition)))

    def test_unknown_trait_is_invalid_naming_its_field(self):
        in_expression = host_properties.HostQuery(
            None, '["==", "$traits", "CUSTOM_NOPE"]')
        no_expression = host_properties.HostQuery(None, None)
        with db_session.reader.using(self.context) as session:
            exc = self.assertRaises(exceptions.Invalid, host_filter.build,
                                    session, in_expression)
            self.assertIn('resource_properties: "$traits": ', str(exc))
            self.assertIn('CUSTOM_NOPE', str(exc))
            exc = self.assertRaises(
                exceptions.Invalid, host_filter.build, session,
                no_expression, trait_query.parse('CUSTOM_NOPE'),
                traits_field='physical:host reservation: traits')
            self.assertIn('physical:host reservation: traits: ', str(exc))
            self.assertIn('CUSTOM_NOPE', str(exc))

    def test_runs_on_the_backend_named(self):
        self.assertEqual(self.FIXTURE.DRIVER, self.engine.name)

    def test_selection(self):
        wrong = []
        for expression, expected in CASES:
            selected = self.select(expression)
            if selected != expected:
                wrong.append('%s selected %s, expected %s'
                             % (expression, sorted(selected),
                                sorted(expected)))
        self.assertEqual([], wrong)

    def test_hypervisor_properties(self):
        self.assertEqual({'h1', 'h5'}, self.select(
            None, '["==", "$vcpus", "8"]'))
        self.assertEqual({'h1'}, self.select(
            '["==", "$gpu", "true"]', '["==", "$vcpus", "8"]'))
        self.assertEqual(set(), self.select(
            '["==", "$gpu", "true"]', '[">", "$vcpus", "8"]'))
        error = self.assertRaises(exceptions.Invalid, self.select, None,
                                  '["==", "$gpu", "true"]')
        self.assertIn('hypervisor_properties: unknown property "$gpu"',
                      str(error))

    def test_unknown_property_is_invalid(self):
        error = self.assertRaises(exceptions.Invalid, self.select,
                                  '["==", "$no_such_thing", "1"]')
        self.assertEqual(400, error.status)
        self.assertIn('"$no_such_thing"', str(error))

    def test_private_capability(self):
        self.assertEqual({'h5'}, self.select('["==", "$secret", "yes"]'))
        self.assertEqual({'h1', 'h2', 'h3', 'h4'}, self.select(
            '["not", ["==", "$secret", "yes"]]'))
        hidden = self.assertRaises(exceptions.Invalid, self.select,
                                   '["==", "$secret", "yes"]',
                                   private_visible=False)
        unknown = self.assertRaises(exceptions.Invalid, self.select,
                                    '["==", "$secrex", "yes"]',
                                    private_visible=False)
        self.assertEqual(str(unknown).replace('secrex', 'secret'),
                         str(hidden))
        # Public capabilities still work for that caller.
        self.assertEqual({'h1'}, self.select('["==", "$gpu", "true"]',
                                             private_visible=False))

    def test_kept_condition_follows_the_capabilities(self):
        # A condition built once is kept (the same object comes back), but
        # a capability made private or removed since refuses it again.
        query = host_properties.HostQuery(None, '["==", "$gpu", "true"]')
        with db_session.reader.using(self.context) as session:
            first = host_filter.build(session, query)
            self.assertIs(first, host_filter.build(session, query))
        self.assertEqual({'h1'}, self.select('["==", "$gpu", "true"]',
                                             private_visible=False))
        with db_session.writer.using(self.context) as session:
            session.execute(sa.update(models.ExtraCapability).where(
                models.ExtraCapability.capability_name == 'gpu').values(
                    private=True))
        error = self.assertRaises(exceptions.Invalid, self.select,
                                  '["==", "$gpu", "true"]',
                                  private_visible=False)
        self.assertIn('unknown property "$gpu"', str(error))
        self.assertEqual({'h1'}, self.select('["==", "$gpu", "true"]'))
        with db_session.writer.using(self.context) as session:
            session.execute(sa.delete(models.ComputeHostExtraCapability))
            session.execute(sa.delete(models.ExtraCapabilityValue))
            session.execute(sa.delete(models.ExtraCapability))
        error = self.assertRaises(exceptions.Invalid, self.select,
                                  '["==", "$gpu", "true"]')
        self.assertIn('unknown property "$gpu"', str(error))

    def test_known_capabilities(self):
        known = capability_api.known_capabilities(
            self.context, 'physical:host')
        self.assertEqual(False, known['gpu'])
        self.assertEqual(True, known['secret'])
        self.assertEqual({'gpu': False, 'secret': True},
                         capability_api.known_capabilities(
                             self.context, 'physical:host',
                             ['gpu', 'secret', 'nope']))
        self.assertEqual({}, capability_api.known_capabilities(
            self.context, 'physical:host', []))
        self.assertEqual({}, capability_api.known_capabilities(
            self.context, 'virtual:floatingip'))

    def test_numeric_guard_agrees_with_python(self):
        with db_session.reader.using(self.context) as session:
            for text in NUMBER_SAMPLES:
                guarded = session.scalar(sa.select(sa.case(
                    (sql.is_number(sa.literal(text, sa.String())), 1),
                    else_=0)))
                self.assertEqual(language.is_number(text), bool(guarded),
                                 repr(text))

    def test_numbers_cast_exactly(self):
        # DECIMAL(65, 30) keeps decimals on MySQL, where a bare DECIMAL
        # would round 0.25 to 0.
        with db_session.reader.using(self.context) as session:
            for text, other, expected in (('0.25', '0.2', True),
                                          ('0.25', '0.3', False),
                                          ('1' * 32, '1' * 31, True),
                                          ('-1.5', '-1.4', False)):
                greater = session.scalar(sa.select(sa.case(
                    (sql.to_number(sa.literal(text, sa.String())) >
                     sql.number_literal(other), 1), else_=0)))
                self.assertEqual(expected, bool(greater), (text, other))

    def test_numbers_follow_every_write(self):
        h1 = self._host_id('h1')
        below = '["<", "$ram_speed", "3000"]'
        self.assertEqual({'h1'}, self.select(below))
        # As text '10000' < '3000': only its number can leave h1 out.
        for value, expected in (('10000', set()), ('fast', set()),
                                ('2999.5', {'h1'}), (None, set())):
            host_api.host_update_capabilities(self.context, h1,
                                              {'ram_speed': value})
            self.assertEqual(expected, self.select(below), value)
        host_api.host_update_capabilities(self.context, h1,
                                          {'ram_speed': '064'})
        self.assertEqual({'h1'}, self.select('["==", "$ram_speed", "64"]'))
        with db_session.reader.using(self.context) as session:
            values = models.ComputeHostExtraCapability
            numbers = dict(session.execute(sa.select(
                values.capability_value, values.capability_number)).all())
        self.assertEqual(100, numbers['100'])
        self.assertEqual(64, numbers['064'])
        self.assertEqual(-1.5, float(numbers['-1.5']))
        self.assertIsNone(numbers['1e3'])
        self.assertIsNone(numbers['true'])

    def _summary(self) -> dict:
        with db_session.reader.using(self.context) as session:
            summary = models.ExtraCapabilityValue
            return {(name, value): count for name, value, count in
                    session.execute(
                        sa.select(models.ExtraCapability.capability_name,
                                  summary.capability_value,
                                  summary.resources)
                        .join(models.ExtraCapability, models.ExtraCapability.id
                              == summary.capability_id))}

    def _grouped(self) -> dict:
        """What the summary must hold: the value rows, grouped exactly
        (MySQL's GROUP BY would fold 'Alpha' and 'alpha')."""
        with db_session.reader.using(self.context) as session:
            values = models.ComputeHostExtraCapability
            return dict(collections.Counter(map(tuple, session.execute(
                sa.select(models.ExtraCapability.capability_name,
                          values.capability_value)
                .join(models.ExtraCapability, models.ExtraCapability.id
                      == values.capability_id)))))

    def _summary_rows(self, name: str) -> list:
        with db_session.reader.using(self.context) as session:
            summary = models.ExtraCapabilityValue
            return sorted(map(tuple, session.execute(
                sa.select(summary.capability_value, summary.resources)
                .join(models.ExtraCapability, models.ExtraCapability.id
                      == summary.capability_id)
                .where(models.ExtraCapability.capability_name == name))))

    def test_one_row_per_value_is_enforced(self):
        summary = models.ExtraCapabilityValue.__table__
        with db_session.reader.using(self.context) as session:
            row = session.execute(sa.select(
                summary.c.capability_id, summary.c.capability_value,
                summary.c.value_digest)).first()
        self.assertEqual(capability_api.value_digest(row[1]), row[2])
        with testtools.ExpectedException(db_exc.DBDuplicateEntry):
            with db_session.writer.using(self.context) as session:
                session.execute(summary.insert().values(
                    capability_id=row[0], capability_value=row[1],
                    value_digest=row[2], resources=1))

    def _listed(self) -> dict:
        return {item['property']: item['values']
                for item in capability_api.property_list(
                    self.context, 'physical:host', True, True)}

    def test_distinct_values_follow_every_write(self):
        self.assertEqual(self._grouped(), self._summary())
        self.assertIn('r1', self._listed()['rack'])
        self.assertEqual(1, self._summary()[('gpu', 'true')])
        h1, h2 = self._host_id('h1'), self._host_id('h2')
        # A value changes, one goes, one comes, one more host shares one.
        host_api.host_update_capabilities(
            self.context, h1, {'rack': 'r7', 'label': None, 'tier': 'gold',
                               'gpu': 'false'})
        self.assertEqual(self._grouped(), self._summary())
        listed = self._listed()
        self.assertNotIn('r1', listed['rack'])
        self.assertIn('r7', listed['rack'])
        self.assertEqual(['gold'], listed['tier'])
        self.assertEqual(['false'], listed['gpu'])
        self.assertEqual(2, self._summary()[('gpu', 'false')])
        self.assertEqual(['gold'], capability_api.property_get(
            self.context, 'physical:host', 'tier')['values'])
        host_api.host_create(self.context, {
            'hypervisor_hostname': 'h6', 'cpu_info': '{}', 'vcpus': 1,
            'memory_mb': 1, 'hypervisor_type': 'QEMU',
            'hypervisor_version': 1, 'local_gb': 1}, {'tier': 'gold'})
        self.assertEqual(2, self._summary()[('tier', 'gold')])
        # The last host with a value goes: so does the value, and a name
        # no host has any more leaves the listing.
        host_api.host_delete(self.context, h2)
        host_api.host_update_capabilities(self.context, h1, {'ram_speed':
                                                             None})
        self.assertEqual(self._grouped(), self._summary())
        listed = self._listed()
        self.assertNotIn('Skylake-Server', listed['cpu_model'])
        self.assertNotIn('ram_speed', listed)
        self.assertNotIn('ram_speed', [
            item['property'] for item in capability_api.property_list(
                self.context, 'physical:host', True, False)])

    def test_listing_keeps_values_as_written(self):
        # The database aggregates a name's values as a JSON array: quotes,
        # commas, backslashes, non-ASCII and number-like text come back
        # as stored, numbers in numeric order, private names only if asked.
        odd = ['say "hi", then \\ leave', 'ünï ✓', '[1, 2]', 'null']
        host_api.host_update_capabilities(
            self.context, self._host_id('h1'), {'odd': odd[0]})
        for n, value in enumerate(odd[1:]):
            host_api.host_create(self.context, {
                'hypervisor_hostname': 'odd%d' % n, 'cpu_info': '{}',
                'vcpus': 1, 'memory_mb': 1, 'hypervisor_type': 'QEMU',
                'hypervisor_version': 1, 'local_gb': 1},
                {'odd': value, 'size': ('10', '9', '100')[n]})
        listed = self._listed()
        self.assertEqual(sorted(odd), listed['odd'])
        self.assertEqual(['9', '10', '100'], listed['size'])
        public = {item['property']: item for item in
                  capability_api.property_list(
                      self.context, 'physical:host', False, True)}
        self.assertEqual(['9', '10', '100'], public['size']['values'])
        self.assertFalse(public['size']['private'])
        hidden = set(self._listed()) - set(public)
        self.assertTrue(hidden)
        self.assertTrue(all(item['private'] for item in
                            capability_api.property_list(
                                self.context, 'physical:host', True, True)
                            if item['property'] in hidden))

    def test_fill_values_rebuilds_from_value_rows(self):
        expected = self._grouped()
        with db_session.writer.using(self.context) as session:
            session.execute(sa.delete(models.ExtraCapabilityValue))
        self.assertEqual({}, self._listed())
        with db_session.writer.using(self.context) as session:
            capability_api.fill_values(session, 'physical:host')
        self.assertEqual(expected, self._summary())

    def _host_id(self, name: str):
        with db_session.reader.using(self.context) as session:
            return session.scalar(
                sa.select(models.ComputeHost.id).where(
                    models.ComputeHost.hypervisor_hostname == name))


class _ConcurrentWritersMixin:
    """Writers racing on one capability value: on servers only, as
    SQLite lets one writer at a time."""

    def _race(self, *writes) -> None:
        """Run ``writes`` in threads, each with its own context, held at a
        barrier once its value rows are written and before it counts them,
        so the counts run at the same time."""
        barrier = threading.Barrier(len(writes), timeout=30)
        count_values = capability_api.count_values
        waited = threading.local()

        def counted(*args, **kwargs):
            # Once per thread: a retry after a deadlock goes straight on.
            if not getattr(waited, 'done', False):
                waited.done = True
                try:
                    barrier.wait()
                except threading.BrokenBarrierError:
                    pass
            return count_values(*args, **kwargs)
        errors = []

        def run(write):
            try:
                write(blazar_context.get_admin_context())
            except Exception as exc:  # reported below, with the others
                errors.append(exc)
        with mock.patch.object(capability_api, 'count_values', counted):
            threads = [threading.Thread(target=run, args=(write,))
                       for write in writes]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(60)
        self.assertEqual([], errors)

    def _set(self, host: str, capabilities: dict):
        """A write for _race: set ``host``'s capabilities."""
        host_id = self._host_id(host)
        return lambda context: host_api.host_update_capabilities(
            context, host_id, capabilities)

    def test_two_writers_of_one_new_value_leave_one_row(self):
        self._race(self._set('h1', {'rack': 'r99'}),
                   self._set('h2', {'rack': 'r99'}))
        self.assertIn(('r99', 2), self._summary_rows('rack'))
        self.assertEqual(self._grouped(), self._summary())

    def test_writers_removing_and_adding_one_value_keep_its_count(self):
        # h1 and h2 take 'gold' one after the other; then at once h1 and
        # h2 drop it while h3 takes it.
        host_api.host_update_capabilities(
            self.context, self._host_id('h1'), {'tier': 'gold'})
        host_api.host_update_capabilities(
            self.context, self._host_id('h2'), {'tier': 'gold'})
        self._race(self._set('h1', {'tier': None}),
                   self._set('h2', {'tier': 'silver'}),
                   self._set('h3', {'tier': 'gold'}))
        self.assertEqual([('gold', 1), ('silver', 1)],
                         self._summary_rows('tier'))
        self._race(self._set('h3', {'tier': None}),
                   self._set('h2', {'tier': None}))
        self.assertEqual([], self._summary_rows('tier'))
        self.assertEqual(self._grouped(), self._summary())


class TestHostPropertiesSQLite(_HostPropertiesMixin,
                               test_fixtures.OpportunisticDBTestMixin,
                               base.BaseTestCase):
    FIXTURE = _SQLiteFixture

    def plan(self, resource_properties) -> str:
        """SQLite's EXPLAIN QUERY PLAN of the host selection, one line."""
        with db_session.reader.using(self.context) as session:
            condition = host_filter.build(session, host_properties.HostQuery(
                None, resource_properties), private_visible=True)
            query = sa.select(models.ComputeHost.id).where(condition)
            compiled = query.compile(session.bind,
                                     compile_kwargs={'literal_binds': True})
            rows = session.execute(
                sa.text('EXPLAIN QUERY PLAN %s' % compiled)).all()
        return ' | '.join(row[-1] for row in rows)

    def test_equality_scans_the_value_index(self):
        plan = self.plan('["==", "$gpu", "true"]')
        # The hosts from the index alone (revision 0031).
        self.assertIn('COVERING INDEX ix_computehost_extra_capabilities_'
                      'value_host (capability_id=? AND capability_value=?)',
                      plan)
        self.assertNotIn('SCAN computehost_extra_capabilities', plan)

    def test_numeric_comparisons_scan_the_number_index(self):
        for expression, constraint in (
                ('[">=", "$nic", "64"]', 'capability_number>?'),
                ('["<", "$nic", "64"]', 'capability_number<?'),
                ('["==", "$nic", "64"]', 'capability_number=?')):
            plan = self.plan(expression)
            self.assertIn('COVERING INDEX ix_computehost_extra_capabilities_'
                          'number_host (capability_id=? AND %s)'
                          % constraint, plan, expression)
            self.assertNotIn('SCAN computehost_extra_capabilities', plan,
                             expression)


class TestHostPropertiesMySQL(_ConcurrentWritersMixin, _HostPropertiesMixin,
                              test_fixtures.OpportunisticDBTestMixin,
                              base.BaseTestCase):
    FIXTURE = _MySQLFixture


class TestHostPropertiesPostgreSQL(_ConcurrentWritersMixin,
                                   _HostPropertiesMixin,
                                   test_fixtures.OpportunisticDBTestMixin,
                                   base.BaseTestCase):
    FIXTURE = _PostgreSQLFixture
