"""gabbi fixtures: configuration and a fresh database per YAML file.

gabbi finds a YAML file's fixtures by name (``fixtures: [PlacementFixture]``)
in the fixture module given to build_tests. This module serves SQLite;
``on_backend`` gives an object with the same names serving a fresh
database of MariaDB/MySQL or PostgreSQL instead.
"""

import types

from gabbi import fixture

from blazar_ext.tests import fixtures
from blazar_ext.tests.functional import backends


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
