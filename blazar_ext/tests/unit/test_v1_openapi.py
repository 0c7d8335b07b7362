"""The reservation API's OpenAPI document: valid, and covering every route
of the v1 route table, every resource plugin's included."""

from unittest import mock

from openapi_spec_validator import validate
from stevedore import extension
import testtools

from blazar_ext.api import openapi
from blazar_ext.api import routing
from blazar_ext.api.v1 import availability
from blazar_ext.api.v1 import calendar
from blazar_ext.api.v1 import hosts
from blazar_ext.api.v1 import openapi as v1_openapi
from blazar_ext.api.v1 import routes as v1_routes
from blazar_ext.api.v1.schemas import host as host_schema
from blazar_ext.api.v1.schemas import lease as lease_schema
from blazar_ext.api.v1.schemas import query as query_schema
from blazar_ext.plugins import loader
from blazar_ext.tests import conformance


def every_plugin_route() -> dict:
    """{segment: 'module:Controller'} of every resource plugin installed
    (the entry points), enabled or not."""
    routes: dict = {}
    for ext in extension.ExtensionManager(loader.NAMESPACE):
        routes.update(ext.plugin.api_routes)
    return routes


def _undocumented(operations=None) -> list:
    return openapi.undocumented(v1_routes.table(every_plugin_route()),
                                operations or v1_openapi.OPERATIONS)


class TestV1Document(testtools.TestCase):

    def test_the_document_is_valid_openapi(self):
        doc = v1_openapi.document()
        validate(doc)
        self.assertEqual('3.1.0', doc['openapi'])
        self.assertEqual([{'url': '/'}], doc['servers'])
        self.assertIn('error_code',
                      str(doc['components']['schemas']['Error']))
        # /calendar and /calendar/ are two operations.
        self.assertEqual('get_calendar_index',
                         doc['paths']['/calendar/']['get']['operationId'])

    def test_every_plugin_mounting_routes_is_enumerated(self):
        self.assertTrue({'os-hosts', 'floatingips', 'devices'}.issubset(
            every_plugin_route()))

    def test_every_route_has_a_response_schema(self):
        self.assertEqual([], _undocumented())
        # And nothing is described that no route serves (the calendar
        # page is served beside the Pecan app).
        table = {(route.method, route.pattern) for route in
                 v1_routes.table(every_plugin_route())}
        self.assertEqual(set(), set(v1_openapi.OPERATIONS) - table
                         - set(v1_openapi.PAGES))

    def test_a_new_route_without_a_schema_fails(self):
        core = v1_routes.CORE + (routing.Route(
            'GET', '/v1/widgets', hosts.HostsController.get_all),)
        with mock.patch.object(v1_routes, 'CORE', core):
            self.assertEqual([('GET', '/v1/widgets')], _undocumented())

    def test_a_plugin_route_without_a_schema_fails(self):
        without = dict(v1_openapi.OPERATIONS)
        del without['GET', '/v1/devices/calendar']
        self.assertEqual([('GET', '/v1/devices/calendar')],
                         _undocumented(without))

    def test_request_schemas_are_the_handlers_own(self):
        ops = v1_openapi.OPERATIONS
        self.assertIs(host_schema.CREATE, ops['POST', '/v1/os-hosts'].request)
        self.assertIs(lease_schema.UPDATE,
                      ops['PUT', '/v1/leases/{lease_id}'].request)
        self.assertIs(host_schema.LIST_QUERY, ops['GET', '/v1/os-hosts'].query)
        # The window routes accept exactly the parameters documented.
        self.assertEqual(availability.PARAMS,
                         set(query_schema.AVAILABILITY['properties']))
        self.assertEqual(calendar.PARAMS,
                         set(query_schema.CALENDAR['properties']))

    def test_the_document_route_is_public(self):
        doc = v1_openapi.document()
        self.assertEqual([], doc['paths']['/v1/openapi.json']['get'][
            'security'])
        self.assertEqual({'token': []}, doc['security'][0])


class TestV1Conformance(testtools.TestCase):

    def problems(self, method, path, status, body):
        return conformance.problems(conformance.ALL_IN_ONE, method, path,
                                    status, 'application/json', body)

    def test_a_trailing_slash_is_the_resource(self):
        self.assertEqual([], self.problems('GET', '/v1/leases/', 200,
                                           b'{"leases": []}'))
        self.assertNotEqual([], self.problems('GET', '/v1/leases/', 200,
                                              b'{"lease": []}'))

    def test_the_image_version_document_is_in_no_v1_document(self):
        self.assertEqual([], self.problems('GET', '/versions', 200,
                                           b'{"versions": []}'))

    def test_unknown_paths_answer_the_error_shape(self):
        self.assertEqual([], self.problems(
            'GET', '/v1/nothing', 404,
            b'{"error_code": 404, "error_name": 404, "error_message": "x",'
            b' "error": 404}'))
        self.assertNotEqual([], self.problems('GET', '/v1/nothing', 404,
                                              b'{"message": "x"}'))
