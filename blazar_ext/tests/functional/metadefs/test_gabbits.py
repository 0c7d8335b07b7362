"""Runs the gabbi YAML files in gabbits/ against the API in process.

Every YAML entry is one test (gabbi's build_tests), reported and runnable
by its id; the entries of one file run in order (.stestr.conf's
group_regex keeps them in one worker). Every file runs on SQLite
(``test_gabbits.<file>_<entry>``), then on a fresh MariaDB/MySQL database
(``test_gabbits_mysql.``) and a fresh PostgreSQL one
(``test_gabbits_postgresql.``), those skipped with the reason when their
server does not answer or BLAZAR_EXT_TEST_SQLITE_ONLY is set.
"""

import os

from gabbi import driver

from blazar_ext.tests.functional import backends
from blazar_ext.tests.functional.metadefs import gabbi_fixtures

TESTS_DIR = os.path.join(os.path.dirname(__file__), 'gabbits')


def load_tests(loader, tests, pattern):
    """unittest/stestr protocol: one test per YAML entry and database."""
    suite = driver.build_tests(TESTS_DIR, loader,
                               intercept=gabbi_fixtures.setup_app,
                               fixture_module=gabbi_fixtures,
                               test_loader_name=__name__)
    for backend, _ in backends.BACKENDS:
        suite.addTests(driver.build_tests(
            TESTS_DIR, loader, intercept=gabbi_fixtures.setup_app,
            fixture_module=gabbi_fixtures.on_backend(backend),
            test_loader_name='%s_%s' % (__name__, backend)))
    return suite
