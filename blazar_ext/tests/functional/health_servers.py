"""Small real HTTP servers answering as Nova's and Ironic's APIs do, for
the health sources' tests. Tests flip hosts up and down in ``state``."""

import http.server
import json
import threading
from urllib import parse

import fixtures


class _Handler(http.server.BaseHTTPRequestHandler):

    def log_message(self, *args):  # quiet test output
        pass

    def do_GET(self):
        url = parse.urlsplit(self.path)
        status, body = self.server.answer(url.path,
                                          parse.parse_qs(url.query),
                                          self.headers)
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class FakeServiceFixture(fixtures.Fixture):
    """A threaded HTTP server on 127.0.0.1; ``endpoint`` is its URL."""

    def _setUp(self):
        self.requests = []
        self.failing = False
        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                      _Handler)
        self.server.answer = self._answer
        self.endpoint = 'http://127.0.0.1:%d' % self.server.server_port
        thread = threading.Thread(target=self.server.serve_forever,
                                  daemon=True)
        thread.start()
        self.addCleanup(thread.join)
        self.addCleanup(self.server.server_close)
        self.addCleanup(self.server.shutdown)

    def _answer(self, path: str, query: dict, headers) -> tuple:
        self.requests.append((path, query, dict(headers)))
        if self.failing:
            return 500, {'error': 'the service is broken'}
        return self.answer(path, query, headers)

    def answer(self, path, query, headers) -> tuple:
        return 404, {'error': 'not found'}


class FakeNova(FakeServiceFixture):
    """GET /os-services?binary=nova-compute and /os-hypervisors/detail
    (microversion 2.1 shapes). ``state[name]`` holds a compute host's
    service and hypervisor fields."""

    def _setUp(self):
        self.state = {}
        super()._setUp()

    def add(self, name: str) -> None:
        self.state[name] = {'service_state': 'up',
                            'service_status': 'enabled',
                            'forced_down': False, 'disabled_reason': None,
                            'state': 'up', 'status': 'enabled'}

    def answer(self, path, query, headers):
        if path == '/os-services':
            binary = query.get('binary', [None])[0]
            return 200, {'services': [
                {'id': i + 1, 'binary': 'nova-compute', 'host': name,
                 'zone': 'nova', 'state': s['service_state'],
                 'status': s['service_status'],
                 'disabled_reason': s['disabled_reason'],
                 'forced_down': s['forced_down'],
                 'updated_at': '2026-11-23T11:00:00.000000'}
                for i, (name, s) in enumerate(sorted(self.state.items()))
                if binary in (None, 'nova-compute')]}
        if path == '/os-hypervisors/detail':
            return 200, {'hypervisors': [
                {'id': i + 1, 'hypervisor_hostname': name,
                 'state': s['state'], 'status': s['status'],
                 'hypervisor_type': 'QEMU', 'vcpus': 8,
                 'service': {'host': name, 'id': i + 1,
                             'disabled_reason': s['disabled_reason']}}
                for i, (name, s) in enumerate(sorted(self.state.items()))]}
        return 404, {'itemNotFound': {'code': 404,
                                      'message': 'no route %s' % path}}


class FakeIronic(FakeServiceFixture):
    """GET /v1/nodes?fields=... with ``limit``/``marker`` pagination and
    ``next`` links, as Ironic answers at microversion 1.8 or later."""

    PAGE = 2

    def _setUp(self):
        self.state = {}
        super()._setUp()

    def add(self, name: str, uuid: str) -> None:
        self.state[name] = {'uuid': uuid, 'name': name, 'maintenance': False,
                            'maintenance_reason': None,
                            'provision_state': 'available',
                            'power_state': 'power off'}

    def answer(self, path, query, headers):
        version = headers.get('X-OpenStack-Ironic-API-Version', '1.1')
        if path != '/v1/nodes':
            return 404, {'error_message': 'no route %s' % path}
        if tuple(int(p) for p in version.split('.')) < (1, 8):
            return 406, {'error_message': 'fields needs version 1.8'}
        fields = query.get('fields', [''])[0].split(',')
        nodes = sorted(self.state.values(), key=lambda n: n['uuid'])
        marker = query.get('marker', [None])[0]
        if marker:
            nodes = [n for n in nodes if n['uuid'] > marker]
        page = nodes[:self.PAGE]
        body = {'nodes': [{k: v for k, v in n.items() if k in fields}
                          for n in page]}
        if len(nodes) > self.PAGE:
            body['next'] = '%s/v1/nodes?%s' % (self.endpoint, parse.urlencode(
                {'fields': ','.join(fields), 'limit': self.PAGE,
                 'marker': page[-1]['uuid']}))
        return 200, body
