"""gabbi fixtures for the metadefs API: configuration and a fresh migrated
SQLite database per YAML file (metadefs needs no RPC); ``on_backend``
gives the same fixture names on MariaDB/MySQL or PostgreSQL. Every
response is checked against the family's OpenAPI document
(tests/conformance.py), as the in-process client checks its own."""

from collections.abc import Callable
import types

from gabbi import fixture
import webob

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
        return conforming(_APP)(environ, start_response)
    return app


def conforming(app: Callable) -> Callable:
    """``app``, failing with the schema's complaints on a response that
    does not match its family's OpenAPI document."""
    def checked(environ, start_response):
        req = webob.Request(environ)
        # Before the dispatchers move the prefix into SCRIPT_NAME.
        method, path = req.method, req.path_info
        if path.startswith('/v2/') and path.endswith('/'):
            # The metadefs router ignores one trailing slash, as Glance.
            path = path[:-1]
        resp = req.get_response(app)
        found = conformance.problems(
            conformance.ALL_IN_ONE, method, path, resp.status_int,
            resp.content_type, resp.body)
        if found:
            raise AssertionError('The response does not match the OpenAPI '
                                 'document:\n' + '\n'.join(found))
        return resp(environ, start_response)
    return checked


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
