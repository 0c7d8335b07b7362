"""gabbi fixtures: configuration and a fresh database per YAML file.

gabbi finds a YAML file's fixtures by name (``fixtures: [PlacementFixture]``)
in the fixture module given to build_tests. This module serves SQLite;
``on_backend`` gives an object with the same names serving a fresh
database of MariaDB/MySQL or PostgreSQL instead.
"""

import types
import unittest

from gabbi import fixture

from blazar_ext.db import session as db_session
from blazar_ext.tests import fixtures
from blazar_ext.tests.functional import backends
from blazar_ext.tests import summaries


class PlacementFixture(fixture.GabbiFixture):
    """ConfFixture + DatabaseFixture; placement needs no RPC."""

    def start_fixture(self):
        self.conf = fixtures.ConfFixture()
        self.conf.setUp()
        self.db = self.database_fixture()
        self.db.setUp()

    def database_fixture(self):
        """A fresh migrated SQLite database."""
        return fixtures.DatabaseFixture()

    def stop_fixture(self):
        self.db.cleanUp()
        self.conf.cleanUp()


def on_backend(backend: str) -> types.SimpleNamespace:
    """A fixture module for build_tests: PlacementFixture on ``backend``
    ('mysql' or 'postgresql'), skipping when its server does not answer."""
    return backends.gabbi_fixtures_on(backend, PlacementFixture)


def check_summaries_last(suite: unittest.TestSuite, loader,
                         test_loader_name: str) -> unittest.TestSuite:
    """``suite`` (build_tests') with one test more at the end of each
    file, inside its fixtures: every provider's summary, as the database
    triggers keep it, is what its rows make (tests.summaries).

    A test, not a check in stop_fixture: gabbi reports a fixture's error
    on no test a runner counts, and stestr would pass the run.
    """
    for file_suite in suite:
        tests = list(file_suite)
        if not tests:
            continue
        name = '%s_summaries_kept_by_triggers' % tests[0].test_base_name
        check = type(name, (unittest.TestCase,), {
            'test_request': _summaries_kept, '__module__': test_loader_name})
        file_suite.addTests(loader.loadTestsFromTestCase(check))
    return suite


def _summaries_kept(self):
    summaries.assert_kept(db_session.get_engine())
