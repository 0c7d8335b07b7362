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
import uuid

import fixtures
from oslo_utils import timeutils
import requests
import testtools

from blazar_ext.tests.functional.enforcement import fixtures as efixtures
from blazar_ext.tests.functional import services

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))
SERVE = os.path.join(REPO_ROOT, 'tools', 'keystone', 'serve.py')
PLACEMENT = {'OpenStack-API-Version': 'placement 1.39'}
ADMIN_PASSWORD = 'admin-secret'
SERVICE_PASSWORD = 'blazar-secret'
PASSWORD = 'user-secret'


def keystone_venv() -> str:
    return os.environ.get('BLAZAR_EXT_KEYSTONE_VENV') or os.path.join(
        REPO_ROOT, '.keystone-venv')


def keystone_unavailable() -> str | None:
    """None when the Keystone virtualenv is there, else why not."""
    venv = keystone_venv()
    for name in ('python', 'keystone-manage'):
        if not os.access(os.path.join(venv, 'bin', name), os.X_OK):
            return ('no Keystone virtualenv at %s (bin/%s missing): run '
                    'tools/keystone/setup-venv.sh, or point '
                    'BLAZAR_EXT_KEYSTONE_VENV at one' % (venv, name))
    return None


def _env() -> dict:
    # Neither the caller's OS_* settings nor its virtualenv leak in.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(('OS_', 'VIRTUAL_ENV', 'PYTHON'))}
    env['PYTHONWARNINGS'] = 'ignore'
    return env


