"""Authentication and policy against a real Keystone.

Keystone from PyPI runs from its own virtualenv (tools/keystone/
setup-venv.sh), on SQLite, served on 127.0.0.1 with real Fernet tokens.
blazar-ext-all-in-one runs as a process with ``[api] auth_strategy =
keystone``: keystonemiddleware validates every token against that Keystone
with a service user, oslo.policy decides from the roles in the token, and
usage enforcement resolves ``name@domain`` exemptions through it.

Skipped when the Keystone virtualenv is absent.
"""

import datetime
import json
import os
import subprocess
import time
import uuid

import fixtures
from oslo_utils import timeutils
import requests
import testtools

from blazar_ext import policy
from blazar_ext.tests.functional.enforcement import fixtures as efixtures
from blazar_ext.tests.functional import keystone as ks
from blazar_ext.tests.functional import services


def lease_body(name: str, days: int = 1) -> dict:
    start = timeutils.utcnow() + datetime.timedelta(days=days)
    return {
        'name': name, 'start_date': start.strftime('%Y-%m-%d %H:%M'),
        'end_date': (start + datetime.timedelta(hours=1)).strftime(
            '%Y-%m-%d %H:%M'),
        'reservations': [{'resource_type': 'physical:host', 'min': 1,
                          'max': 1, 'hypervisor_properties': '',
                          'resource_properties': ''}],
        'events': []}


