"""Placement API tests as gabbi YAML files, one per resource.

Each YAML file in gabbits/ becomes one test method that runs its requests
in order, in-process through wsgi-intercept, against a fresh database.
"""

import os
import unittest

from gabbi import handlers
from gabbi import suitemaker
from gabbi import utils
from oslo_utils import uuidutils
import testtools

from blazar_ext.api import app as api_app
from blazar_ext import conf
from blazar_ext.tests.functional.placement import gabbi_fixtures

GABBITS = os.path.join(os.path.dirname(__file__), 'gabbits')


def _app():
    """Build the app on first request, after the fixtures have started."""
    built = []

    def app(environ, start_response):
        if not built:
            built.append(api_app.build(conf.CONF))
        return built[0](environ, start_response)
    return app


def _run_yaml(self, name: str) -> None:
    path = os.path.join(GABBITS, name)
    suite_dict = utils.load_yaml(yaml_file=path)
    loader = unittest.TestLoader()
    suite = suitemaker.test_suite_from_dict(
        loader, name[:-5], suite_dict, GABBITS,
        uuidutils.generate_uuid(), 8001,
        gabbi_fixtures, _app, test_loader_name=__name__,
        handlers=[h() for h in handlers.RESPONSE_HANDLERS])
    result = unittest.TestResult()
    suite.run(result)
    problems = result.failures + result.errors
    if problems:
        self.fail('\n\n'.join('%s\n%s' % (test.id(), trace)
                              for test, trace in problems))
    self.assertGreater(result.testsRun, 0)


class TestPlacementAPI(testtools.TestCase):
    """One test per gabbits/*.yaml."""


for _name in sorted(os.listdir(GABBITS)):
    if _name.endswith('.yaml'):
        def _test(self, _name=_name):
            _run_yaml(self, _name)
        setattr(TestPlacementAPI, 'test_' + _name[:-5], _test)
