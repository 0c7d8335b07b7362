"""Compiling the property language: name resolution, errors and the SQL
shape on each database dialect. Selection results are checked against real
databases in tests/functional/db/test_host_properties.py."""

import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects import sqlite
import testtools

from blazar_ext.db.api import host_properties as hp
from blazar_ext.db.models import host as models
from blazar_ext import exceptions
from blazar_ext.query import compiler
from blazar_ext.query import language

KNOWN = {'gpu': False, 'rack': False, 'cpu_features': False,
         'secret': True}
DIALECTS = {'sqlite': sqlite.dialect(), 'postgresql': postgresql.dialect(),
            'mysql': mysql.dialect(), 'mariadb': mysql.dialect(
                is_mariadb=True)}


def render(condition, dialect='sqlite') -> str:
    query = sa.select(models.ComputeHost.id).where(condition)
    return str(query.compile(dialect=DIALECTS[dialect],
                             compile_kwargs={'literal_binds': True}))


class TestCompileHostFilter(testtools.TestCase):

    def compile(self, resource, hypervisor=None, **kwargs):
        kwargs.setdefault('known_capabilities', KNOWN)
        return hp.HostQuery(hypervisor, resource).compile(**kwargs)

    def assertInvalid(self, *args, **kwargs):
        error = self.assertRaises(exceptions.Invalid, self.compile, *args,
                                  **kwargs)
        self.assertEqual(400, error.status)
        return str(error)

    def test_no_filter_is_true(self):
        for empty in (None, '', '[]'):
            condition = hp.HostQuery(empty, empty).compile()
            self.assertEqual('true', str(condition))
        self.assertEqual('true', str(hp.HostQuery('', '').compile()))

    def test_both_fields_are_combined(self):
        sql = render(self.compile('["==", "$gpu", "true"]',
                                  '[">=", "$vcpus", "8"]'))
        self.assertIn('computehosts.vcpus >=', sql)
        self.assertIn("capability_name = 'gpu'", sql)

    def test_unknown_capability_is_named(self):
        message = self.assertInvalid('["==", "$nope", "1"]')
        self.assertIn('resource_properties: unknown property "$nope"',
                      message)

    def test_unknown_inside_nesting_is_named(self):
        message = self.assertInvalid(
            '["and", ["==", "$gpu", "true"], ["not", ["in", "$nope", "1"]]]')
        self.assertIn('"$nope"', message)

    def test_private_capability_hidden_exactly_like_unknown(self):
        hidden = self.assertInvalid('["==", "$secret", "1"]',
                                    private_visible=False)
        unknown = self.assertInvalid('["==", "$unheard_of", "1"]',
                                     private_visible=False)
        self.assertEqual(unknown.replace('unheard_of', 'secret'), hidden)
        # And allowed to a caller who may see private capabilities.
        self.compile('["==", "$secret", "1"]', private_visible=True)

    def test_columns_never_depend_on_capabilities(self):
        sql = render(self.compile('["==", "$vcpus", "8"]',
                                  known_capabilities={},
                                  private_visible=False))
        self.assertIn('computehosts.vcpus =', sql)
        self.assertNotIn('capability', sql)

    def test_without_known_capabilities_any_name_is_accepted(self):
        sql = render(hp.HostQuery(
            None, '["==", "$anything", "1"]').compile())
        self.assertIn("capability_name = 'anything'", sql)

    def test_hypervisor_properties_accept_columns_only(self):
        message = self.assertInvalid(None, '["==", "$gpu", "true"]')
        self.assertIn('hypervisor_properties: unknown property "$gpu"',
                      message)
        self.assertIn('$memory_mb', message)
        for column in hp.COLUMNS:
            self.compile(None, '["s==", "$%s", "1"]' % column)

    def test_hypervisor_error_names_its_field(self):
        error = self.assertRaises(exceptions.Invalid, self.compile, None,
                                  '["bad"]')
        self.assertIn('hypervisor_properties', str(error))

    def test_non_column_host_attributes_are_not_columns(self):
        # Internal columns are not part of the language; with a known
        # capability list they are unknown names.
        for name in ('id', 'trust_id', 'reservable', 'status'):
            self.assertInvalid('["==", "$%s", "1"]' % name)

    def test_numeric_column_needs_a_number(self):
        message = self.assertInvalid('[">=", "$memory_mb", "4G"]')
        self.assertIn('"$memory_mb" is a number; "4G" is not', message)
        self.assertIn('s>=', message)
        self.assertInvalid('["in", "$vcpus", "8", "eight"]')
        # String operators compare the column's text.
        sql = render(self.compile('["s==", "$vcpus", "eight"]'))
        self.assertIn("CAST(computehosts.vcpus AS VARCHAR(64)) = 'eight'",
                      sql)

    def test_numeric_column_compares_numbers(self):
        sql = render(self.compile('[">=", "$memory_mb", "4096"]'))
        self.assertIn('computehosts.memory_mb >= CAST(', sql)
        self.assertNotIn('CASE', sql)

    def test_nullable_column_requires_a_value(self):
        sql = render(self.compile('["!=", "$availability_zone", "az1"]'))
        self.assertIn('computehosts.availability_zone IS NOT NULL', sql)
        sql = render(self.compile('["!=", "$hypervisor_type", "QEMU"]'))
        self.assertNotIn('IS NOT NULL', sql)

    def test_capability_is_a_semi_join_on_the_value_index(self):
        sql = render(self.compile('["==", "$gpu", "true"]'))
        self.assertIn('computehosts.id IN (SELECT computehost_extra_'
                      'capabilities.computehost_id', sql)
        self.assertIn('computehost_extra_capabilities.capability_id = '
                      '(SELECT extra_capabilities.id', sql)
        self.assertIn("extra_capabilities.resource_type = 'physical:host'",
                      sql)
        self.assertIn("extra_capabilities.capability_name = 'gpu'", sql)
        # A plain '=' the (capability_id, capability_value) index can use;
        # no '= 1' wrapped around it on databases without booleans.
        self.assertIn("(computehost_extra_capabilities.capability_value = "
                      "'true'))", sql)
        self.assertNotIn('= 1', sql)
        self.assertNotIn('CASE', sql)

    def test_mysql_equality_is_exact_and_indexable(self):
        sql = render(self.compile('["==", "$gpu", "true"]'), 'mysql')
        self.assertIn("(computehost_extra_capabilities.capability_value = "
                      "'true' AND CAST(computehost_extra_capabilities."
                      "capability_value AS BINARY) = 'true')", sql)
        self.assertNotIn('= 1', sql)

    def test_not_is_not_in(self):
        sql = render(self.compile('["not", ["==", "$gpu", "true"]]'))
        self.assertIn('(computehosts.id NOT IN (SELECT', sql)

    def test_numeric_capability_compares_the_number_column(self):
        # No CAST of the stored text: the typed column beside it, which
        # the (capability_id, capability_number) index orders.
        sql = render(self.compile('["==", "$rack", "9"]'))
        self.assertIn('computehost_extra_capabilities.capability_number = '
                      "CAST('9' AS NUMERIC(65, 30))", sql)
        self.assertNotIn('capability_value', sql.split('WHERE', 2)[2])
        self.assertNotIn('CASE', sql)
        sql = render(self.compile('["!=", "$rack", "9"]'))
        self.assertIn('capability_number IS NULL OR computehost_extra_'
                      'capabilities.capability_number != CAST(', sql)

    def test_ordered_numeric_comparison_is_two_index_ranges(self):
        # Numbers by their number; other text by its text, where the
        # number is NULL: one semi-join each, so each scans one range.
        sql = render(self.compile('[">", "$rack", "9"]'))
        self.assertEqual(2, sql.count('IN (SELECT computehost_extra'))
        self.assertIn('computehost_extra_capabilities.capability_number > '
                      "CAST('9' AS NUMERIC(65, 30)))", sql)
        self.assertIn('capability_number IS NULL AND computehost_extra_'
                      "capabilities.capability_value > '9'", sql)
        self.assertNotIn('CASE', sql)
        # A text literal compares text only.
        sql = render(self.compile('[">", "$rack", "r9"]'))
        self.assertEqual(1, sql.count('IN (SELECT computehost_extra'))
        self.assertNotIn('capability_number', sql)

    def test_without_a_number_column_the_cast_is_guarded(self):
        # A capability table without the typed column (another resource
        # type) still compares numbers, casting behind a guard.
        table = compiler.CapabilityTable(
            resource_type='physical:host', owner_id=models.ComputeHost.id,
            names=models.ExtraCapability,
            values=models.ComputeHostExtraCapability,
            values_owner_id='computehost_id')
        resolver = compiler.TableResolver('resource_properties', {}, table)
        sql = render(compiler.compile(language.parse('[">", "$rack", "9"]'),
                                      resolver))
        self.assertIn('CASE WHEN', sql)
        self.assertIn('THEN CAST(computehost_extra_capabilities.'
                      'capability_value AS NUMERIC(65, 30)) > ', sql)
        self.assertIn("ELSE computehost_extra_capabilities.capability_value "
                      "> '9'", sql)

    def test_membership_is_one_subquery(self):
        for op in ('in', '<or>', '<all-in>'):
            sql = render(self.compile('["%s", "$rack", "r1", "r2"]' % op))
            self.assertEqual(1, sql.count('IN (SELECT computehost_extra'),
                             op)

    def test_all_in_matches_whole_elements(self):
        sql = render(self.compile('["<all-in>", "$cpu_features", "sse"]'))
        self.assertIn("',sse,'", sql)

    def test_traits_is_a_set_not_a_capability(self):
        # Not in KNOWN, yet resolved: $traits is the provider's traits.
        sql = render(self.compile('["==", "$traits", "CUSTOM_GPU"]'))
        self.assertIn('computehosts.resource_provider_id IS NOT NULL', sql)
        self.assertIn('resource_provider_traits', sql)
        self.assertNotIn('capability_name', sql)
        self.assertEqual(set(), hp.HostQuery(
            None, '["==", "$traits", "CUSTOM_GPU"]').capability_names())

    def test_traits_all_in_needs_each_name(self):
        sql = render(self.compile(
            '["<all-in>", "$traits", "CUSTOM_A", "CUSTOM_B"]'))
        self.assertEqual(2, sql.count('IN (SELECT resource_provider_traits'))
        sql = render(self.compile('["in", "$traits", "CUSTOM_A", "CUSTOM_B"]'))
        self.assertEqual(1, sql.count('IN (SELECT resource_provider_traits'))

    def test_traits_refuses_other_operators(self):
        for op in ('!=', '<', 's==', '<in>'):
            message = self.assertInvalid('["%s", "$traits", "X"]' % op)
            self.assertIn('"$traits" is a set of names', message)
            self.assertIn('not "%s"' % op, message)

    def test_traits_not_in_hypervisor_properties(self):
        message = self.assertInvalid(
            None, hypervisor='["==", "$traits", "CUSTOM_GPU"]')
        self.assertIn('hypervisor_properties: unknown property "$traits"',
                      message)

    def test_trait_names_are_collected(self):
        query = hp.HostQuery('', (
            '["and", ["==", "$traits", "CUSTOM_A"], ["not", ["in", '
            '"$traits", "CUSTOM_B", "CUSTOM_C"]], ["==", "$gpu", "x"]]'))
        self.assertEqual({'CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C'},
                         query.trait_names())

    def test_dialect_specific_exactness(self):
        condition = self.compile(
            '["and", ["s<", "$rack", "r"], ["<in>", "$rack", "r"], '
            '["<all-in>", "$cpu_features", "aes"], [">", "$rack", "1"]]')
        sql = render(condition, 'postgresql')
        self.assertIn('COLLATE "C"', sql)
        self.assertIn('strpos(', sql)
        self.assertNotIn('instr(', sql)
        for dialect in ('mysql', 'mariadb'):
            sql = render(condition, dialect)
            self.assertIn('AS BINARY)', sql)
            self.assertIn('INSTR(', sql)
            self.assertIn('DECIMAL(65, 30)', sql)
            self.assertIn('concat(', sql)
        sql = render(condition, 'sqlite')
        self.assertIn('instr(', sql)
        self.assertNotIn('COLLATE', sql)
        self.assertNotIn('BINARY', sql)

    def test_no_regexp_anywhere(self):
        condition = self.compile('[">", "$rack", "1.5"]')
        for dialect in DIALECTS:
            self.assertNotIn('REGEXP', render(condition, dialect).upper())

    def test_user_text_is_bound_not_inlined(self):
        condition = self.compile(
            '["==", "$rack", "x\'; DROP TABLE computehosts; --"]')
        compiled = sa.select(models.ComputeHost.id).where(
            condition).compile(dialect=DIALECTS['sqlite'])
        self.assertNotIn('DROP TABLE', str(compiled))
        self.assertIn("x'; DROP TABLE computehosts; --",
                      compiled.params.values())


