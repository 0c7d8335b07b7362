"""The metadefs family's OpenAPI document: valid, complete, served without
a token, and as strict as the code (what the conformance check of every
functional test's responses relies on)."""

import json

import openapi_spec_validator
import testtools
import webob

from blazar_ext.api.metadefs import app as metadefs_app
from blazar_ext.api.metadefs import namespaces
from blazar_ext.api.metadefs import objects
from blazar_ext.api.metadefs import openapi as metadefs_openapi
from blazar_ext.api.metadefs import properties
from blazar_ext.api.metadefs import schemas
from blazar_ext.api.metadefs import tags
from blazar_ext.api.middleware import auth
from blazar_ext.api import openapi
from blazar_ext.api import routing
from blazar_ext.tests import base
from blazar_ext.tests import conformance
from blazar_ext.tests.functional.metadefs import gabbi_fixtures

NS = '/metadefs/namespaces/{namespace}'


def _problems(method: str, path: str, status: int, body) -> list:
    return conformance.problems(
        conformance.ALL_IN_ONE, method, '/v2' + path, status,
        'application/json', json.dumps(body).encode())


class TestDocument(testtools.TestCase):

    def test_document_is_valid_openapi(self):
        doc = metadefs_openapi.document()
        # Raises on an invalid document.
        self.assertIsNone(openapi_spec_validator.validate(doc))
        self.assertEqual('3.1.0', doc['openapi'])

    def test_every_route_has_an_operation_with_a_response(self):
        routes = metadefs_app.build().routes
        self.assertEqual([], openapi.undocumented(
            routes, metadefs_openapi.OPERATIONS))
        self.assertEqual(31, len(routes))

    def test_a_new_route_without_a_response_schema_is_reported(self):
        routes = metadefs_app.build().routes + [
            routing.Route('GET', '/metadefs/new', lambda req: None)]
        self.assertEqual([('GET', '/metadefs/new')], openapi.undocumented(
            routes, metadefs_openapi.OPERATIONS))

    def test_no_operation_without_a_route(self):
        served = {(r.method, r.pattern) for r in metadefs_app.build().routes}
        self.assertEqual(set(), set(metadefs_openapi.OPERATIONS) - served)

    def test_request_schemas_are_those_the_handlers_validate_with(self):
        ops = metadefs_openapi.OPERATIONS
        for key, schema in (
                (('POST', '/metadefs/namespaces'), schemas.NAMESPACE),
                (('PUT', NS), schemas.NAMESPACE),
                (('POST', NS + '/objects'), schemas.OBJECT),
                (('PUT', NS + '/objects/{name}'), schemas.OBJECT),
                (('POST', NS + '/properties'), schemas.PROPERTY),
                (('PUT', NS + '/properties/{name}'), schemas.PROPERTY),
                (('POST', NS + '/tags'), schemas.TAGS_REQUEST),
                (('PUT', NS + '/tags'), schemas.TAGS_REQUEST),
                (('PUT', NS + '/tags/{name}'), schemas.TAG),
                (('POST', NS + '/resource_types'), schemas.RESOURCE_TYPE)):
            self.assertIs(schema, ops[key].request, key)

    def test_query_schemas_are_those_the_handlers_validate_with(self):
        ops = metadefs_openapi.OPERATIONS
        self.assertIs(schemas.NAMESPACES_QUERY,
                      ops[('GET', '/metadefs/namespaces')].query)
        self.assertIs(schemas.RESOURCE_TYPE_QUERY, ops[('GET', NS)].query)
        self.assertIs(schemas.RESOURCE_TYPE_QUERY,
                      ops[('GET', NS + '/properties/{name}')].query)
        self.assertIs(schemas.TAGS_QUERY, ops[('GET', NS + '/tags')].query)
        self.assertIs(schemas.OBJECTS_QUERY,
                      ops[('GET', NS + '/objects')].query)
        # And the handlers read those very objects.
        for module, name in ((namespaces, 'NAMESPACES_QUERY'),
                             (namespaces, 'RESOURCE_TYPE_QUERY'),
                             (properties, 'RESOURCE_TYPE_QUERY'),
                             (tags, 'TAGS_QUERY'),
                             (objects, 'OBJECTS_QUERY')):
            with open(module.__file__, encoding='utf-8') as f:
                self.assertIn('schemas.' + name, f.read(), module.__name__)

    def test_tag_name_in_a_path_and_the_append_header(self):
        paths = metadefs_openapi.document()['paths']
        made = {p['name']: p for p in
                paths[NS + '/tags/{name}']['post']['parameters']}
        self.assertEqual(schemas.TAG['properties']['name'],
                         made['name']['schema'])
        for method in ('post', 'put'):
            self.assertIn('X-Openstack-Append', [
                p['name'] for p in paths[NS + '/tags'][method]['parameters']
                if p['in'] == 'header'])

    def test_catalog_definitions_are_components(self):
        doc = metadefs_openapi.document()
        text = json.dumps(doc)
        self.assertNotIn('#/definitions/', text)
        self.assertEqual(schemas.DEFINITIONS['stringArray'],
                         doc['components']['schemas']['stringArray'])

    def test_only_the_document_itself_is_public(self):
        doc = metadefs_openapi.document()
        public = [(path, method) for path, item in doc['paths'].items()
                  for method, op in item.items() if op.get('security') == []]
        self.assertEqual([('/metadefs/openapi.json', 'get')], public)
        self.assertEqual([{'url': '/v2'}], doc['servers'])


