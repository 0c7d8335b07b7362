"""The v1 route table (api/v1/routes.py) is what Pecan serves: every
route the controllers answer is in it, with its handler, and nothing
else; the fuzzer and the private scan request the table's routes."""

from unittest import mock

import pecan
from pecan import rest
from pecan import util as pecan_util

from blazar_ext.api import routing
from blazar_ext.api.v1 import hooks as v1_hooks
from blazar_ext.api.v1 import routes as v1_routes
from blazar_ext.plugins import loader
from blazar_ext.tests import base
from blazar_ext.tests.functional import api_routes


class GadgetsController(rest.RestController):
    """A controller a plugin package could bring, with its own ROUTES."""

    @pecan.expose('json')
    def get_all(self):
        return {'gadgets': []}

    @pecan.expose('json')
    def get_one(self, gadget_id):
        return {'gadget': {'id': gadget_id}}

    ROUTES = (routing.Route('GET', '', get_all),
              routing.Route('GET', '/{gadget_id}', get_one))


GADGETS = 'blazar_ext.tests.functional.test_v1_route_table:GadgetsController'


class TestV1RouteTable(base.TestCase):

    def problems(self):
        table = v1_routes.table(loader.get().routes())
        return api_routes.v1_table_problems(table,
                                            api_routes.served_v1_routes())

    def test_the_table_is_what_pecan_serves(self):
        self.assertEqual([], self.problems())
        # Both plugins that mount routes are enabled here.
        self.assertEqual({'os-hosts', 'floatingips'},
                         set(loader.get().routes()))
        # Every route of the table, each plugin's under its segment.
        self.assertEqual(
            len(v1_routes.CORE) + sum(
                len(v1_routes.mounted(v1_routes.controller_class(path)))
                for path in loader.get().routes().values()),
            len(api_routes.v1_routes()))

    def test_every_handler_serves_json(self):
        # api/v1/hooks.RequestHook gives Pecan the content type JSON
        # instead of having it negotiated: right only while every
        # handler serves it (another would then be a 404, not a 406).
        for method, path, handler in api_routes.served_v1_routes():
            self.assertIn(v1_hooks.JSON,
                          pecan_util._cfg(handler).get('content_types', {}),
                          '%s %s' % (method, path))

    def test_a_route_missing_from_the_table_fails(self):
        hosts = next(c for c in v1_routes.MOUNTED
                     if c.__name__ == 'HostsController')
        short = dict(v1_routes.MOUNTED)
        short[hosts] = tuple(r for r in short[hosts]
                             if r.pattern != '/calendar')
        with mock.patch.object(v1_routes, 'MOUNTED', short):
            self.assertEqual(
                ['GET /v1/os-hosts/calendar is served but missing from '
                 'the table'], self.problems())

    def test_a_route_nothing_serves_fails(self):
        extra = v1_routes.CORE + (routing.Route(
            'DELETE', '/v1/leases', v1_routes.CORE[2].handler),)
        with mock.patch.object(v1_routes, 'CORE', extra):
            self.assertEqual(['DELETE /v1/leases is in the table but not '
                              'served'], self.problems())

    def test_a_wrong_handler_fails(self):
        core = list(v1_routes.CORE)
        core[2] = routing.Route('GET', '/v1/leases', core[3].handler)
        with mock.patch.object(v1_routes, 'CORE', tuple(core)):
            [problem] = self.problems()
        self.assertIn('GET /v1/leases is served by '
                      'LeasesController.get_all', problem)

    def test_a_plugin_controller_brings_its_routes(self):
        routes = {'os-hosts': 'blazar_ext.api.v1.hosts:HostsController',
                  'gadgets': GADGETS}
        with mock.patch.object(loader.get(), 'routes',
                               return_value=routes):
            self.assertEqual([], self.problems())
            self.assertIn(('GET', '/v1/gadgets/{gadget_id}'),
                          api_routes.v1_routes())
            self.assertNotIn(('GET', '/v1/floatingips'),
                             api_routes.v1_routes())

    def test_the_device_plugin_brings_its_routes(self):
        routes = {'devices': 'blazar_ext.api.v1.devices:DevicesController'}
        with mock.patch.object(loader.get(), 'routes',
                               return_value=routes):
            self.assertEqual([], self.problems())
            self.assertIn(('PUT', '/v1/devices/{device_id}'),
                          api_routes.v1_routes())
