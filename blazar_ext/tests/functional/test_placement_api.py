"""The placement family alone at the root: build_placement() in process,
and blazar-ext-placement-api as a real process beside the all-in-one's
database."""

import gc
import os
from unittest import mock
from urllib import parse

import fixtures
import requests
import testtools

from blazar_ext.api import app as api_app
from blazar_ext.api.placement.handlers import resource_provider as rp_handler
from blazar_ext.tests import base
from blazar_ext.tests import fixtures as blazar_fixtures
from blazar_ext.tests.functional import services

PLACEMENT = {'OpenStack-API-Version': 'placement 1.39'}
RP = '11111111-1111-1111-1111-111111111111'


class TestPlacementAlone(base.DBTestCase):
    """The WSGI application of blazar-ext-placement-api, in process."""

    def setUp(self):
        super().setUp()
        self.api = self.useFixture(
            blazar_fixtures.APIFixture(api_app.build_placement))

    def test_links_are_relative_to_the_root(self):
        resp = self.api.request('POST', '/resource_providers',
                                {'name': 'rp', 'uuid': RP},
                                headers=PLACEMENT)
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual('/resource_providers/%s' % RP,
                         parse.urlsplit(resp.headers['Location']).path)
        self.assertIn({'rel': 'self', 'href': '/resource_providers/%s' % RP},
                      resp.json()['links'])

    def test_provider_list_builds_with_the_collector_paused(self):
        # Thousands of rows and their columns are alive until the body is
        # written; a full collection meanwhile walks the whole process.
        self.api.request('POST', '/resource_providers',
                         {'name': 'rp', 'uuid': RP}, headers=PLACEMENT)
        states = []
        real = rp_handler._list_text

        def list_text(req, rows):
            states.append(gc.isenabled())
            return real(req, rows)
        was = gc.isenabled()
        with mock.patch.object(rp_handler, '_list_text',
                               side_effect=list_text):
            listed = self.api.request('GET', '/resource_providers',
                                      headers=PLACEMENT).json()
        self.assertEqual([RP], [p['uuid'] for p in
                                listed['resource_providers']])
        self.assertEqual([False], states)
        self.assertEqual(was, gc.isenabled())

    def test_links_follow_a_proxy_prefix(self):
        # Behind a proxy that mounts it at /placement (SCRIPT_NAME), links
        # carry the prefix, as Placement's under mod_wsgi.
        self.conf.set_override('enable_proxy_headers_parsing', True,
                               group='oslo_middleware')
        resp = self.api.request('POST', '/resource_providers',
                                {'name': 'rp', 'uuid': RP},
                                headers=dict(PLACEMENT, **{
                                    'X-Forwarded-Prefix': '/placement'}))
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual('/placement/resource_providers/%s' % RP,
                         parse.urlsplit(resp.headers['Location']).path)
        self.assertIn({'rel': 'self',
                       'href': '/placement/resource_providers/%s' % RP},
                      resp.json()['links'])

    def test_body_over_the_limit_is_413_in_placement_shape(self):
        self.conf.set_override('max_request_body_size', 64,
                               group='oslo_middleware')
        resp = self.api.request('POST', '/resource_providers',
                                {'name': 'x' * 100}, headers=PLACEMENT)
        self.assertEqual(413, resp.status, resp.text)
        self.assertEqual(413, resp.json()['errors'][0]['status'])

    def test_healthcheck_needs_no_token(self):
        resp = self.api.request('GET', '/healthcheck', token=None)
        self.assertEqual(200, resp.status, resp.text)

    def test_other_families_are_not_served(self):
        for path in ('/v1/leases', '/v2/metadefs/namespaces',
                     '/placement/resource_providers', '/calendar/'):
            resp = self.api.request('GET', path, headers=PLACEMENT)
            self.assertEqual(404, resp.status, path)
            self.assertEqual('Not Found',
                             resp.json()['errors'][0]['title'], path)


class TestPlacementApiCommand(testtools.TestCase):
    """blazar-ext-placement-api on a database the all-in-one migrated."""

    def setUp(self):
        super().setUp()
        self.state = self.useFixture(fixtures.TempDir()).path
        self.port = services.free_port()
        self.url = 'http://127.0.0.1:%d' % self.port

    def _config(self, extra: str = '') -> str:
        path = os.path.join(self.state, 'blazar-ext.conf')
        with open(path, 'w') as f:
            f.write('[DEFAULT]\nstate_path = %s\n'
                    '[database]\nconnection = sqlite:///%s\n'
                    '[api]\nauth_strategy = noauth\n'
                    '[placement_api]\nport = %d\n%s'
                    % (self.state, os.path.join(self.state, 'db.sqlite'),
                       self.port, extra))
        return path

    def _start(self, config: str) -> services.ServiceProcess:
        return self.useFixture(services.ServiceProcess(
            'placement-api', [services.script('blazar-ext-placement-api'),
                              '--config-file', config], self.state))

    def test_serves_placement_at_the_root(self):
        config = self._config()
        migrate = services.run([services.script('blazar-ext-db-manage'),
                                '--config-file', config, 'upgrade'])
        self.assertEqual(0, migrate.returncode, migrate.stderr)
        process = self._start(config)
        services.wait_for(lambda: services.http_answers(self.url + '/'), 60,
                          'blazar-ext-placement-api on %s' % self.url,
                          processes=[process])
        self.assertIn('blazar-ext-placement-api (pid',
                      process.log())
        self.assertIn('127.0.0.1 (loopback) only', process.log())
        root = requests.get(self.url + '/', timeout=30).json()
        self.assertEqual('1.39', root['versions'][0]['max_version'])
        self.assertEqual(401, requests.get(
            self.url + '/resource_providers', timeout=30).status_code)
        admin = dict(PLACEMENT, **{'X-Auth-Token': 'admin'})
        resp = requests.post(self.url + '/resource_providers', timeout=30,
                             json={'name': 'rp', 'uuid': RP}, headers=admin)
        self.assertEqual(200, resp.status_code, resp.text)
        self.assertEqual('/resource_providers/%s' % RP,
                         resp.json()['links'][0]['href'])
        # Standard traits are there on first use, without traits sync.
        self.assertEqual(204, requests.get(
            self.url + '/traits/HW_CPU_X86_AVX', headers=admin,
            timeout=30).status_code)
        self.assertEqual(0, process.stop(timeout=15))

    def test_noauth_refuses_other_addresses(self):
        process = self._start(self._config('host = 0.0.0.0\n'))
        services.wait_for(lambda: not process.running(), 60,
                          'blazar-ext-placement-api to exit')
        self.assertEqual(1, process.process.returncode)
        self.assertIn('Refusing to start: auth_strategy = noauth on 0.0.0.0 '
                      'would let anyone who reaches port %d' % self.port,
                      process.log())
