"""GET /v1/openapi.json: the reservation API's OpenAPI document, served
without a token, and the responses the functional tests check against."""

from openapi_spec_validator import validate

from blazar_ext.api import openapi
from blazar_ext.api.v1 import openapi as v1_openapi
from blazar_ext.tests import base


class TestV1OpenAPIRoute(base.APITestCase):

    def test_served_without_a_token(self):
        resp = self.request('GET', '/v1/openapi.json', token=None)
        self.assertEqual(200, resp.status, resp.text)
        self.assertTrue(resp.headers['Content-Type'].startswith(
            'application/json'))
        doc = resp.json()
        validate(doc)
        self.assertEqual(v1_openapi.document(), doc)

    def test_read_only(self):
        resp = self.request('POST', '/v1/openapi.json', {}, token=None)
        self.assertEqual(405, resp.status, resp.text)
        self.assertEqual(405, resp.json()['error_code'])

    def test_other_routes_still_need_a_token(self):
        self.assertEqual(401, self.request('GET', '/v1/leases',
                                           token=None).status)

    def test_a_drifted_response_fails_the_check(self):
        doc = v1_openapi.document()
        self.assertEqual([], openapi.response_errors(
            doc, 'GET', '/v1/leases', 200, {'leases': []}))
        [problem] = openapi.response_errors(
            doc, 'GET', '/v1/leases', 200, {'leases': [], 'extra': 1})
        self.assertIn('Additional properties', problem)
        self.assertNotEqual([], openapi.error_shape_errors(
            doc, {'message': 'not the v1 shape'}))
