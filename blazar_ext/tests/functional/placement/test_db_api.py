"""The placement db layer used from other modules: trait filters as SQL,
and the standard data sync; on SQLite, MariaDB/MySQL and PostgreSQL."""

import os_traits
import sqlalchemy as sa

from blazar_ext.cmd import traits as traits_cmd
from blazar_ext import context as blazar_context
from blazar_ext.db.api.placement import resource_class as rc_api
from blazar_ext.db.api.placement import resource_provider as rp_api
from blazar_ext.db.api.placement import trait as trait_api
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
