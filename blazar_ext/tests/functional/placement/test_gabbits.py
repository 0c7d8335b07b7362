"""Placement API tests as gabbi YAML files, one per resource.

Every entry of each YAML file in gabbits/ is one test (gabbi's
build_tests), reported and runnable by its id; the entries of one file run
in order, in-process through wsgi-intercept, against a fresh database
(.stestr.conf's group_regex keeps a file's entries in one worker).
gabbits_root/ runs the same way against the placement family served
alone at the root, as blazar-ext-placement-api serves it.

Every file runs on SQLite (test ids ``test_gabbits.<file>_<entry>``), then
on a fresh MariaDB/MySQL database (``test_gabbits_mysql.``) and on a fresh
PostgreSQL database (``test_gabbits_postgresql.``); those two skip, with
the reason, when their server does not answer (tools/test-setup.sh) or
BLAZAR_EXT_TEST_SQLITE_ONLY is set.
"""

import os

from gabbi import driver

from blazar_ext.api import app as api_app
from blazar_ext import conf
from blazar_ext.tests import conformance
from blazar_ext.tests.functional import backends
from blazar_ext.tests.functional.placement import gabbi_fixtures

GABBITS = os.path.join(os.path.dirname(__file__), 'gabbits')
# Placement alone at the root (blazar-ext-placement-api).
GABBITS_ROOT = os.path.join(os.path.dirname(__file__), 'gabbits_root')


def _intercept(build, families):
    """An intercept building the app on first request, after the
    fixtures have started; every response is checked against the
    family's OpenAPI document (tests.conformance)."""
    def factory():
        built = []

        def app(environ, start_response):
            if not built:
                built.append(conformance.ConformanceMiddleware(
                    build(conf.CONF), families))
            return built[0](environ, start_response)
        return app
    return factory


def _build(loader, fixture_module, test_loader_name):
    """Every file of gabbits/ and gabbits_root/ with these fixtures."""
    suite = driver.build_tests(
        GABBITS, loader, intercept=_intercept(
            api_app.build, conformance.ALL_IN_ONE),
        fixture_module=fixture_module, test_loader_name=test_loader_name)
    suite.addTests(driver.build_tests(
        GABBITS_ROOT, loader, intercept=_intercept(
            api_app.build_placement, conformance.PLACEMENT_ALONE),
        fixture_module=fixture_module, test_loader_name=test_loader_name))
    return gabbi_fixtures.check_summaries_last(suite, loader,
                                               test_loader_name)


def load_tests(loader, tests, pattern):
    """unittest/stestr protocol: one test per YAML entry and database."""
    suite = _build(loader, gabbi_fixtures, __name__)
    for backend, _ in backends.BACKENDS:
        suite.addTests(_build(loader, gabbi_fixtures.on_backend(backend),
                              '%s_%s' % (__name__, backend)))
    return suite
