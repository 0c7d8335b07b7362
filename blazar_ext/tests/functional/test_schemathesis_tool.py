"""tools/schemathesis/run.py: schemathesis against a real all-in-one.

A small placement document built here (resource classes and traits)
stands in for the family's served one, so the harness's verdicts are
known: the accurate document passes with every operation covered, and a
document that misdescribes a response and the error shape fails on both,
with a non-zero exit.
"""

import json
import os
import subprocess
import sys

import fixtures
import testtools

from blazar_ext.api import openapi
from blazar_ext.api.placement.schemas import resource_class
from blazar_ext.tests import base
from blazar_ext.tests import fixtures as blazar_fixtures

RUN = os.path.join(blazar_fixtures.TOOLS, 'schemathesis', 'run.py')
ERROR = {'type': 'object', 'required': ['errors'], 'properties': {
    'errors': {'type': 'array', 'items': {
        'type': 'object', 'required': ['status', 'title', 'detail'],
        'properties': {'status': {'type': 'integer'},
                       'title': {'type': 'string'},
                       'detail': {'type': 'string'}}}}}}


def _skip_without_schemathesis(test: testtools.TestCase) -> None:
    try:
        import schemathesis  # noqa: F401
    except ImportError:
        test.skipTest('schemathesis is not installed (tox -e schemathesis '
                      'has it)')


def _operations(class_required: list) -> dict:
    one = {'type': 'object', 'required': class_required,
           'properties': {'name': {'type': 'string'},
                          'links': {'type': 'array'}}}
    return {
        ('GET', '/resource_classes'): openapi.Operation('List.', {200: {
            'type': 'object', 'required': ['resource_classes'],
            'properties': {'resource_classes': {
                'type': 'array', 'items': one}}}}),
        ('POST', '/resource_classes'): openapi.Operation(
            'Create.', {201: None}, request=resource_class.POST),
        ('GET', '/resource_classes/{name}'): openapi.Operation(
            'Show.', {200: one}),
        ('GET', '/traits'): openapi.Operation('List traits.', {200: {
            'type': 'object', 'required': ['traits'],
            'properties': {'traits': {'type': 'array',
                                      'items': {'type': 'string'}}}}}),
    }


class TestSchemathesisRun(base.TestCase):

    def setUp(self):
        super().setUp()
        _skip_without_schemathesis(self)
        self.workdir = self.useFixture(fixtures.TempDir()).path

    def _run(self, operations: dict, error: dict) -> tuple:
        path = os.path.join(self.workdir, 'placement.json')
        with open(path, 'w') as out:
            json.dump(openapi.document('Placement', '1.39', '/placement',
                                       operations, error), out)
        result = subprocess.run(
            [sys.executable, RUN, '--family', 'placement',
             '--document', 'placement=%s' % path, '--seed', '1',
             '--max-examples', '5', '--time-limit', '30',
             '--phases', 'coverage,fuzzing', '--seeded', '0'],
            capture_output=True, text=True, timeout=300)
        return result.returncode, result.stdout + result.stderr

    def test_an_accurate_document_passes(self):
        status, output = self._run(_operations(['name', 'links']), ERROR)
        self.assertEqual(0, status, output[-3000:])
        self.assertIn('placement  operations covered   4/4', output)
        self.assertRegex(output, r'total .* failures 0')

    def test_a_wrong_document_fails(self):
        wrong_error = {'type': 'object', 'required': ['message']}
        status, output = self._run(_operations(['name', 'bogus']),
                                   wrong_error)
        self.assertEqual(1, status, output[-3000:])
        self.assertIn('FAIL GET /resource_classes/{name}: '
                      'response_schema_conformance', output)
        self.assertIn(': family_error_shape:', output)


class TestErrorShapeHook(testtools.TestCase):

    def setUp(self):
        super().setUp()
        _skip_without_schemathesis(self)
        self.hooks = blazar_fixtures.tool_module(
            'schemathesis/blazar_ext_st_hooks')
        self.doc = openapi.document('P', '1', '/p', {}, ERROR)

    def test_a_4xx_in_the_error_shape_passes(self):
        body = json.dumps({'errors': [{'status': 404, 'title': 'Not Found',
                                       'detail': 'No such thing.'}]})
        self.assertEqual([], self.hooks.error_shape_problems(
            self.doc, 404, 'application/json', body.encode()))

    def test_a_4xx_off_the_shape_fails(self):
        self.assertTrue(self.hooks.error_shape_problems(
            self.doc, 400, 'application/json', b'{"message": "bad"}'))
        self.assertEqual(["405 with content type 'text/html', not JSON"],
                         self.hooks.error_shape_problems(
                             self.doc, 405, 'text/html', b'<p>no</p>'))

    def test_other_statuses_are_not_checked(self):
        self.assertEqual([], self.hooks.error_shape_problems(
            self.doc, 200, 'text/html', b'<p>fine</p>'))