class TestStrictness(testtools.TestCase):
    """The response schemas refuse what the code never answers."""

    TAG = {'name': 'gpu', 'created_at': '2026-01-01T00:00:00Z',
           'updated_at': '2026-01-01T00:00:00Z'}
    PROPERTY = {'name': 'cpu_arch', 'title': 'CPU', 'type': 'string',
                'operators': ['<or>'], 'default': 'x86_64'}

    def test_tag_listing(self):
        self.assertEqual([], _problems('GET', '/metadefs/namespaces/n/tags',
                                       200, {'tags': [self.TAG]}))
        bare = {'tags': [{'name': 'gpu'}]}
        self.assertNotEqual([], _problems(
            'GET', '/metadefs/namespaces/n/tags', 200, bare))

    def test_property_with_operators_and_a_text_default(self):
        path = '/metadefs/namespaces/n/properties/cpu_arch'
        self.assertEqual([], _problems('GET', path, 200, self.PROPERTY))
        self.assertNotEqual([], _problems(
            'GET', path, 200, dict(self.PROPERTY, default=4)))
        self.assertNotEqual([], _problems(
            'GET', path, 200, dict(self.PROPERTY, operators='<or>')))
        self.assertNotEqual([], _problems(
            'GET', path, 200, dict(self.PROPERTY, unknown=1)))

    def test_error_shape(self):
        error = {'error': {'code': 404, 'title': 'Not Found',
                           'message': 'No namespace n.'}}
        path = '/metadefs/namespaces/n'
        self.assertEqual([], _problems('GET', path, 404, error))
        self.assertNotEqual([], _problems('GET', path, 404,
                                          {'message': 'No namespace n.'}))

    def test_an_undocumented_status_is_reported(self):
        self.assertNotEqual([], _problems(
            'DELETE', '/metadefs/namespaces/n', 200, {}))


def _answering(status: int, body) -> callable:
    def app(environ, start_response):
        return webob.Response(status=status, json_body=body)(
            environ, start_response)
    return app


