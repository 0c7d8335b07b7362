"""gabbi fixtures: configuration and a fresh database per YAML file."""

from gabbi import fixture

from blazar_ext.tests import fixtures


class PlacementFixture(fixture.GabbiFixture):
    """ConfFixture + DatabaseFixture; placement needs no RPC."""

    def start_fixture(self):
        self.conf = fixtures.ConfFixture()
        self.conf.setUp()
        self.db = fixtures.DatabaseFixture()
        self.db.setUp()

    def stop_fixture(self):
        self.db.cleanUp()
        self.conf.cleanUp()
