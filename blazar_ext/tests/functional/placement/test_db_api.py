"""The placement db layer used from other modules: trait filters as SQL,
and the standard data sync; on SQLite, MariaDB/MySQL and PostgreSQL."""

import os_traits
import sqlalchemy as sa

from blazar_ext.cmd import traits as traits_cmd
from blazar_ext import context as blazar_context
from blazar_ext.db.api.placement import resource_class as rc_api
from blazar_ext.db.api.placement import resource_provider as rp_api
from blazar_ext.db.api.placement import trait as trait_api
from blazar_ext.db.models import placement as models
from blazar_ext.db import session as db_session
from blazar_ext.query import traits as trait_query
from blazar_ext.tests import base
from blazar_ext.tests.functional import backends


class TestTraitFilters(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.ctx = blazar_context.get_admin_context()

    def test_sync_is_idempotent_and_complete(self):
        added = trait_api.sync_standard_traits(self.ctx)
        self.assertEqual(len(os_traits.get_traits()), added)
        self.assertEqual(0, trait_api.sync_standard_traits(self.ctx))
        self.assertGreater(rc_api.sync_standard_classes(self.ctx), 0)
        self.assertEqual(0, rc_api.sync_standard_classes(self.ctx))

    def test_manage_traits_sync(self):
        self.assertEqual(0, traits_cmd.sync(None))
        self.assertIn('HW_CPU_X86_AVX', trait_api.list_traits(
            self.ctx, name_in=['HW_CPU_X86_AVX']))

    def test_select_provider_ids(self):
        trait_api.sync_standard_traits(self.ctx)
        trait_api.create_trait(self.ctx, 'CUSTOM_GPU')
        plain = rp_api.create(self.ctx, 'plain')
        gpu = rp_api.create(self.ctx, 'gpu')
        trait_api.set_provider_traits(self.ctx, plain['uuid'],
                                      ['HW_CPU_X86_AVX'], 0)
        trait_api.set_provider_traits(self.ctx, gpu['uuid'],
                                      ['HW_CPU_X86_AVX', 'CUSTOM_GPU'], 0)
        requirement = trait_query.parse('HW_CPU_X86_AVX,!CUSTOM_GPU')
        query = trait_api.select_provider_ids(requirement)
        with db_session.reader.using(self.ctx) as session:
            names = [row.name for row in session.execute(query)]
            self.assertEqual(['plain'], names)
            # The clauses compose into any query over providers.
            rp = sa.table('resource_providers', sa.column('id'),
                          sa.column('name'))
            count = session.scalar(
                sa.select(sa.func.count()).select_from(rp).where(
                    *trait_api.provider_filter(
                        trait_query.parse('in:CUSTOM_GPU,HW_CPU_X86_SSE'),
                        rp.c.id)))
            self.assertEqual(1, count)


TestTraitFiltersMySQL, TestTraitFiltersPostgreSQL = (
    backends.on_each_backend(TestTraitFilters))


class _TwentyFourProviders(base.DBTestCase):
    """Providers rp-00 to rp-23, each with the traits of its number's
    bits."""

    TRAITS = ['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C']

    def setUp(self):
        super().setUp()
        self.ctx = blazar_context.get_admin_context()
        for name in self.TRAITS:
            trait_api.create_trait(self.ctx, name)
        # Trait rows written in an order unlike the providers' ids.
        self.traits = {}
        providers = [rp_api.create(self.ctx, 'rp-%02d' % i)
                     for i in range(24)]
        for i, rp in reversed(list(enumerate(providers))):
            names = [t for bit, t in enumerate(self.TRAITS) if i >> bit & 1]
            trait_api.set_provider_traits(self.ctx, rp['uuid'], names, 0)
            self.traits[rp['name']] = set(names)


class TestRequiredTraitsLead(_TwentyFourProviders):
    """trait_api.narrowed: providers with the required traits, none
    forbidden, in id order, starting from the first required trait's
    rows."""

    def expected(self, requirement) -> list:
        return sorted(
            name for name, traits in self.traits.items()
            if requirement.required <= traits
            and not requirement.forbidden & traits
            and all(group & traits for group in requirement.any_of))

    def names(self, requirement) -> list:
        return rp_api.list_providers(self.ctx, required=requirement).names

    def test_same_providers_as_each_trait_tested(self):
        for values in (['CUSTOM_B'], ['CUSTOM_C,CUSTOM_A'],
                       ['CUSTOM_A,!CUSTOM_B'], ['!CUSTOM_A'],
                       ['in:CUSTOM_A,CUSTOM_C'],
                       ['CUSTOM_B,!CUSTOM_A', 'in:CUSTOM_A,CUSTOM_C']):
            requirement = trait_query.parse(values)
            self.assertEqual(self.expected(requirement),
                             self.names(requirement), values)

    def test_first_page_in_id_order(self):
        requirement = trait_query.parse('CUSTOM_A')
        query = trait_api.narrowed(
            sa.select(models.ResourceProvider.name), requirement,
            models.ResourceProvider.id).limit(3)
        with db_session.reader.using(self.ctx) as session:
            self.assertEqual(self.expected(requirement)[:3],
                             list(session.scalars(query)))


class TestTraitIndexLeads(_TwentyFourProviders):
    """On SQLite, which joins in the order it estimates best: the
    (trait, provider) index is read first, and gives the order."""

    def test_trait_index_leads_and_orders(self):
        query = trait_api.narrowed(
            sa.select(models.ResourceProvider.name),
            trait_query.parse('CUSTOM_A,!CUSTOM_B'),
            models.ResourceProvider.id)
        with db_session.reader.using(self.ctx) as session:
            compiled = query.compile(session.bind,
                                     compile_kwargs={'literal_binds': True})
            plan = [row[3] for row in session.execute(
                sa.text('EXPLAIN QUERY PLAN %s' % compiled))]
        self.assertIn('ix_resource_provider_traits_trait_provider', plan[0])
        self.assertFalse([step for step in plan if 'TEMP B-TREE' in step],
                         plan)


TestRequiredTraitsLeadMySQL, TestRequiredTraitsLeadPostgreSQL = (
    backends.on_each_backend(TestRequiredTraitsLead))


class TestNameOrder(base.DBTestCase):
    """Names listed in byte order (as SQLite and MySQL's utf8mb4_bin sort
    them), whatever the database's own collation says."""

    def setUp(self):
        super().setUp()
        self.ctx = blazar_context.get_admin_context()
        # Byte order; a language's collation puts CUSTOM_B_2 first.
        self.names = ['CUSTOM_B2', 'CUSTOM_BA', 'CUSTOM_B_2']
        for name in reversed(self.names):
            trait_api.create_trait(self.ctx, name)

    def test_traits_listed_in_byte_order(self):
        self.assertEqual(self.names, trait_api.list_traits(
            self.ctx, starts_with='CUSTOM_B'))

    def test_provider_traits_read_back_in_the_order_set(self):
        rp = rp_api.create(self.ctx, 'rp')
        written = trait_api.set_provider_traits(
            self.ctx, rp['uuid'], list(reversed(self.names)), 0)
        self.assertEqual(self.names, written['traits'])
        self.assertEqual(self.names, trait_api.get_provider_traits(
            self.ctx, rp['uuid'])['traits'])


class TestNameOrderPostgreSQLEnUS(backends.OnBackend, TestNameOrder):
    """On a PostgreSQL database made with an English collation, as
    initdb makes them where the system locale is en_US.UTF-8."""

    BACKEND = 'postgresql'
    CREATE_OPTIONS = ("TEMPLATE template0 LOCALE_PROVIDER icu "
                      "ICU_LOCALE 'en-US'")


TestNameOrderMySQL, TestNameOrderPostgreSQL = (
    backends.on_each_backend(TestNameOrder))
