"""Runs the gabbi YAML files in gabbits/ against the API in process.

Under stestr (unittest's load_tests protocol) every YAML entry is a test.
pytest ignores load_tests, so for it each YAML file is one test case that
runs the file's entries in order and reports every failure.
"""

import glob
import os
import unittest
import uuid

from gabbi import driver
from gabbi import handlers
from gabbi import suitemaker
from gabbi import utils
import testtools

from blazar_ext.tests.functional.metadefs import gabbi_fixtures

TESTS_DIR = os.path.join(os.path.dirname(__file__), 'gabbits')


def load_tests(loader, tests, pattern):
    """unittest/stestr protocol: one test per YAML entry."""
    return driver.build_tests(TESTS_DIR, loader,
                              intercept=gabbi_fixtures.setup_app,
                              fixture_module=gabbi_fixtures,
                              test_loader_name=__name__)


def _file_suite(path: str) -> unittest.TestSuite:
    name = os.path.splitext(os.path.basename(path))[0]
    return suitemaker.test_suite_from_dict(
        unittest.TestLoader(), name, utils.load_yaml(yaml_file=path),
        TESTS_DIR, str(uuid.uuid4()), None, gabbi_fixtures,
        gabbi_fixtures.setup_app, test_loader_name=__name__,
        handlers=[h() for h in handlers.RESPONSE_HANDLERS])


class TestGabbiFiles(testtools.TestCase):
    """One test per YAML file, for pytest."""


def _make_test(path: str):
    def test(self):
        result = unittest.TestResult()
        _file_suite(path).run(result)
        problems = ['%s\n%s' % (case.id(), text)
                    for case, text in result.failures + result.errors]
        self.assertEqual([], problems, '\n\n'.join(problems))
        self.assertGreater(result.testsRun, 0)
    return test


for _path in sorted(glob.glob(os.path.join(TESTS_DIR, '*.yaml'))):
    _name = 'test_' + os.path.splitext(
        os.path.basename(_path))[0].replace('-', '_')
    setattr(TestGabbiFiles, _name, _make_test(_path))
