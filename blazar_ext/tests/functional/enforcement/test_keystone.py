"""Keystone over real HTTP: name@domain exemptions and the service token.

A tiny Keystone stand-in answers GET /v3/domains and /v3/projects; the
keystoneauth ``admin_token`` plugin points the session at it with a fixed
token, so the real keystoneauth loading and request path are exercised.
"""

import http.server
import json
import threading
import urllib.parse

from oslo_config import cfg

from blazar_ext.conf import enforcement as enforcement_conf
from blazar_ext import enforcement
from blazar_ext import exceptions
from blazar_ext.tests.functional.enforcement import fixtures as efixtures
from blazar_ext.tests.unit.enforcement import base

DOMAINS = {'Default': 'default', 'Research': 'dom-r'}
PROJECTS = {('vip', 'dom-r'): 'vip-id', ('vip', 'default'): 'other-id'}


class FakeKeystone:
    def __init__(self):
        self.requests = []
        keystone = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                url = urllib.parse.urlparse(self.path)
                query = dict(urllib.parse.parse_qsl(url.query))
                keystone.requests.append(
                    (url.path, query, self.headers.get('X-Auth-Token')))
                if url.path == '/v3/domains':
                    body = {'domains': [
                        {'id': DOMAINS[query['name']]}]
                        if query.get('name') in DOMAINS else []}
                elif url.path == '/v3/projects':
                    key = (query.get('name'), query.get('domain_id'))
                    body = {'projects': [{'id': PROJECTS[key]}]
                            if key in PROJECTS else []}
                else:
                    self.send_response(404)
                    self.send_header('Content-Length', '0')
                    self.end_headers()
                    return
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header('Content-Type', 'application/json')
                self.send_header('Content-Length', str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                      Handler)
        self.url = 'http://127.0.0.1:%d/v3' % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       args=(0.05,), daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)


class KeystoneTest(base.TestCase):

    def setUp(self):
        super().setUp()
        self.keystone = FakeKeystone()
        self.addCleanup(self.keystone.stop)
        self.service = self.useFixture(efixtures.SampleServiceFixture(
            {'token': 'service-token', 'default': {'max_hosts': 0}}))

    def private_conf(self, exempted: str) -> cfg.ConfigOpts:
        # Loading a keystoneauth plugin registers its options for good,
        # so it gets a ConfigOpts of its own with fresh groups.
        conf = cfg.ConfigOpts()
        for name in ('enforcement', 'enforcement_external',
                     'enforcement_keystone'):
            conf.register_group(cfg.OptGroup(name))
        enforcement_conf.register_opts(conf)
        path = self.create_tempfiles([('blazar-ext', '\n'.join([
            '[enforcement]',
            'enabled_filters = ExternalServiceFilter',
            'exempted_projects = %s' % exempted,
            '[enforcement_external]',
            'endpoint_url = %s' % self.service.url,
            '[enforcement_keystone]',
            'auth_type = admin_token',
            'endpoint = %s' % self.keystone.url,
            'token = service-token',
        ]))])[0]
        conf(['--config-file', path], project='blazar-ext',
             default_config_files=[])
        return conf

    def test_name_at_domain_exempted(self):
        chain = enforcement.get_chain(self.private_conf(
            'vip@Research,missing@Research,x@NoDomain'))
        lease = efixtures.make_lease(hosts=1, project_id='vip-id')
        chain.check_create({'user_id': 'u'}, lease)
        self.assertEqual([], self.service.calls)
        self.assertIn(('/v3/projects', {'name': 'vip',
                                        'domain_id': 'dom-r'},
                       'service-token'), self.keystone.requests)
        # The same name in another domain is not exempted.
        exc = self.assertRaises(
            exceptions.EnforcementRejected, chain.check_create,
            {'user_id': 'u'},
            efixtures.make_lease(hosts=1, project_id='other-id'))
        self.assertIn('limited to reserving 0 physical hosts', str(exc))
        # Names that do not exist are not asked for again.
        asked = len(self.keystone.requests)
        chain.check_create({'user_id': 'u'}, lease)
        self.assertEqual(asked, len(self.keystone.requests))

    def test_keystone_token_sent_to_service(self):
        chain = enforcement.get_chain(self.private_conf(''))
        self.assertRaises(exceptions.EnforcementRejected, chain.check_create,
                          {'user_id': 'u', 'project_id': 'p'},
                          efixtures.make_lease())
        [call] = self.service.calls
        # The sample service checked it, else it would have answered 401.
        self.assertEqual('service-token', call['headers']['X-Auth-Token'])
