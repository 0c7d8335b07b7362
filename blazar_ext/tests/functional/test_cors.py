"""[cors]: oslo.middleware's CORS for all three API families, on only when
allowed_origin is set (as Placement), and outside authentication."""

from oslo_middleware import cors
import webob

from blazar_ext.api import app as api_app
from blazar_ext import conf as blazar_conf
from blazar_ext.tests import base

ORIGIN = 'http://valid.example.com'
PATHS = ['/v1/leases', '/placement/resource_providers',
         '/v2/metadefs/namespaces']


class TestCORS(base.APITestCase):

    def app(self, origins):
        blazar_conf.CONF.register_opts(cors.CORS_OPTS, 'cors')
        self.conf.set_override('allowed_origin', origins, group='cors')
        return api_app.build(blazar_conf.CONF)

    def preflight(self, app, path: str, origin: str = ORIGIN):
        req = webob.Request.blank(path, method='OPTIONS')
        req.headers['Origin'] = origin
        req.headers['Access-Control-Request-Method'] = 'GET'
        req.headers['Access-Control-Request-Headers'] = (
            'openstack-api-version')
        return req.get_response(app)

    def test_preflight_allowed_for_every_family_without_a_token(self):
        app = self.app([ORIGIN])
        for path in PATHS:
            resp = self.preflight(app, path)
            self.assertEqual(200, resp.status_int, path)
            self.assertEqual(ORIGIN,
                             resp.headers['Access-Control-Allow-Origin'])
            self.assertIn('openstack-api-version', resp.headers[
                'Access-Control-Allow-Headers'].lower())

    def test_other_origin_gets_no_cors_headers(self):
        app = self.app([ORIGIN])
        resp = self.preflight(app, PATHS[1], 'http://evil.example.com')
        self.assertNotIn('Access-Control-Allow-Origin', resp.headers)

    def test_simple_get_carries_the_origin(self):
        app = self.app([ORIGIN])
        req = webob.Request.blank('/placement/resource_providers')
        req.headers.update({'Origin': ORIGIN, 'X-Auth-Token': 'admin'})
        resp = req.get_response(app)
        self.assertEqual(200, resp.status_int, resp.text)
        self.assertEqual(ORIGIN, resp.headers['Access-Control-Allow-Origin'])

    def test_off_without_allowed_origin(self):
        app = self.app([])
        resp = self.preflight(app, '/placement/')
        self.assertNotIn('Access-Control-Allow-Origin', resp.headers)
        self.assertEqual(405, resp.status_int)
