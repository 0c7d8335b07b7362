#!/usr/bin/env python3
"""A small usage enforcement service, as an example to start from.

It implements the HTTP interface ExternalServiceFilter calls (POST
/v1/check-create, /v1/check-update, /v1/on-end) with per-project limits read
from a YAML file::

    # Optional: requests must carry this X-Auth-Token (else 401).
    token: s3cret
    # Limits for projects not listed below; omit a key for no limit.
    default:
      max_hosts: 4        # hosts allocated to one lease
      max_hours: 168      # length of one lease
    projects:
      a0b86a98-b0d3-43cb-948e-00689182efd4:
        max_hosts: 1
        max_hours: 24

Run it with ``python tools/sample_enforcement.py --config limits.yaml
--port 8090`` and set ``[enforcement_external] endpoint_url =
http://127.0.0.1:8090``. It is an example to start from, not a production
service: it keeps no state and checks each lease on its own.
"""

import argparse
import datetime
import http.server
import json
import logging
import sys
import threading

import yaml

LOG = logging.getLogger('blazar-ext-sample-enforcement')

PATHS = ('/v1/check-create', '/v1/check-update', '/v1/on-end')


class Limits:
    """Per-project limits from the YAML document."""

    def __init__(self, doc: dict | None):
        doc = doc or {}
        if not isinstance(doc, dict):
            raise ValueError('the limits file must hold a mapping')
        self.token = doc.get('token')
        self.default = dict(doc.get('default') or {})
        self.projects = {str(k): dict(v or {})
                         for k, v in (doc.get('projects') or {}).items()}

    @classmethod
    def from_file(cls, path: str) -> 'Limits':
        with open(path) as f:
            return cls(yaml.safe_load(f))

    def for_project(self, project_id: str | None) -> dict:
        limits = dict(self.default)
        limits.update(self.projects.get(str(project_id), {}))
        return limits


def _parse_date(value) -> datetime.datetime | None:
    try:
        return datetime.datetime.fromisoformat(str(value).strip())
    except ValueError:
        return None


def count_hosts(lease: dict) -> int:
    """Hosts allocated to the lease (or requested, before allocation)."""
    total = 0
    for reservation in lease.get('reservations') or []:
        if reservation.get('resource_type') != 'physical:host':
            continue
        allocations = reservation.get('allocations') or []
        total += len(allocations) or int(reservation.get('max') or 0)
    return total


def lease_hours(lease: dict) -> float | None:
    start = _parse_date(lease.get('start_date'))
    end = _parse_date(lease.get('end_time', lease.get('end_date')))
    if start is None or end is None:
        return None
    return (end - start).total_seconds() / 3600.0


def check(limits: Limits, context: dict, lease: dict) -> str | None:
    """The reason to deny the lease, or None to allow it."""
    project = (context or {}).get('project_id')
    mine = limits.for_project(project)
    max_hosts = mine.get('max_hosts')
    if max_hosts is not None:
        hosts = count_hosts(lease)
        if hosts > int(max_hosts):
            return ('Your project is limited to reserving %d physical '
                    'host%s per lease; this lease has %d.'
                    % (int(max_hosts), '' if int(max_hosts) == 1 else 's',
                       hosts))
    max_hours = mine.get('max_hours')
    if max_hours is not None:
        hours = lease_hours(lease)
        if hours is not None and hours > float(max_hours):
            return ('Your lease exceeds the maximum length of %g hours '
                    '(it lasts %g hours).' % (float(max_hours),
                                              round(hours, 2)))
    return None


class EnforcementHandler(http.server.BaseHTTPRequestHandler):
    """One request; the server carries ``limits`` and ``calls``."""

    protocol_version = 'HTTP/1.1'  # keep-alive, as the filter reuses them
    # Answers are a few bytes: send them now rather than wait for an ACK.
    disable_nagle_algorithm = True
    server_version = 'blazar-ext-sample-enforcement'

    def log_message(self, fmt, *args):
        LOG.info('%s %s', self.address_string(), fmt % args)

    def _reply(self, status: int, body: dict | None = None) -> None:
        data = json.dumps(body).encode() if body is not None else b''
        self.send_response(status)
        if data:
            self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        if data:
            self.wfile.write(data)

    def do_GET(self):
        if self.path == '/healthcheck':
            return self._reply(200, {'status': 'ok'})
        self._reply(404, {'message': 'Not found.'})

    def do_POST(self):
        length = int(self.headers.get('Content-Length') or 0)
        raw = self.rfile.read(length) if length else b''
        if self.path not in PATHS:
            return self._reply(404, {'message': 'Not found.'})
        limits = self.server.limits
        if limits.token and self.headers.get('X-Auth-Token') != limits.token:
            return self._reply(401, {'message': 'Invalid token.'})
        try:
            body = json.loads(raw or b'{}')
            if not isinstance(body, dict):
                raise ValueError('the body must be a JSON object')
        except ValueError as exc:
            return self._reply(400, {'message': 'Bad JSON: %s' % exc})
        self.server.record(self.path, body, dict(self.headers))
        if self.path == '/v1/on-end':
            return self._reply(204)
        reason = check(limits, body.get('context'), body.get('lease') or {})
        if reason:
            return self._reply(403, {'message': reason})
        self._reply(204)


class EnforcementServer(http.server.ThreadingHTTPServer):
    """The sample service; ``calls`` lists every decision request."""

    daemon_threads = True

    def __init__(self, address, limits: Limits):
        super().__init__(address, EnforcementHandler)
        self.limits = limits
        self.calls = []
        self._calls_lock = threading.Lock()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return 'http://%s:%d' % (host, port)

    def record(self, path: str, body: dict, headers: dict) -> None:
        with self._calls_lock:
            self.calls.append({'path': path, 'body': body,
                               'headers': headers})


def make_server(limits: Limits, host: str = '127.0.0.1',
                port: int = 0) -> EnforcementServer:
    """A bound server (port 0 picks a free one); call serve_forever()."""
    return EnforcementServer((host, port), limits)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog='blazar-ext-sample-enforcement',
        description='Sample usage enforcement service for blazar_ext.')
    parser.add_argument('--config', required=True,
                        help='YAML file with per-project limits.')
    parser.add_argument('--host', default='127.0.0.1',
                        help='Address to listen on (default 127.0.0.1).')
    parser.add_argument('--port', type=int, default=8090,
                        help='Port to listen on (default 8090).')
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO,
                        format='%(asctime)s %(levelname)s %(message)s')
    try:
        limits = Limits.from_file(args.config)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        print('Cannot read %s: %s' % (args.config, exc), file=sys.stderr)
        return 2
    server = make_server(limits, args.host, args.port)
    LOG.info('Listening on %s', server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == '__main__':
    sys.exit(main())
