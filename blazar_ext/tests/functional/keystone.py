"""A real Keystone from PyPI (tools/keystone/setup-venv.sh) on SQLite with
Fernet tokens, and blazar-ext-all-in-one authenticating against it: the
fixtures of the Keystone tests (test_keystone_auth) and of the calendar's
Keystone case (test_calendar_browser)."""

import os

import fixtures
import requests

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


def env() -> dict:
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
            timeout=120, env=env())
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
            name, argv, self.dir, env=env()))
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
        self.policy_file = os.path.join(self.dir, 'policy.yaml')
        self.write_policy('')
        service = self.useFixture(services.AllInOne(
            self.dir,
            'auth_strategy = keystone\n'
            '[DEFAULT]\n'
            'debug = true\n'
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
            % {'policy': self.policy_file, 'keystone': self.keystone_url,
               'password': SERVICE_PASSWORD, 'extra': self.extra},
            env=env(), name='blazar-ext'))
        self.url, self.process = service.url, service.process

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
