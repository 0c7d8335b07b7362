"""Run an in-process API test case on MariaDB/MySQL or PostgreSQL.

Mix ``OnBackend`` in front of a ``base.APITestCase`` subclass and set
``BACKEND``: the test gets a fresh database on that server, migrated to
head, with the manager and API fixtures pointed at it. Skipped when the
``openstack_citest`` login of tools/test-setup.sh does not work.
"""

import types

from oslo_db.sqlalchemy import engines

from blazar_ext.db import migration
from blazar_ext.db import session as db_session
from blazar_ext.tests import base
from blazar_ext.tests import fixtures
from blazar_ext.tests.functional import services


class OnBackend:
    BACKEND = ''

    def setUp(self):
        base.TestCase.setUp(self)
        reason = services.database_unavailable(self.BACKEND)
        if reason:
            self.skipTest(reason)
        database = self.useFixture(services.Database(self.BACKEND))
        engine = engines.create_engine(database.url)
        self.addCleanup(engine.dispose)
        migration.upgrade('head', engine)
        self.conf.set_override('connection', database.url, group='database')
        self.addCleanup(db_session.context_manager.patch_engine(engine))
        self.db = types.SimpleNamespace(engine=engine, url=database.url)
        self.conf.set_override('event_interval', 3600, group='manager')
        self.manager = self.useFixture(fixtures.ManagerFixture())
        self.api = self.useFixture(fixtures.APIFixture())