class TestPluggableResolver(testtools.TestCase):
    """Another resource type gets the language from its own tables."""

    def setUp(self):
        super().setUp()
        metadata = sa.MetaData()
        self.ips = sa.Table(
            'ips', metadata,
            sa.Column('id', sa.Integer, primary_key=True),
            sa.Column('address', sa.String(64), nullable=False),
            sa.Column('prefix', sa.Integer, nullable=False))
        self.engine = sa.create_engine('sqlite://')
        metadata.create_all(self.engine)
        with self.engine.begin() as connection:
            connection.execute(self.ips.insert(), [
                {'id': 1, 'address': '10.0.0.1', 'prefix': 8},
                {'id': 2, 'address': '192.168.0.1', 'prefix': 24},
                {'id': 3, 'address': '172.16.0.1', 'prefix': 12}])
        self.resolver = compiler.TableResolver(
            'network_properties', {'address': self.ips.c.address,
                                   'prefix': self.ips.c.prefix})

    def select(self, expression) -> list:
        condition = compiler.compile(
            language.parse(expression, 'network_properties'), self.resolver)
        with self.engine.connect() as connection:
            return sorted(connection.scalars(
                sa.select(self.ips.c.id).where(condition)))

    def test_columns(self):
        # Numeric order: 8 < 12 < 24, where text order would put 12 first.
        self.assertEqual([2, 3], self.select('[">", "$prefix", "9"]'))
        self.assertEqual([1, 3], self.select(
            '["not", ["<in>", "$address", "192."]]'))
        self.assertEqual([1, 2], self.select(
            '["<or>", "$prefix", "8", 24]'))

    def test_without_capabilities_other_names_are_unknown(self):
        error = self.assertRaises(exceptions.Invalid, self.select,
                                  '["==", "$zone", "a"]')
        self.assertIn('network_properties: unknown property "$zone"; it '
                      'accepts only $address, $prefix', str(error))
