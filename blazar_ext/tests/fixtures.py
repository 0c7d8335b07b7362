"""Test fixtures: configuration, a migrated SQLite database, the manager
over oslo.messaging's fake driver, and the WSGI app."""

import atexit
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import threading

from cheroot import wsgi
import fixtures
from oslo_config import fixture as config_fixture
from oslo_db.sqlalchemy import engines
import webob

from blazar_ext.api import app as api_app
from blazar_ext import conf
from blazar_ext.db import migration
from blazar_ext.db import session as db_session
from blazar_ext.manager import service
from blazar_ext import policy
from blazar_ext import rpc
from blazar_ext.rpc import manager_client
from blazar_ext.tests import conformance

CONF = conf.CONF
# tools/ of the source tree: scripts that are not installed.
TOOLS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), 'tools')


def tool_path(name: str) -> str:
    """The path of the script tools/<name>.py."""
    return os.path.join(TOOLS, name + '.py')


def tool_module(name: str):
    """The script tools/<name>.py, imported once as a module."""
    module_name = 'blazar_ext_tools_%s' % name
    if module_name not in sys.modules:
        spec = importlib.util.spec_from_file_location(module_name,
                                                      tool_path(name))
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    return sys.modules[module_name]


class ChaosTool(fixtures.Fixture):
    """tools/chaos/<name>.py imported as ``module``, its sibling
    chaoslib importable by name while the fixture is in place."""

    def __init__(self, name: str):
        super().__init__()
        self.name = name

    def _setUp(self):
        chaos_dir = os.path.dirname(tool_path('chaos/chaoslib'))
        self.useFixture(fixtures.MonkeyPatch('sys.path',
                                             [chaos_dir] + sys.path))
        self.module = tool_module('chaos/' + self.name)


_TEMPLATE_LOCK = threading.Lock()
_TEMPLATE = None
# Made at import, before oslotest points TMPDIR at a per-test directory.
_TEMPLATE_DIR = tempfile.mkdtemp(prefix='blazar-ext-tmpl-')
atexit.register(shutil.rmtree, _TEMPLATE_DIR, True)


def _template_database() -> str:
    """A SQLite file at head, migrated once per test process and copied."""
    global _TEMPLATE
    with _TEMPLATE_LOCK:
        if _TEMPLATE is None:
            path = os.path.join(_TEMPLATE_DIR, 'template.sqlite')
            engine = engines.create_engine('sqlite:///%s' % path)
            migration.upgrade('head', engine)
            engine.dispose()
            _TEMPLATE = path
    return _TEMPLATE


class ConfFixture(fixtures.Fixture):
    """Fresh configuration: noauth, fake transport, temp state_path."""

    def _setUp(self):
        self.conf = self.useFixture(config_fixture.Config(CONF)).conf
        self.conf([], project='blazar-ext', default_config_files=[])
        state = self.useFixture(fixtures.TempDir()).path
        self.conf.set_override('state_path', state)
        self.conf.set_override('auth_strategy', 'noauth', group='api')
        self.conf.set_override('transport_url', 'fake:/')
        self.conf.set_override('rpc_timeout', 10, group='manager')
        policy.reset()
        self.addCleanup(policy.reset)


class DatabaseFixture(fixtures.Fixture):
    """Points the service's transactions at a fresh migrated SQLite file."""

    def _setUp(self):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'blazar_ext.sqlite')
        shutil.copy(_template_database(), path)
        self.url = 'sqlite:///%s' % path
        self.engine = engines.create_engine(self.url)
        CONF.set_override('connection', self.url, group='database')
        self.addCleanup(db_session.context_manager.patch_engine(self.engine))
        self.addCleanup(self.engine.dispose)


class ManagerFixture(fixtures.Fixture):
    """Runs the manager's RPC server in this process."""

    def _setUp(self):
        rpc.cleanup()
        manager_client.reset_client()
        self.service = service.ManagerService()
        self.service.start()
        self.addCleanup(rpc.cleanup)
        self.addCleanup(manager_client.reset_client)
        self.addCleanup(self.service.stop)


