"""Runs the gabbi YAML files in gabbits/ against the API in process.

Every YAML entry is one test (gabbi's build_tests), reported and runnable
by its id; the entries of one file run in order (.stestr.conf's
group_regex keeps them in one worker).
"""

import os

from gabbi import driver

from blazar_ext.tests.functional.metadefs import gabbi_fixtures

TESTS_DIR = os.path.join(os.path.dirname(__file__), 'gabbits')


def load_tests(loader, tests, pattern):
    """unittest/stestr protocol: one test per YAML entry."""
    return driver.build_tests(TESTS_DIR, loader,
                              intercept=gabbi_fixtures.setup_app,
                              fixture_module=gabbi_fixtures,
                              test_loader_name=__name__)
