"""The placement family's OpenAPI document: valid, complete, served
without a token, and built from the schemas the handlers validate
with."""

from openapi_spec_validator import validate

from blazar_ext.api import app as api_app
from blazar_ext.api import openapi
from blazar_ext.api.placement import openapi as placement_openapi
from blazar_ext.api.placement import router
from blazar_ext.api.placement.schemas import allocation
from blazar_ext.api.placement.schemas import inventory
from blazar_ext.api.placement.schemas import query
from blazar_ext.api import routing
from blazar_ext.tests import base
from blazar_ext.tests import conformance
from blazar_ext.tests import fixtures as blazar_fixtures

OPERATIONS = placement_openapi.OPERATIONS


class TestDocument(base.TestCase):

    def test_the_document_is_valid_openapi_3_1(self):
        doc = placement_openapi.document()
        validate(doc)
        self.assertEqual('3.1.0', doc['openapi'])
        self.assertEqual([{'url': '/placement'}], doc['servers'])

    def test_every_route_has_a_response_schema(self):
        self.assertEqual([], openapi.undocumented(
            routing.table(router.ROUTES), OPERATIONS))

    def test_a_new_route_without_one_is_named(self):
        routes = routing.table(dict(router.ROUTES, **{
            '/widgets': {'GET': lambda req: None}}))
        self.assertEqual([('GET', '/widgets')],
                         openapi.undocumented(routes, OPERATIONS))

    def test_request_schemas_are_the_handlers_own(self):
        self.assertIs(inventory.PUT_ALL, OPERATIONS[
            'PUT', '/resource_providers/{uuid}/inventories'].request)
        self.assertIs(allocation.PUT_1_38, OPERATIONS[
            'PUT', '/allocations/{consumer_uuid}'].request['anyOf'][-1])
        self.assertIs(query.RESOURCE_PROVIDERS_QUERY['1.18'], OPERATIONS[
            'GET', '/resource_providers'].query)

    def test_request_groups_are_one_exploded_parameter(self):
        parameters = placement_openapi.document()['paths'][
            '/allocation_candidates']['get']['parameters']
        groups = [p for p in parameters if p['name'] == 'request_groups']
        self.assertEqual('form', groups[0]['style'])
        self.assertIn('^resources([a-zA-Z0-9_-]{1,64})?$',
                      groups[0]['schema']['patternProperties'])

    def test_a_stray_field_in_an_answer_is_caught(self):
        doc = placement_openapi.document()
        self.assertNotEqual([], openapi.response_errors(
            doc, 'GET', '/traits', 200, {'traits': [], 'extra': 1}))
        self.assertEqual([], openapi.response_errors(
            doc, 'GET', '/traits', 200, {'traits': ['HW_CPU_X86_AVX']}))


class TestServed(base.DBTestCase):

    def test_all_in_one_serves_it_without_a_token(self):
        api = self.useFixture(blazar_fixtures.APIFixture())
        resp = api.request('GET', '/placement/openapi.json', token=None)
        self.assertEqual(200, resp.status, resp.text)
        body = resp.json()
        self.assertEqual([{'url': '/placement'}], body['servers'])
        self.assertEqual(placement_openapi.document()['paths'],
                         body['paths'])

    def test_placement_api_serves_it_at_its_root(self):
        api = self.useFixture(
            blazar_fixtures.APIFixture(api_app.build_placement))
        resp = api.request('GET', '/openapi.json', token=None)
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual([{'url': '/'}], resp.json()['servers'])

    def test_other_paths_still_need_a_token(self):
        api = self.useFixture(blazar_fixtures.APIFixture())
        resp = api.request('GET', '/placement/resource_providers',
                           token=None)
        self.assertEqual(401, resp.status, resp.text)

    def test_html_errors_are_in_the_document(self):
        # As Placement, an error is HTML to a client preferring it; the
        # document lists text/html for errors, and the check holds it.
        api = self.useFixture(blazar_fixtures.APIFixture())
        resp = api.request('DELETE', '/placement/resource_providers/%s'
                           % ('1' * 32), headers={'Accept': 'text/html'})
        self.assertEqual(404, resp.status, resp.text)
        self.assertIn('text/html', resp.headers['Content-Type'])

    def test_a_too_long_identity_is_a_placement_error(self):
        # noauth's 400 used to be keystonemiddleware's shape on Placement
        # paths too, which the document (and upstream) never answer.
        long_user = {'X-User-Id': 'u' * 256, 'X-Project-Id': 'p',
                     'X-Roles': 'admin'}
        for build, path in ((None, '/placement/traits'),
                            (api_app.build_placement, '/traits')):
            api = self.useFixture(blazar_fixtures.APIFixture(build))
            resp = api.request('GET', path, headers=long_user)
            self.assertEqual(400, resp.status, resp.text)
            error = resp.json()['errors'][0]
            self.assertIn('X-User-Id', error['detail'])
            self.assertEqual('placement.undefined_code', error['code'])


class TestConformanceMiddleware(base.TestCase):
    """The WSGI wrapper the gabbi tests run behind."""

    def _call(self, status, body, path='/traits'):
        def app(environ, start_response):
            start_response(status, [('Content-Type', 'application/json')])
            return [body]
        wrapped = conformance.ConformanceMiddleware(
            app, conformance.PLACEMENT_ALONE)
        started = []
        environ = {'REQUEST_METHOD': 'GET', 'PATH_INFO': path}
        result = wrapped(environ, lambda *args: started.append(args))
        return started, b''.join(result)

    def test_a_conforming_answer_passes_through(self):
        started, body = self._call('200 OK', b'{"traits": []}')
        self.assertEqual('200 OK', started[0][0])
        self.assertEqual(b'{"traits": []}', body)

    def test_a_drifting_answer_raises(self):
        error = self.assertRaises(AssertionError, self._call, '200 OK',
                                  b'{"trait": []}')
        self.assertIn('GET /traits 200', str(error))

    def test_an_error_off_the_family_shape_raises(self):
        self.assertRaises(AssertionError, self._call, '404 Not Found',
                          b'{"message": "gone"}', '/nowhere')

    def test_paths_beside_the_family_are_not_checked(self):
        started, _ = self._call('200 OK', b'{"anything": 1}',
                                '/healthcheck')
        self.assertEqual('200 OK', started[0][0])