class Response:
    def __init__(self, resp: webob.Response):
        self.status = resp.status_int
        self.headers = resp.headers
        self.body = resp.body
        self.text = resp.text if resp.charset else resp.body.decode(
            'utf-8', 'replace')

    def json(self):
        return json.loads(self.body)


class APIFixture(fixtures.Fixture):
    """The WSGI app, with a small client that speaks JSON to it;
    ``build`` is api_app.build (every family) or build_placement."""

    def __init__(self, build=None):
        super().__init__()
        self.build = build or api_app.build
        # Every answer is checked against its family's OpenAPI document.
        self.families = (conformance.PLACEMENT_ALONE
                         if self.build is api_app.build_placement
                         else conformance.ALL_IN_ONE)

    def _setUp(self):
        self.app = self.build(CONF)

    def request(self, method: str, path: str, body=None, headers=None,
                token: str | None = 'admin', raw: bytes | None = None
                ) -> Response:
        req = webob.Request.blank(path, method=method)
        if token is not None:
            req.headers['X-Auth-Token'] = token
        if body is not None:
            req.body = json.dumps(body).encode()
            req.content_type = 'application/json'
        if raw is not None:
            req.body = raw
        for name, value in (headers or {}).items():
            req.headers[name] = value
        method, path = req.method, req.path_info
        response = req.get_response(self.app)
        conformance.assert_conforms(self.families, method, path, response)
        return Response(response)


def user_headers(project: str = 'demo', user: str = 'demo',
                 roles: str = 'member') -> dict:
    """Identity headers of a non-admin under noauth."""
    return {'X-Project-Id': project, 'X-User-Id': user, 'X-Roles': roles}


class RealServerFixture(fixtures.Fixture):
    """The WSGI app served over HTTP on 127.0.0.1, for real clients.

    Use after ConfFixture, DatabaseFixture and ManagerFixture; ``endpoint``
    is the base URL (``http://127.0.0.1:PORT``). ``build`` is
    api_app.build (every family) or build_placement.
    """

    def __init__(self, build=None):
        super().__init__()
        self.build = build or api_app.build

    def _setUp(self):
        self.server = wsgi.Server(('127.0.0.1', 0), self.build(CONF),
                                  numthreads=4)
        self.server.prepare()
        self.port = self.server.bind_addr[1]
        self.endpoint = 'http://127.0.0.1:%d' % self.port
        thread = threading.Thread(target=self.server.serve, daemon=True,
                                  name='real-server-%d' % self.port)
        thread.start()
        self.addCleanup(thread.join, 10)
        self.addCleanup(self.server.stop)


class EntryPointFixture(fixtures.Fixture):
    """Registers ``name = target`` in the entry point ``group`` for the
    test, as an installed package would: a distribution's metadata on
    sys.path, which importlib.metadata (and so stevedore) reads."""

    def __init__(self, group: str, name: str, target: str):
        super().__init__()
        self.group, self.name, self.target = group, name, target

    def _setUp(self):
        root = self.useFixture(fixtures.TempDir()).path
        info = os.path.join(root, 'blazar_ext_test_plugins-1.0.dist-info')
        os.mkdir(info)
        with open(os.path.join(info, 'METADATA'), 'w') as f:
            f.write('Metadata-Version: 2.1\nName: blazar-ext-test-plugins'
                    '\nVersion: 1.0\n')
        with open(os.path.join(info, 'entry_points.txt'), 'w') as f:
            f.write('[%s]\n%s = %s\n'
                    % (self.group, self.name, self.target))
        # stevedore caches entry points per sys.path (a new path entry is
        # a fresh scan) and per namespace in the process (emptied for the
        # test, so the group is read again before and after).
        self.useFixture(fixtures.MonkeyPatch('sys.path',
                                             [root] + sys.path))
        self.useFixture(fixtures.MonkeyPatch(
            'stevedore.extension.ExtensionManager.ENTRY_POINT_CACHE', {}))