class Keystone(fixtures.Fixture):
    """Keystone on a fresh SQLite file, bootstrapped, served on loopback.

    ``url`` is the v3 endpoint; ``admin`` a user with the admin role on
    project admin (and on the system).
    """

    def _setUp(self):
        self.venv = keystone_venv()
        self.dir = self.useFixture(fixtures.TempDir()).path
        self.port = services.free_port()
        self.url = 'http://127.0.0.1:%d/v3' % self.port
        self.config = os.path.join(self.dir, 'keystone.conf')
        with open(self.config, 'w') as f:
            f.write(
                '[DEFAULT]\n'
                'debug = true\n'
                '[database]\n'
                'connection = sqlite:///%(dir)s/keystone.sqlite\n'
                '[fernet_tokens]\n'
                'key_repository = %(dir)s/fernet-keys\n'
                '[fernet_receipts]\n'
                'key_repository = %(dir)s/fernet-keys\n'
                '[credential]\n'
                'key_repository = %(dir)s/credential-keys\n'
                '[token]\n'
                'provider = fernet\n' % {'dir': self.dir})
        uid, gid = str(os.getuid()), str(os.getgid())
        for args in (['db_sync'],
                     ['fernet_setup', '--keystone-user', uid,
                      '--keystone-group', gid],
                     ['credential_setup', '--keystone-user', uid,
                      '--keystone-group', gid],
                     ['bootstrap', '--bootstrap-password', ADMIN_PASSWORD,
                      '--bootstrap-public-url', self.url,
                      # keystonemiddleware looks for the internal one.
                      '--bootstrap-internal-url', self.url,
                      '--bootstrap-region-id', 'RegionOne']):
            self.manage(*args)
        self.server = self.serve('keystone', self.port, [self.config])
        self.admin_token = self.token('admin', ADMIN_PASSWORD, 'admin')
        self.system_token = self.token('admin', ADMIN_PASSWORD, None)

    def manage(self, *args) -> None:
        result = services.run(
            [os.path.join(self.venv, 'bin', 'keystone-manage'),
             '--config-file', self.config] + list(args),
            timeout=120, env=_env())
        if result.returncode != 0:
            raise RuntimeError('keystone-manage %s failed (%s):\n%s' % (
                args[0], result.returncode, result.stdout + result.stderr))

    def serve(self, name: str, port: int, configs: list[str]
              ) -> services.ServiceProcess:
        """Keystone's public WSGI app on ``port`` with ``configs``."""
        argv = [os.path.join(self.venv, 'bin', 'python'), SERVE,
                '--port', str(port)]
        for config in configs:
            argv += ['--config-file', config]
        process = self.useFixture(services.ServiceProcess(
            name, argv, self.dir, env=_env()))
        url = 'http://127.0.0.1:%d/v3' % port
        services.wait_for(lambda: services.http_answers(url), 60,
                          'Keystone on %s' % url, processes=[process])
        return process

    def authenticate(self, user: str, password: str, project: str | None,
                     domain: str = 'Default', url: str | None = None,
                     unscoped: bool = False) -> dict:
        """POST /v3/auth/tokens; ``project`` None asks for system scope."""
        if unscoped:
            scope = None
        elif project is None:
            scope = {'system': {'all': True}}
        else:
            scope = {'project': {'name': project,
                                 'domain': {'name': domain}}}
        identity = {'methods': ['password'], 'password': {'user': {
            'name': user, 'domain': {'name': domain},
            'password': password}}}
        auth = {'identity': identity}
        if scope:
            auth['scope'] = scope
        resp = requests.post((url or self.url) + '/auth/tokens',
                             json={'auth': auth}, timeout=30)
        if resp.status_code != 201:
            raise RuntimeError('Keystone refused a token to %s: %s %s'
                               % (user, resp.status_code, resp.text))
        body = resp.json()['token']
        body['id'] = resp.headers['X-Subject-Token']
        return body

    def token(self, *args, **kwargs) -> str:
        return self.authenticate(*args, **kwargs)['id']

    def call(self, method: str, path: str, body=None,
             expected: int = 200) -> dict | None:
        """The identity API as the system admin."""
        resp = requests.request(method, self.url + path, json=body,
                                headers={'X-Auth-Token': self.system_token},
                                timeout=30)
        if resp.status_code != expected:
            raise RuntimeError('%s %s: %s %s' % (method, path,
                                                 resp.status_code,
                                                 resp.text))
        return resp.json() if resp.content else None

    def domain(self, name: str) -> str:
        found = self.call('GET', '/domains?name=%s' % name)['domains']
        if found:
            return found[0]['id']
        return self.call('POST', '/domains', {'domain': {'name': name}},
                         expected=201)['domain']['id']

    def project(self, name: str, domain: str = 'Default') -> str:
        return self.call('POST', '/projects', {'project': {
            'name': name, 'domain_id': self.domain(domain)}},
            expected=201)['project']['id']

    def user(self, name: str, project: str, roles: list[str],
             domain: str = 'Default', password: str = PASSWORD) -> str:
        """A user with ``roles`` on the project ``project``@``domain``."""
        domain_id = self.domain(domain)
        user_id = self.call('POST', '/users', {'user': {
            'name': name, 'domain_id': domain_id, 'password': password}},
            expected=201)['user']['id']
        project_id = self.call(
            'GET', '/projects?name=%s&domain_id=%s' % (project, domain_id)
        )['projects'][0]['id']
        for role in roles:
            role_id = self.call('GET', '/roles?name=%s' % role)[
                'roles'][0]['id']
            self.call('PUT', '/projects/%s/users/%s/roles/%s'
                      % (project_id, user_id, role_id), expected=204)
        return user_id

    def endpoint(self, service_type: str, url: str) -> str:
        """Put ``url`` in the catalog as ``service_type``, public.

        Returns the service id; DELETE /v3/services/{id} takes it out.
        """
        service_id = self.call('POST', '/services', {'service': {
            'type': service_type, 'name': service_type}},
            expected=201)['service']['id']
        self.call('POST', '/endpoints', {'endpoint': {
            'service_id': service_id, 'interface': 'public', 'url': url,
            'region_id': 'RegionOne'}}, expected=201)
        return service_id

    def validate(self, token: str) -> requests.Response:
        return requests.get(self.url + '/auth/tokens', headers={
            'X-Auth-Token': self.admin_token, 'X-Subject-Token': token},
            timeout=30)


