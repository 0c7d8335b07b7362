"""Real HTTP services on 127.0.0.1 for the enforcement tests."""

import http.server
import json
import threading
import time

import fixtures

from blazar_ext.tests import fixtures as blazar_fixtures

sample_enforcement = blazar_fixtures.tool_module('sample_enforcement')


def _serve(server) -> threading.Thread:
    thread = threading.Thread(target=server.serve_forever, args=(0.05,),
                              daemon=True,
                              name='enforcement-test-%d'
                                   % server.server_address[1])
    thread.start()
    return thread


class SampleServiceFixture(fixtures.Fixture):
    """tools/sample_enforcement.py in a thread; ``url`` and ``calls``."""

    def __init__(self, limits: dict | None = None):
        super().__init__()
        self.limits = limits or {}

    def _setUp(self):
        self.server = sample_enforcement.make_server(
            sample_enforcement.Limits(self.limits))
        self.url = self.server.url
        thread = _serve(self.server)
        self.addCleanup(thread.join, 10)
        self.addCleanup(self.server.server_close)
        self.addCleanup(self.server.shutdown)

    @property
    def calls(self) -> list:
        return self.server.calls


class ScriptedServiceFixture(fixtures.Fixture):
    """A tiny HTTP service answering every POST with ``status``/``body``.

    ``hold`` makes each request wait until the fixture is cleaned up (or
    ``release()``), to play a service that does not answer in time.
    ``client_ports`` records the client port of every request, which tells
    whether connections are reused.
    """

    def __init__(self, status: int = 204, body=None, raw: bytes | None = None,
                 hold: bool = False):
        super().__init__()
        self.status = status
        self.body = body
        self.raw = raw
        self.hold = hold

    def _setUp(self):
        self.requests = []
        self.client_ports = []
        self._released = threading.Event()
        fixture = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'

            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get('Content-Length') or 0)
                body = self.rfile.read(length)
                fixture.requests.append({
                    'path': self.path, 'headers': dict(self.headers),
                    'body': json.loads(body or b'null')})
                fixture.client_ports.append(self.client_address[1])
                if fixture.hold:
                    fixture._released.wait(30)
                if fixture.raw is not None:
                    data = fixture.raw
                elif fixture.body is not None:
                    data = json.dumps(fixture.body).encode()
                else:
                    data = b''
                self.send_response(fixture.status)
                self.send_header('Content-Length', str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                      Handler)
        self.server.daemon_threads = True
        self.url = 'http://127.0.0.1:%d' % self.server.server_address[1]
        thread = _serve(self.server)
        self.addCleanup(thread.join, 10)
        self.addCleanup(self.server.server_close)
        self.addCleanup(self.server.shutdown)
        self.addCleanup(self._released.set)

    def release(self) -> None:
        self._released.set()

    def wait_for_requests(self, count: int, timeout: float = 10.0) -> list:
        """The requests seen, once ``count`` arrived or ``timeout`` passed.

        A client that gave up early (a timeout test) may leave before the
        server thread has even read its request on a loaded machine.
        """
        deadline = time.monotonic() + timeout
        while len(self.requests) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.requests


def closed_port_url() -> str:
    """A URL on 127.0.0.1 where nothing listens (connection refused)."""
    server = http.server.HTTPServer(('127.0.0.1', 0),
                                    http.server.BaseHTTPRequestHandler)
    port = server.server_address[1]
    server.server_close()
    return 'http://127.0.0.1:%d' % port


def make_lease(hosts: int = 1, hours: int = 24, project_id: str = 'p1',
               user_id: str = 'u1') -> dict:
    """A lease dict as the manager hands it to the chain."""
    import datetime
    start = datetime.datetime(2030, 5, 13, 0, 0)
    return {
        'id': 'lease-uuid', 'name': 'lease-1', 'user_id': user_id,
        'project_id': project_id, 'status': 'PENDING',
        'start_date': start,
        'end_date': start + datetime.timedelta(hours=hours),
        'reservations': [{
            'id': 'reservation-uuid', 'resource_type': 'physical:host',
            'min': 1, 'max': hosts, 'hypervisor_properties': '',
            'resource_properties': '["==", "$availability_zone", "az1"]',
            'before_end': 'default',
            'allocations': [
                {'id': i, 'hypervisor_hostname': 'host-%d' % i,
                 'created_at': start,
                 'extra': {'availability_zone': 'az1'}}
                for i in range(1, hosts + 1)],
        }],
    }
