"""Base test cases."""

import fixtures
from oslotest import base

from blazar_ext.tests import fixtures as blazar_fixtures


class TestCase(base.BaseTestCase):
    """Configuration only; no database, no RPC."""

    def setUp(self):
        super().setUp()
        self.conf = self.useFixture(blazar_fixtures.ConfFixture()).conf


class DBTestCase(TestCase):
    """With a fresh migrated database: SQLite, unless a mix-in such as
    tests.functional.backends.OnBackend gives another."""

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(self.database_fixture())

    def database_fixture(self) -> fixtures.Fixture:
        """The database fixture; it has ``url`` and ``engine``."""
        return blazar_fixtures.DatabaseFixture()


class APITestCase(DBTestCase):
    """The whole service in process: API, manager over fake://, SQLite."""

    def setUp(self):
        super().setUp()
        self.manager = self.useFixture(blazar_fixtures.ManagerFixture())
        self.api = self.useFixture(blazar_fixtures.APIFixture())

    def request(self, *args, **kwargs):
        return self.api.request(*args, **kwargs)