class TestGabbiConformance(testtools.TestCase):
    """gabbi_fixtures.conforming: the gabbi files' responses are checked."""

    def _get(self, app, path: str) -> webob.Response:
        return webob.Request.blank(path).get_response(
            gabbi_fixtures.conforming(app))

    def test_a_conforming_response_passes(self):
        resp = self._get(_answering(200, {'tags': []}),
                         '/v2/metadefs/namespaces/n/tags')
        self.assertEqual(200, resp.status_int)

    def test_a_drifting_response_fails(self):
        self.assertRaises(AssertionError, self._get,
                          _answering(200, {'tags': [{'name': 'a'}]}),
                          '/v2/metadefs/namespaces/n/tags')

    def test_a_trailing_slash_is_checked_as_the_router_reads_it(self):
        self.assertRaises(AssertionError, self._get,
                          _answering(200, {'tags': [{'name': 'a'}]}),
                          '/v2/metadefs/namespaces/n/tags/')
        resp = self._get(_answering(200, {'tags': []}),
                         '/v2/metadefs/namespaces/n/tags/')
        self.assertEqual(200, resp.status_int)


class TestServed(base.APITestCase):

    def test_served_without_a_token(self):
        resp = self.request('GET', '/v2/metadefs/openapi.json', token=None)
        self.assertEqual(200, resp.status, resp.text)
        self.assertTrue(resp.headers['Content-Type'].startswith(
            'application/json'))
        self.assertEqual(json.loads(json.dumps(
            metadefs_openapi.document())), resp.json())

    def test_public_whatever_the_auth_strategy(self):
        """Keystone's middleware is only ever the authenticated branch."""
        skip = auth.SkipAuthForVersions(_answering(200, {}),
                                        _answering(401, {}))
        for path, status in (('/v2/metadefs/openapi.json', 200),
                             ('/v2/metadefs/namespaces', 401)):
            resp = webob.Request.blank(path).get_response(skip)
            self.assertEqual(status, resp.status_int, path)

    def test_other_routes_still_need_a_token(self):
        resp = self.request('GET', '/v2/metadefs/namespaces', token=None)
        self.assertEqual(401, resp.status, resp.text)

    def test_head_without_a_token(self):
        resp = self.request('HEAD', '/v2/metadefs/openapi.json', token=None)
        self.assertEqual(200, resp.status, resp.text)

    def test_only_get(self):
        resp = self.request('POST', '/v2/metadefs/openapi.json', {},
                            token=None)
        self.assertEqual(405, resp.status, resp.text)
        self.assertEqual('GET', resp.headers['Allow'])


class TestQueryStrings(base.APITestCase):
    """Query strings the document states are checked as it states them."""

    def setUp(self):
        super().setUp()
        resp = self.request('POST', '/v2/metadefs/namespaces', {
            'namespace': 'ns', 'properties': {
                'p': {'title': 'P', 'type': 'string'}}})
        self.assertEqual(201, resp.status, resp.text)

    def test_resource_type_given_twice_is_400_on_a_namespace(self):
        resp = self.request(
            'GET', '/v2/metadefs/namespaces/ns?resource_type=a'
                   '&resource_type=b')
        self.assertEqual(400, resp.status, resp.text)
        self.assertIn('resource_type', resp.text)

    def test_resource_type_given_twice_is_400_on_a_property(self):
        resp = self.request(
            'GET', '/v2/metadefs/namespaces/ns/properties/p?resource_type=a'
                   '&resource_type=b')
        self.assertEqual(400, resp.status, resp.text)
        self.assertIn('resource_type', resp.text)

    def test_one_resource_type_still_reads(self):
        resp = self.request('GET', '/v2/metadefs/namespaces/ns'
                                   '?resource_type=OS::Nova::Flavor')
        self.assertEqual(200, resp.status, resp.text)

    def test_listing_limits_as_the_document_states(self):
        base_path = '/v2/metadefs/namespaces/ns/'
        for path, status in (('tags?limit=0', 200), ('tags?limit=-1', 400),
                             ('objects?limit=1', 200),
                             ('objects?limit=0', 400),
                             ('tags?sort_key=name', 200),
                             ('objects?sort_key=namespace', 400),
                             ('tags?sort_dir=up', 400)):
            resp = self.request('GET', base_path + path)
            self.assertEqual(status, resp.status, '%s: %s'
                             % (path, resp.text))
