"""Run a database test case on MariaDB/MySQL or PostgreSQL.

Put ``OnBackend`` in front of a ``base.DBTestCase`` (or APITestCase)
subclass and set ``BACKEND``: the test runs as it does on SQLite, on a
fresh database of that server migrated to head. Skipped when the
``openstack_citest`` login of tools/test-setup.sh does not work.
"""

import types
import unittest

import fixtures
from oslo_db.sqlalchemy import engines

from blazar_ext import conf
from blazar_ext.db import migration
from blazar_ext.db import session as db_session
from blazar_ext.tests.functional import services


class BackendDatabase(fixtures.Fixture):
    """A fresh migrated database on ``backend`` for the service to use;
    ``create_options`` as services.Database takes them."""

    def __init__(self, backend: str, create_options: str = ''):
        super().__init__()
        self.backend = backend
        self.create_options = create_options

    def _setUp(self):
        self.url = self.useFixture(services.Database(
            self.backend, self.create_options)).url
        self.engine = engines.create_engine(self.url)
        self.addCleanup(self.engine.dispose)
        migration.upgrade('head', self.engine)
        conf.CONF.set_override('connection', self.url, group='database')
        self.addCleanup(db_session.context_manager.patch_engine(self.engine))


class OnBackend:
    BACKEND = ''
    # After CREATE DATABASE <name>: a collation other than the server's
    # default, say.
    CREATE_OPTIONS = ''

    def database_fixture(self) -> fixtures.Fixture:
        reason = services.database_unavailable(self.BACKEND)
        if reason:
            self.skipTest(reason)
        return BackendDatabase(self.BACKEND, self.CREATE_OPTIONS)


BACKENDS = (('mysql', 'MySQL'), ('postgresql', 'PostgreSQL'))


def on_each_backend(case: type) -> tuple:
    """``case`` again on MariaDB/MySQL, then on PostgreSQL.

    Bind the two classes in the module that defines ``case``, so its
    tests and their backend runs sit together::

        TestFooMySQL, TestFooPostgreSQL = backends.on_each_backend(TestFoo)
    """
    return tuple(
        type(case.__name__ + suffix, (OnBackend, case),
             {'BACKEND': backend, '__module__': case.__module__})
        for backend, suffix in BACKENDS)


def gabbi_fixtures_on(backend: str, *classes) -> types.SimpleNamespace:
    """A gabbi fixture module (for build_tests) whose fixtures are
    ``classes`` on ``backend``: same names, each taking a fresh database
    of that server where the class calls ``database_fixture()``."""
    return types.SimpleNamespace(**{
        cls.__name__: _gabbi_fixture_on(backend, cls) for cls in classes})


def _gabbi_fixture_on(backend: str, cls: type) -> type:
    def start_fixture(self):
        # Before anything starts: gabbi stops no fixture whose start
        # raised, and marks every test of the file skipped.
        reason = services.database_unavailable(backend)
        if reason:
            raise unittest.SkipTest(reason)
        cls.start_fixture(self)

    def database_fixture(self):
        """A fresh database of the backend, migrated to head."""
        return BackendDatabase(backend)

    return type(cls.__name__, (cls,), {
        'start_fixture': start_fixture, 'database_fixture': database_fixture,
        '__module__': cls.__module__})
