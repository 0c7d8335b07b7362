"""noauth: a token "user:project" acts as that user and project.

As Placement's noauth2 convention, with roles member and reader, for all
three API families; the token "admin" stays an admin. The reservation
case runs the real ``openstack`` CLI as a non-admin against a real HTTP
server; placement and metadefs go through the whole WSGI stack in process.
"""

import datetime
import json
import os
import subprocess
import sys

import fixtures
from oslo_utils import timeutils
import testtools

from blazar_ext.api.middleware import auth
from blazar_ext.tests import base
from blazar_ext.tests import fixtures as blazar_fixtures

OPENSTACK = os.path.join(os.path.dirname(sys.executable), 'openstack')
FMT = '%Y-%m-%d %H:%M'
PLACEMENT = {'OpenStack-API-Version': 'placement 1.39'}


class TestIdentityFromToken(testtools.TestCase):

    def test_tokens(self):
        self.assertEqual(('admin', 'admin', 'admin'),
                         auth.identity_from_token('admin'))
        self.assertEqual(('alice', 'proj-a', 'member,reader'),
                         auth.identity_from_token('alice:proj-a'))
        self.assertEqual(('admin', 'proj-a', 'admin'),
                         auth.identity_from_token('admin:proj-a'))
        for token in ('', 'alice', ':proj-a', 'alice:'):
            self.assertIsNone(auth.identity_from_token(token), token)

    def test_percent_encoded_token(self):
        # python-glanceclient quotes the header.
        self.assertEqual('alice:proj-a', auth.token_text('alice%3Aproj-a'))
        self.assertEqual('alice:proj-a', auth.token_text('alice%3aproj-a'))
        self.assertEqual('admin', auth.token_text('admin'))


class TestUserProjectToken(base.APITestCase):

    def test_reservation_api(self):
        resp = self.request('GET', '/v1/leases', token='alice:proj-a')
        self.assertEqual(200, resp.status, resp.text)
        resp = self.request('POST', '/v1/os-hosts', {'name': 'h1'},
                            token='alice:proj-a')
        self.assertEqual(403, resp.status, resp.text)
        self.assertEqual(201, self.request('POST', '/v1/os-hosts', {
            'name': 'h1'}, token='admin').status)

    def test_placement_api(self):
        # Placement's defaults: a project's reader may see its usages only.
        resp = self.request('GET', '/placement/usages?project_id=proj-a',
                            headers=PLACEMENT, token='alice:proj-a')
        self.assertEqual(200, resp.status, resp.text)
        resp = self.request('GET', '/placement/usages?project_id=proj-b',
                            headers=PLACEMENT, token='alice:proj-a')
        self.assertEqual(403, resp.status, resp.text)
        resp = self.request('PUT', '/placement/traits/CUSTOM_X',
                            headers=PLACEMENT, token='alice:proj-a')
        self.assertEqual(403, resp.status, resp.text)
        self.assertEqual(201, self.request(
            'PUT', '/placement/traits/CUSTOM_X', headers=PLACEMENT,
            token='admin').status)

    def test_metadefs_api(self):
        for name, visibility in (('pub', 'public'), ('priv', 'private')):
            self.assertEqual(201, self.request(
                'POST', '/v2/metadefs/namespaces',
                {'namespace': name, 'visibility': visibility},
                token='admin').status)
        resp = self.request('GET', '/v2/metadefs/namespaces',
                            token='alice:proj-a')
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual(['pub'], [n['namespace'] for n in
                                   resp.json()['namespaces']])
        resp = self.request('POST', '/v2/metadefs/namespaces',
                            {'namespace': 'mine'}, token='alice:proj-a')
        self.assertEqual(403, resp.status, resp.text)

    def test_percent_encoded_token_in_every_family(self):
        # As python-glanceclient sends --os-token alice:proj-a.
        token = 'alice%3Aproj-a'
        self.assertEqual(201, self.request(
            'POST', '/v2/metadefs/namespaces',
            {'namespace': 'priv', 'visibility': 'private'},
            token='admin').status)
        resp = self.request('GET', '/v2/metadefs/namespaces', token=token)
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual([], resp.json()['namespaces'])
        resp = self.request('GET', '/placement/usages?project_id=proj-a',
                            headers=PLACEMENT, token=token)
        self.assertEqual(200, resp.status, resp.text)
        resp = self.request('GET', '/placement/usages?project_id=proj-b',
                            headers=PLACEMENT, token=token)
        self.assertEqual(403, resp.status, resp.text)
        self.add_host()
        resp = self._lease(token)
        self.assertEqual(201, resp.status, resp.text)
        self.assertEqual(('alice', 'proj-a'),
                         (resp.json()['lease']['user_id'],
                          resp.json()['lease']['project_id']))

    def test_headers_win_over_the_token(self):
        headers = blazar_fixtures.user_headers(project='proj-b', user='bob')
        self.add_host()
        resp = self._lease('alice:proj-a', headers)
        self.assertEqual(201, resp.status, resp.text)
        self.assertEqual('proj-b', resp.json()['lease']['project_id'])

    def test_token_identity_is_length_checked(self):
        resp = self.request('GET', '/v1/leases',
                            token='alice:' + 'p' * 256)
        self.assertEqual(400, resp.status, resp.text)

    def add_host(self) -> None:
        self.assertEqual(201, self.request('POST', '/v1/os-hosts', {
            'name': 'h1'}).status)

    def _lease(self, token: str, headers: dict | None = None):
        start = timeutils.utcnow() + datetime.timedelta(hours=1)
        return self.request('POST', '/v1/leases', {
            'name': 'l1', 'start_date': start.strftime(FMT),
            'end_date': (start + datetime.timedelta(hours=1)).strftime(FMT),
            'reservations': [{'resource_type': 'physical:host', 'min': 1,
                              'max': 1, 'hypervisor_properties': '',
                              'resource_properties': ''}],
            'events': []}, token=token, headers=headers)


