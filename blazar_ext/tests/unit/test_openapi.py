"""The OpenAPI builder: documents, coverage and response checks."""

from openapi_spec_validator import validate
import testtools

from blazar_ext.api import openapi
from blazar_ext.api import routing

_THING = {'type': 'object', 'required': ['name'],
          'properties': {'name': {'type': 'string', 'maxLength': 10}},
          'additionalProperties': False}
_ERROR = {'type': 'object', 'required': ['message'],
          'properties': {'message': {'type': 'string'}}}
_OPERATIONS = {
    ('GET', '/things'): openapi.Operation(
        'List things.', {200: {'type': 'array', 'items': _THING}},
        query={'type': 'object', 'required': ['kind'],
               'properties': {'kind': {'type': 'string'}}}),
    ('POST', '/things'): openapi.Operation(
        'Create a thing.', {201: _THING}, request=_THING),
    ('GET', '/things/{thing_id}'): openapi.Operation(
        'Show a thing.', {200: _THING}),
    ('GET', '/things/special'): openapi.Operation(
        'The special thing.', {200: {'type': 'string'}}, public=True),
    ('DELETE', '/things/{thing_id}'): openapi.Operation(
        'Delete a thing.', {204: None}),
}


def _doc():
    return openapi.document('Things', '1.0', '/x', _OPERATIONS, _ERROR)


class TestDocument(testtools.TestCase):

    def test_paths_parameters_and_bodies(self):
        doc = _doc()
        self.assertEqual('3.1.0', doc['openapi'])
        listing = doc['paths']['/things']['get']
        self.assertEqual([{'name': 'kind', 'in': 'query', 'required': True,
                           'schema': {'type': 'string'}}],
                         listing['parameters'])
        create = doc['paths']['/things']['post']
        self.assertEqual(_THING, create['requestBody']['content'][
            openapi.JSON]['schema'])
        show = doc['paths']['/things/{thing_id}']['get']
        self.assertEqual('thing_id', show['parameters'][0]['name'])
        self.assertEqual({'$ref': '#/components/responses/Error'},
                         show['responses']['4XX'])
        self.assertEqual([], doc['paths']['/things/special']['get'][
            'security'])
        self.assertNotIn('content', doc['paths']['/things/{thing_id}'][
            'delete']['responses']['204'])

    def test_undocumented_routes_are_named(self):
        routes = [routing.Route('GET', '/things', None),
                  routing.Route('PUT', '/things/{thing_id}', None)]
        self.assertEqual([('PUT', '/things/{thing_id}')],
                         openapi.undocumented(routes, _OPERATIONS))


class TestResponseErrors(testtools.TestCase):

    def test_matching_body(self):
        self.assertEqual([], openapi.response_errors(
            _doc(), 'GET', '/things/abc', 200, {'name': 'a'}))

    def test_literal_segment_wins_over_a_variable(self):
        self.assertEqual([], openapi.response_errors(
            _doc(), 'GET', '/things/special', 200, 'text'))

    def test_drifted_body(self):
        errors = openapi.response_errors(
            _doc(), 'GET', '/things/abc', 200, {'name': 'a', 'extra': 1})
        self.assertEqual(1, len(errors))
        self.assertIn('GET /things/{thing_id} 200', errors[0])

    def test_error_shape(self):
        doc = _doc()
        self.assertEqual([], openapi.response_errors(
            doc, 'GET', '/things/abc', 404, {'message': 'no'}))
        self.assertEqual(1, len(openapi.response_errors(
            doc, 'GET', '/things/abc', 404, {'error': 'no'})))

    def test_unlisted_status_and_path(self):
        doc = _doc()
        self.assertIn('does not list', openapi.response_errors(
            doc, 'POST', '/things', 200, {})[0])
        self.assertIn('not in the document', openapi.response_errors(
            doc, 'GET', '/other', 200, {})[0])

    def test_no_body_response(self):
        self.assertEqual([], openapi.response_errors(
            _doc(), 'DELETE', '/things/abc', 204, None))


class TestValidity(testtools.TestCase):

    def test_document_is_valid_openapi(self):
        validate(_doc())


class TestMediaTypes(testtools.TestCase):
    """A body in another media type than JSON is one the document lists."""

    def test_an_unlisted_media_type_is_named(self):
        self.assertEqual(
            ['GET /things/{thing_id} 200: answered text/html, which the '
             'document does not list'],
            openapi.response_errors(_doc(), 'GET', '/things/1', 200, None,
                                    'text/html; charset=UTF-8'))

    def test_a_listed_one_passes_and_json_is_validated(self):
        doc = _doc()
        doc['components']['responses']['Error']['content'][
            'text/html'] = {'schema': {'type': 'string'}}
        self.assertEqual([], openapi.response_errors(
            doc, 'GET', '/things/1', 404, None, 'text/html'))
        self.assertEqual([], openapi.error_shape_errors(doc, None,
                                                        'text/html'))
        self.assertNotEqual([], openapi.response_errors(
            doc, 'GET', '/things/1', 200, {}, 'application/json'))