class KeystoneAuthTest(testtools.TestCase):
    """One Keystone for the class; a blazar_ext process for each test."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        reason = ks.keystone_unavailable()
        if reason:
            raise cls.skipException(reason)
        keystone = ks.Keystone()
        cls.addClassCleanup(keystone.cleanUp)
        keystone.setUp()
        cls.keystone = keystone
        # The service user keystonemiddleware and enforcement log in as,
        # with the roles a deployment gives it.
        keystone.project('service')
        keystone.user('blazar', 'service', ['admin', 'service'],
                      password=ks.SERVICE_PASSWORD)
        # Projects and users; 'member' implies 'reader' in Keystone.
        cls.ids = {}
        for project, domain in (('alpha', 'Default'), ('beta', 'Default'),
                                ('vip', 'Research'), ('vip', 'Default')):
            cls.ids[project, domain] = keystone.project(project, domain)
        keystone.user('alice', 'alpha', ['member'])
        keystone.user('bob', 'beta', ['member'])
        keystone.user('rita', 'alpha', ['reader'])
        keystone.user('victor', 'vip', ['member'], domain='Research')
        keystone.user('dora', 'vip', ['member'])

    def setUp(self):
        super().setUp()
        self.keystone = type(self).keystone
        self.admin = self.keystone.admin_token
        self.alice = self.keystone.token('alice', ks.PASSWORD, 'alpha')
        self.bob = self.keystone.token('bob', ks.PASSWORD, 'beta')
        self.rita = self.keystone.token('rita', ks.PASSWORD, 'alpha')

    def start(self, extra: str = '', keystone_url: str | None = None
              ) -> ks.BlazarExt:
        return self.useFixture(ks.BlazarExt(self.keystone, extra,
                                            keystone_url))

    def assertStatus(self, status: int, resp: requests.Response):
        self.assertEqual(status, resp.status_code,
                         '%s %s: %s' % (resp.request.method,
                                        resp.request.url, resp.text))
        return resp

    def add_hosts(self, api: ks.BlazarExt, count: int) -> None:
        for _ in range(count):
            self.assertStatus(201, api.request(
                'POST', '/v1/os-hosts', self.admin,
                {'name': 'host-%s' % uuid.uuid4().hex[:8]}))

    def test_roles_decide_what_each_user_sees(self):
        api = self.start()
        # Registering hosts is for admins.
        resp = self.assertStatus(403, api.request(
            'POST', '/v1/os-hosts', self.alice, {'name': 'not-mine'}))
        self.assertIn('blazar:oshosts:post', resp.json()['error_message'])
        self.add_hosts(api, 2)
        self.assertStatus(403, api.request('GET', '/v1/os-hosts',
                                           self.alice))
        self.assertEqual(2, len(self.assertStatus(200, api.request(
            'GET', '/v1/os-hosts', self.admin)).json()['hosts']))

        # Each member leases in their own project.
        mine = self.assertStatus(201, api.request(
            'POST', '/v1/leases', self.alice,
            lease_body('alice-lease'))).json()['lease']
        theirs = self.assertStatus(201, api.request(
            'POST', '/v1/leases', self.bob,
            lease_body('bob-lease'))).json()['lease']
        self.assertEqual(self.ids['alpha', 'Default'], mine['project_id'])
        self.assertEqual(self.ids['beta', 'Default'], theirs['project_id'])

        def names(token):
            return sorted(lease['name'] for lease in self.assertStatus(
                200, api.request('GET', '/v1/leases', token)).json()[
                    'leases'])

        self.assertEqual(['alice-lease'], names(self.alice))
        self.assertEqual(['bob-lease'], names(self.bob))
        self.assertEqual(['alice-lease', 'bob-lease'], names(self.admin))
        # A reader of project alpha sees alpha's lease too.
        self.assertEqual(['alice-lease'], names(self.rita))
        # Another project's lease is out of reach.
        self.assertStatus(403, api.request(
            'GET', '/v1/leases/%s' % theirs['id'], self.alice))
        self.assertStatus(403, api.request(
            'DELETE', '/v1/leases/%s' % theirs['id'], self.alice))
        self.assertStatus(200, api.request(
            'GET', '/v1/leases/%s' % theirs['id'], self.admin))
        # Identity headers a client sends are replaced by the token's.
        forged = {'X-Roles': 'admin', 'X-Project-Id': theirs['project_id'],
                  'X-User-Id': 'admin', 'X-Identity-Status': 'Confirmed'}
        self.assertStatus(403, api.request(
            'POST', '/v1/os-hosts', self.alice, {'name': 'forged'},
            headers=forged))
        self.assertEqual(['alice-lease'], sorted(
            lease['name'] for lease in self.assertStatus(200, api.request(
                'GET', '/v1/leases', self.alice, headers=forged)).json()[
                    'leases']))
        # noauth's admin token means nothing here.
        self.assertStatus(401, api.request('POST', '/v1/os-hosts', 'admin',
                                           {'name': 'noauth-admin'}))
        # Placement writes are for admins too.
        self.assertStatus(403, api.request(
            'PUT', '/placement/traits/CUSTOM_MINE', self.alice,
            headers=ks.PLACEMENT))
        self.assertStatus(201, api.request(
            'PUT', '/placement/traits/CUSTOM_MINE', self.admin,
            headers=ks.PLACEMENT))

    def test_token_without_project_owns_nothing(self):
        api = self.start()
        self.add_hosts(api, 1)
        # A system-scoped admin may make a lease, which has no project.
        system = self.keystone.system_token
        orphan = self.assertStatus(201, api.request(
            'POST', '/v1/leases', system,
            lease_body('orphan'))).json()['lease']
        self.assertIsNone(orphan['project_id'])
        # An unscoped token is valid but belongs to no project: owner
        # rules do not match it, not even on a lease without a project.
        unscoped = self.keystone.token('alice', ks.PASSWORD, None,
                                       unscoped=True)
        self.assertStatus(403, api.request('GET', '/v1/leases', unscoped))
        for method in ('GET', 'DELETE'):
            self.assertStatus(403, api.request(
                method, '/v1/leases/%s' % orphan['id'], unscoped))
        self.assertStatus(403, api.request(
            'POST', '/v1/leases', unscoped, lease_body('mine', days=2)))
        # The same user scoped to her project sees only that project's.
        self.assertEqual([], self.assertStatus(200, api.request(
            'GET', '/v1/leases', self.alice)).json()['leases'])
        self.assertEqual(['orphan'], [x['name'] for x in self.assertStatus(
            200, api.request('GET', '/v1/leases', system)).json()['leases']])

    def test_policy_yaml_override_changes_the_outcome(self):
        api = self.start()
        self.add_hosts(api, 1)
        self.assertStatus(403, api.request('GET', '/v1/os-hosts',
                                           self.alice))
        self.assertStatus(201, api.request(
            'POST', '/v1/leases', self.bob, lease_body('before', days=1)))

        api.write_policy('"blazar:oshosts:get": "role:member"\n'
                         '"blazar:leases:post": "role:admin"\n')
        # The running server looks at its policy files once a second.
        deadline = time.monotonic() + 5 * policy.RELOAD_CHECK_SECONDS
        while api.request('GET', '/v1/os-hosts', self.alice).status_code \
                == 403 and time.monotonic() < deadline:
            time.sleep(0.1)
        hosts = self.assertStatus(200, api.request(
            'GET', '/v1/os-hosts', self.alice)).json()['hosts']
        self.assertEqual(1, len(hosts))
        # A reader is no member.
        self.assertStatus(403, api.request('GET', '/v1/os-hosts',
                                           self.rita))
        resp = self.assertStatus(403, api.request(
            'POST', '/v1/leases', self.bob, lease_body('after', days=2)))
        self.assertIn('blazar:leases:post', resp.json()['error_message'])
        self.assertStatus(201, api.request(
            'POST', '/v1/leases', self.admin, lease_body('admin', days=3)))

    def assertUnauthorized(self, api: ks.BlazarExt, token: str | None):
        for path, headers in (('/v1/leases', None),
                              ('/placement/traits', ks.PLACEMENT),
                              ('/v2/metadefs/namespaces', None)):
            resp = self.assertStatus(401, api.request(
                'GET', path, token, headers=headers))
            self.assertEqual('application/json',
                             resp.headers['Content-Type'].split(';')[0])
            error = resp.json()['error']
            self.assertEqual(401, error['code'])
            self.assertTrue(error['message'])
            # Where to get a token.
            self.assertEqual('Keystone uri="%s"' % self.keystone.url,
                             resp.headers['WWW-Authenticate'])

    def test_missing_invalid_or_expired_token_is_401(self):
        api = self.start()
        # Version documents need no token.
        self.assertStatus(300, api.request('GET', '/', None))
        self.assertUnauthorized(api, None)
        self.assertUnauthorized(api, 'not-a-token')
        # Shaped like a Fernet token, but not one this Keystone made.
        self.assertUnauthorized(api, 'gAAAAAB' + 'x' * 180)
        # A token Keystone issued with a one-second lifetime: a second
        # Keystone on the same database and keys, [token] expiration = 1.
        short = os.path.join(self.keystone.dir, 'short-tokens.conf')
        with open(short, 'w') as f:
            f.write('[token]\nexpiration = 1\n')
        port = services.free_port()
        server = self.keystone.serve('keystone-short', port,
                                     [self.keystone.config, short])
        self.addCleanup(server.stop)
        expired = self.keystone.authenticate(
            'alice', ks.PASSWORD, 'alpha',
            url='http://127.0.0.1:%d/v3' % port)
        services.wait_for(
            lambda: self.keystone.validate(expired['id']).status_code == 404,
            30, 'Keystone to call the token expired')
        self.assertLess(timeutils.parse_isotime(expired['expires_at']),
                        timeutils.utcnow(True))
        self.assertUnauthorized(api, expired['id'])
        # The same user with a token in its lifetime gets through.
        self.assertStatus(200, api.request('GET', '/v1/leases', self.alice))

    def openstack(self, user: str, project: str, *args: str,
                  password: str = ks.PASSWORD) -> subprocess.CompletedProcess:
        """The openstack CLI as ``user`` with password auth."""
        env = {k: v for k, v in ks.env().items()
               if not k.startswith('OS_')}
        env.update({
            'HOME': self.useFixture(fixtures.TempDir()).path,
            'OS_AUTH_TYPE': 'password', 'OS_AUTH_URL': self.keystone.url,
            'OS_USERNAME': user, 'OS_PASSWORD': password,
            'OS_PROJECT_NAME': project, 'OS_USER_DOMAIN_NAME': 'Default',
            'OS_PROJECT_DOMAIN_NAME': 'Default',
            'OS_REGION_NAME': 'RegionOne', 'OS_INTERFACE': 'public'})
        return services.run([services.script('openstack')] + list(args),
                            timeout=120, env=env)

    def test_clients_find_the_service_in_the_catalog(self):
        api = self.start()
        # A fresh Keystone only lists itself; this one lists us too.
        for service_type, path in (('reservation', '/v1'),
                                   ('placement', '/placement')):
            service_id = self.keystone.endpoint(service_type,
                                                api.url + path)
            self.addCleanup(self.keystone.call, 'DELETE',
                            '/services/%s' % service_id, expected=204)

        denied = self.openstack('alice', 'alpha', 'reservation', 'host',
                                'create', 'host-by-alice')
        self.assertNotEqual(0, denied.returncode, denied.stdout)
        self.assertIn('blazar:oshosts:post', denied.stderr)
        made = self.openstack('admin', 'admin', 'reservation', 'host',
                              'create', 'host-by-admin',
                              password=ks.ADMIN_PASSWORD)
        self.assertEqual(0, made.returncode, made.stderr)

        start = timeutils.utcnow() + datetime.timedelta(days=1)
        created = self.openstack(
            'alice', 'alpha', 'reservation', 'lease', 'create',
            '--reservation', 'resource_type=physical:host,min=1,max=1',
            '--start-date', start.strftime('%Y-%m-%d %H:%M'),
            '--end-date', (start + datetime.timedelta(hours=1)).strftime(
                '%Y-%m-%d %H:%M'), 'alice-cli-lease')
        self.assertEqual(0, created.returncode, created.stderr)
        listed = self.openstack('alice', 'alpha', 'reservation', 'lease',
                                'list', '-f', 'json')
        self.assertEqual(0, listed.returncode, listed.stderr)
        self.assertEqual(['alice-cli-lease'],
                         [x['name'] for x in json.loads(listed.stdout)])
        listed = self.openstack('bob', 'beta', 'reservation', 'lease',
                                'list', '-f', 'json')
        self.assertEqual([], json.loads(listed.stdout))

        # osc-placement through the same catalog.
        providers = self.openstack(
            'admin', 'admin', 'resource', 'provider', 'list', '-f', 'json',
            password=ks.ADMIN_PASSWORD)
        self.assertEqual(0, providers.returncode, providers.stderr)
        self.assertEqual(['host-by-admin'],
                         [x['name'] for x in json.loads(providers.stdout)])

    def test_keystone_unreachable_is_503_in_json(self):
        nowhere = efixtures.closed_port_url() + '/v3'
        api = self.start(keystone_url=nowhere)
        for path, headers in (('/v1/leases', None),
                              ('/placement/traits', ks.PLACEMENT),
                              ('/v2/metadefs/namespaces', None)):
            resp = self.assertStatus(503, api.request(
                'GET', path, self.alice, headers=headers))
            self.assertEqual('application/json',
                             resp.headers['Content-Type'].split(';')[0])
            error = resp.json()['error']
            self.assertEqual(503, error['code'])
            self.assertIn('Keystone', error['message'])

    def test_exempted_project_given_by_name_at_domain(self):
        # The sample enforcement service lets nobody reserve a host.
        service = self.useFixture(efixtures.SampleServiceFixture(
            {'default': {'max_hosts': 0}}))
        api = self.start(
            '[enforcement]\n'
            'enabled_filters = ExternalServiceFilter\n'
            'exempted_projects = vip@Research, missing@Research\n'
            '[enforcement_external]\n'
            'endpoint_url = %(service)s\n'
            '[enforcement_keystone]\n'
            'auth_type = password\n'
            'auth_url = %(keystone)s\n'
            'username = blazar\n'
            'password = %(password)s\n'
            'project_name = service\n'
            'user_domain_name = Default\n'
            'project_domain_name = Default\n'
            % {'service': service.url, 'keystone': self.keystone.url,
               'password': ks.SERVICE_PASSWORD})
        self.add_hosts(api, 2)
        victor = self.keystone.token('victor', ks.PASSWORD, 'vip',
                                     domain='Research')
        dora = self.keystone.token('dora', ks.PASSWORD, 'vip')

        # vip in domain Research is exempted: the service is not asked.
        lease = self.assertStatus(201, api.request(
            'POST', '/v1/leases', victor, lease_body('vip'))).json()['lease']
        self.assertEqual(self.ids['vip', 'Research'], lease['project_id'])
        self.assertEqual([], service.calls)
        # The project of the same name in domain Default is not.
        resp = self.assertStatus(403, api.request(
            'POST', '/v1/leases', dora, lease_body('not-vip')))
        self.assertIn('limited to reserving 0 physical hosts',
                      resp.json()['error_message'])
        [call] = service.calls
        self.assertEqual(self.ids['vip', 'Default'],
                         call['body']['context']['project_id'])
        # The service was sent a real token of the blazar service user.
        check = self.keystone.validate(call['headers']['X-Auth-Token'])
        self.assertEqual(200, check.status_code, check.text)
        self.assertEqual('blazar', check.json()['token']['user']['name'])