class TestAnonymous(base.APITestCase):
    """A request naming no one is a 401 in every family, as Placement's
    noauth2; version documents still answer without a token."""

    def test_no_token_no_identity_is_401(self):
        for path in ('/v1/leases', '/placement/resource_providers',
                     '/v2/metadefs/namespaces'):
            resp = self.request('GET', path, token=None,
                                headers={'Accept': 'application/json'})
            self.assertEqual(401, resp.status, path)
            self.assertEqual(401, resp.json()['error']['code'], path)

    def test_version_documents_need_no_token(self):
        for path in ('/', '/placement/', '/placement'):
            resp = self.request('GET', path, token=None)
            self.assertIn(resp.status, (200, 300), path)

    def test_other_methods_on_version_documents_are_not_401(self):
        # As Placement's auth leaves its root alone: each family answers
        # (the reservation and Placement roots with their 405: version
        # documents are read-only).
        for path in ('/', '/v1', '/v1/', '/placement', '/placement/',
                     '/v2', '/v2/'):
            for method in ('POST', 'PUT', 'DELETE', 'OPTIONS'):
                resp = self.request(method, path, token=None)
                self.assertNotEqual(401, resp.status, (method, path))
                self.assertLess(resp.status, 500, (method, path))
                if not path.startswith('/v2'):
                    self.assertEqual(405, resp.status, (method, path))

    def test_identity_headers_alone_are_enough(self):
        resp = self.request('GET', '/v1/leases', token=None,
                            headers=blazar_fixtures.user_headers())
        self.assertEqual(200, resp.status, resp.text)


@testtools.skipUnless(os.path.exists(OPENSTACK), 'openstack CLI missing')
class TestNonAdminCLI(base.APITestCase):
    """``openstack reservation`` with ``--os-token user:project``."""

    def setUp(self):
        super().setUp()
        self.conf.set_override('event_interval', 3600, group='manager')
        self.server = self.useFixture(blazar_fixtures.RealServerFixture())
        self.home = self.useFixture(fixtures.TempDir()).path

    def openstack(self, token: str, *args: str, ok: bool = True):
        cmd = [OPENSTACK, '--os-auth-type', 'admin_token',
               '--os-endpoint', self.server.endpoint + '/v1',
               '--os-token', token, 'reservation'] + list(args)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith('OS_')}
        env['HOME'] = self.home
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=120, env=env)
        if ok:
            self.assertEqual(0, proc.returncode,
                             'stdout: %s\nstderr: %s'
                             % (proc.stdout, proc.stderr))
        return proc

    def test_lease_create_and_list_as_a_project(self):
        self.openstack('admin', 'host', 'create', 'node-1')
        start = timeutils.utcnow() + datetime.timedelta(hours=1)
        end = start + datetime.timedelta(hours=2)
        proc = self.openstack(
            'alice:proj-a', 'lease', 'create', '--reservation',
            'resource_type=physical:host,min=1,max=1',
            '--start-date', start.strftime(FMT),
            '--end-date', end.strftime(FMT), '-f', 'json', 'alice-lease')
        lease = json.loads(proc.stdout[proc.stdout.index('{'):])
        self.assertEqual('proj-a', lease['project_id'])
        self.assertEqual('alice', lease['user_id'])

        mine = json.loads(self.openstack('alice:proj-a', 'lease', 'list',
                                         '-f', 'json').stdout)
        self.assertEqual([lease['id']], [x['id'] for x in mine])
        theirs = json.loads(self.openstack('bob:proj-b', 'lease', 'list',
                                           '-f', 'json').stdout)
        self.assertEqual([], theirs)
        proc = self.openstack('bob:proj-b', 'lease', 'show', lease['id'],
                              ok=False)
        self.assertNotEqual(0, proc.returncode)
        # A member may not register hosts; the admin token still may.
        proc = self.openstack('alice:proj-a', 'host', 'create', 'node-2',
                              ok=False)
        self.assertNotEqual(0, proc.returncode)
        self.assertIn("Policy doesn't allow", proc.stderr)