class BlazarExt(fixtures.Fixture):
    """blazar-ext-all-in-one with keystonemiddleware pointed at Keystone."""

    def __init__(self, keystone: Keystone, extra: str = '',
                 keystone_url: str | None = None):
        super().__init__()
        self.keystone = keystone
        self.extra = extra
        self.keystone_url = keystone_url or keystone.url

    def _setUp(self):
        self.dir = self.useFixture(fixtures.TempDir()).path
        port = services.free_port()
        self.url = 'http://127.0.0.1:%d' % port
        self.policy_file = os.path.join(self.dir, 'policy.yaml')
        self.write_policy('')
        config = os.path.join(self.dir, 'blazar-ext.conf')
        with open(config, 'w') as f:
            f.write(
                '[DEFAULT]\n'
                'state_path = %(dir)s\n'
                'debug = true\n'
                '[api]\n'
                'host = 127.0.0.1\n'
                'port = %(port)d\n'
                'auth_strategy = keystone\n'
                '[oslo_policy]\n'
                'policy_file = %(policy)s\n'
                '[keystone_authtoken]\n'
                'www_authenticate_uri = %(keystone)s\n'
                'auth_url = %(keystone)s\n'
                'auth_type = password\n'
                'username = blazar\n'
                'password = %(password)s\n'
                'project_name = service\n'
                'user_domain_name = Default\n'
                'project_domain_name = Default\n'
                'region_name = RegionOne\n'
                '%(extra)s'
                % {'dir': self.dir, 'port': port, 'policy': self.policy_file,
                   'keystone': self.keystone_url,
                   'password': SERVICE_PASSWORD, 'extra': self.extra})
        self.process = self.useFixture(services.ServiceProcess(
            'blazar-ext', [services.script('blazar-ext-all-in-one'),
                           '--config-file', config],
            self.dir, env=_env()))
        services.wait_for(lambda: services.http_answers(self.url + '/'),
                          60, 'blazar-ext-all-in-one on %s' % self.url,
                          processes=[self.process])

    def write_policy(self, text: str) -> None:
        """Replace policy.yaml; oslo.policy rereads it when it changes."""
        stamp = os.stat(self.policy_file).st_mtime if os.path.exists(
            self.policy_file) else 0
        with open(self.policy_file, 'w') as f:
            f.write(text)
        # A later mtime even on a filesystem with coarse timestamps.
        os.utime(self.policy_file, (stamp + 10, stamp + 10))

    def request(self, method: str, path: str, token: str | None,
                body=None, headers=None) -> requests.Response:
        headers = dict(headers or {})
        if token is not None:
            headers['X-Auth-Token'] = token
        return requests.request(method, self.url + path, json=body,
                                headers=headers, timeout=60)


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
        reason = keystone_unavailable()
        if reason:
            raise cls.skipException(reason)
        keystone = Keystone()
        cls.addClassCleanup(keystone.cleanUp)
        keystone.setUp()
        cls.keystone = keystone
        # The service user keystonemiddleware and enforcement log in as,
        # with the roles a deployment gives it.
        keystone.project('service')
        keystone.user('blazar', 'service', ['admin', 'service'],
                      password=SERVICE_PASSWORD)
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
        self.alice = self.keystone.token('alice', PASSWORD, 'alpha')
        self.bob = self.keystone.token('bob', PASSWORD, 'beta')
        self.rita = self.keystone.token('rita', PASSWORD, 'alpha')

    def start(self, extra: str = '', keystone_url: str | None = None
              ) -> BlazarExt:
        return self.useFixture(BlazarExt(self.keystone, extra,
                                         keystone_url))

    def assertStatus(self, status: int, resp: requests.Response):
        self.assertEqual(status, resp.status_code,
                         '%s %s: %s' % (resp.request.method,
                                        resp.request.url, resp.text))
        return resp

    def add_hosts(self, api: BlazarExt, count: int) -> None:
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
            headers=PLACEMENT))
        self.assertStatus(201, api.request(
            'PUT', '/placement/traits/CUSTOM_MINE', self.admin,
            headers=PLACEMENT))

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
        unscoped = self.keystone.token('alice', PASSWORD, None,
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

    def assertUnauthorized(self, api: BlazarExt, token: str | None):
        for path, headers in (('/v1/leases', None),
                              ('/placement/traits', PLACEMENT),
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
            'alice', PASSWORD, 'alpha',
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
                  password: str = PASSWORD) -> subprocess.CompletedProcess:
        """The openstack CLI as ``user`` with password auth."""
        env = {k: v for k, v in _env().items()
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
                              password=ADMIN_PASSWORD)
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
            password=ADMIN_PASSWORD)
        self.assertEqual(0, providers.returncode, providers.stderr)
        self.assertEqual(['host-by-admin'],
                         [x['name'] for x in json.loads(providers.stdout)])

    def test_keystone_unreachable_is_503_in_json(self):
        nowhere = efixtures.closed_port_url() + '/v3'
        api = self.start(keystone_url=nowhere)
        for path, headers in (('/v1/leases', None),
                              ('/placement/traits', PLACEMENT),
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
               'password': SERVICE_PASSWORD})
        self.add_hosts(api, 2)
        victor = self.keystone.token('victor', PASSWORD, 'vip',
                                     domain='Research')
        dora = self.keystone.token('dora', PASSWORD, 'vip')

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
