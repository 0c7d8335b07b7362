"""gabbi fixtures for the metadefs API: configuration and a fresh migrated
SQLite database per YAML file (metadefs needs no RPC)."""

from gabbi import fixture

from blazar_ext.api import app as api_app
from blazar_ext.tests import fixtures as blazar_fixtures

_APP = None


def setup_app():
    """The WSGI app for gabbi.

    gabbi asks for the app when it builds the tests, before any fixture
    has started, so this hands out a proxy to the app the fixture builds.
    """
    def app(environ, start_response):
        return _APP(environ, start_response)
    return app


class MetadefsFixture(fixture.GabbiFixture):
    """ConfFixture + DatabaseFixture around every test of one YAML file."""

    def start_fixture(self):
        global _APP
        self.fixtures = []
        for cls in (blazar_fixtures.ConfFixture,
                    blazar_fixtures.DatabaseFixture):
            fix = cls()
            fix.setUp()
            self.fixtures.append(fix)
        _APP = api_app.build(blazar_fixtures.CONF)

    def stop_fixture(self):
        global _APP
        _APP = None
        for fix in reversed(self.fixtures):
            fix.cleanUp()
