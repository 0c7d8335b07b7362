"""gabbi fixtures for the metadefs API: configuration and a fresh migrated
SQLite database per YAML file (metadefs needs no RPC); ``on_backend``
gives the same fixture names on MariaDB/MySQL or PostgreSQL. Every
response is checked against the family's OpenAPI document
(tests/conformance.py), as the in-process client checks its own."""

import types

from gabbi import fixture

from blazar_ext.api import app as api_app
from blazar_ext.tests import conformance
from blazar_ext.tests import fixtures as blazar_fixtures
from blazar_ext.tests.functional import backends

_APP = None


def setup_app():
    """The WSGI app for gabbi.

    gabbi asks for the app when it builds the tests, before any fixture
    has started, so this hands out a proxy to the app the fixture builds.
    """
    def app(environ, start_response):
        return conformance.ConformanceMiddleware(
            _APP, conformance.ALL_IN_ONE)(environ, start_response)
    return app


class MetadefsFixture(fixture.GabbiFixture):
    """ConfFixture + DatabaseFixture around every test of one YAML file."""

    def start_fixture(self):
        global _APP
        self.fixtures = []
        for fix in (blazar_fixtures.ConfFixture(), self.database_fixture()):
            fix.setUp()
            self.fixtures.append(fix)
        _APP = api_app.build(blazar_fixtures.CONF)

    def database_fixture(self):
        """A fresh migrated SQLite database."""
        return blazar_fixtures.DatabaseFixture()

    def stop_fixture(self):
        global _APP
        _APP = None
        for fix in reversed(self.fixtures):
            fix.cleanUp()


def on_backend(backend: str) -> types.SimpleNamespace:
    """A fixture module for build_tests: MetadefsFixture on ``backend``
    ('mysql' or 'postgresql'), skipping when its server does not answer."""
    return backends.gabbi_fixtures_on(backend, MetadefsFixture)
