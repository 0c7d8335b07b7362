"""tools/check_tests.py: tests without an assertion and 4xx gabbi entries
without a reason, found in a small tree of its own (CI runs it on ours)."""

import io
import os
import textwrap

import fixtures
from oslotest import base

from blazar_ext.tests import fixtures as blazar_fixtures

check_tests = blazar_fixtures.tool_module('check_tests')

HELPERS = '''
def module_helper(case):
    case.assertTrue(True)


class Base:
    def check(self, value):
        self.assertEqual(1, value)

    def check_twice(self, value):
        self.check(value)
        self.check(value)
'''

TESTS = '''
import unittest

from blazar_ext.tests import helpers
from blazar_ext.tests.helpers import module_helper


class T(helpers.Base, unittest.TestCase):
    def test_direct(self):
        self.assertEqual(1, 1)

    def test_context_manager(self):
        with self.assertRaises(ValueError):
            int('x')

    def test_fail(self):
        if False:
            self.fail('never')

    def test_bare_assert(self):
        assert True

    def test_raise_failure(self):
        raise self.failureException('x')

    def test_mock_assert(self):
        m = object()
        m.assert_called_once_with()

    def test_helper_transitively(self):
        self.check_twice(1)

    def test_module_function(self):
        helpers.module_helper(self)

    def test_imported_function(self):
        module_helper(self)

    def test_nested_worker(self):
        def worker():
            self.assertTrue(True)
        worker()

    def test_nothing(self):
        int('1')

    def test_call_on_another_object_is_not_a_check(self):
        self.api.check(1)

    def test_unknown_helper(self):
        self.not_a_helper()

    def helper_not_a_test(self):
        pass
'''

GABBI = '''
tests:
- name: ok is not an error
  GET: /
- name: status only
  GET: /x
  status: 404
- name: status and title only
  GET: /x
  status: 400
  response_json_paths:
    $.errors[0].status: 400
    $.errors[0].title: Bad Request
- name: with code
  GET: /x
  status: 409
  response_json_paths:
    $.errors[0].code: placement.concurrent_update
- name: with a message
  GET: /x
  status: 400 || 404
  response_strings:
    - not found
- name: several statuses without a reason
  GET: /x
  status: 200 || 403
'''


class CheckTestsTest(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.root = self.useFixture(fixtures.TempDir()).path
        tests = os.path.join(self.root, 'blazar_ext', 'tests')
        os.makedirs(os.path.join(tests, 'functional', 'gabbits'))
        for name, text in (('helpers.py', HELPERS), ('test_x.py', TESTS),
                           (os.path.join('functional', 'gabbits', 'a.yaml'),
                            GABBI)):
            with open(os.path.join(tests, name), 'w') as out:
                out.write(textwrap.dedent(text))
        self.exceptions = os.path.join(self.root, 'exceptions.txt')

    def _main(self, exceptions: str = '') -> tuple[int, list[str]]:
        with open(self.exceptions, 'w') as out:
            out.write(exceptions)
        out = io.StringIO()
        code = check_tests.main(['--root', self.root, '--exceptions',
                                 self.exceptions], out=out)
        return code, out.getvalue().splitlines()

    def test_python_findings(self):
        self.assertEqual(
            ['blazar_ext/tests/test_x.py::'
             'T.test_call_on_another_object_is_not_a_check',
             'blazar_ext/tests/test_x.py::T.test_nothing',
             'blazar_ext/tests/test_x.py::T.test_unknown_helper'],
            check_tests.python_findings(self.root))

    def test_gabbi_findings(self):
        path = 'blazar_ext/tests/functional/gabbits/a.yaml'
        self.assertEqual(
            [path + '::several statuses without a reason',
             path + '::status and title only',
             path + '::status only'],
            check_tests.gabbi_findings(self.root))

    def test_every_finding_fails_the_check(self):
        code, lines = self._main()
        self.assertEqual(1, code)
        self.assertEqual('6 finding(s), 0 accepted with a reason, '
                         '6 error(s)', lines[-1])
        self.assertIn('blazar_ext/tests/test_x.py::T.test_nothing: '
                      'test method asserts nothing', lines)

    def test_exceptions_need_a_reason_and_a_finding(self):
        gabbi = 'blazar_ext/tests/functional/gabbits/a.yaml::'
        code, lines = self._main(
            '# comment\n'
            'blazar_ext/tests/test_x.py::T.test_nothing # it may not raise\n'
            'blazar_ext/tests/test_x.py::T.test_unknown_helper\n'
            'blazar_ext/tests/test_x.py::T.test_gone # was fixed\n'
            'blazar_ext/tests/test_x.py::'
            'T.test_call_on_another_object_is_not_a_check # x\n'
            + gabbi + 'status only # a\n'
            + gabbi + 'status and title only # b\n'
            + gabbi + 'several statuses without a reason # c\n')
        self.assertEqual(1, code)
        self.assertEqual(
            [self.exceptions + ':3: exception without a reason: '
             'blazar_ext/tests/test_x.py::T.test_unknown_helper',
             'blazar_ext/tests/test_x.py::T.test_gone: listed as an '
             'exception but no longer found',
             '6 finding(s), 6 accepted with a reason, 2 error(s)'],
            lines)

    def test_all_accepted_passes(self):
        gabbi = 'blazar_ext/tests/functional/gabbits/a.yaml::'
        code, lines = self._main(
            'blazar_ext/tests/test_x.py::T.test_nothing # a\n'
            'blazar_ext/tests/test_x.py::T.test_unknown_helper # b\n'
            'blazar_ext/tests/test_x.py::'
            'T.test_call_on_another_object_is_not_a_check # c\n'
            + gabbi + 'status only # d\n'
            + gabbi + 'status and title only # e\n'
            + gabbi + 'several statuses without a reason # f\n')
        self.assertEqual(0, code)
        self.assertEqual(['6 finding(s), 6 accepted with a reason, '
                          '0 error(s)'], lines)
