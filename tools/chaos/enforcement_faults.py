#!/usr/bin/env python3
"""The external enforcement service down, slow and answering garbage,
with the real blazar-ext-api and blazar-ext-manager processes.

A scripted service on loopback plays each fault in turn; leases are
created and updated through the API concurrently, once with
[enforcement_external] allow_on_error = false and once with true.

Lost: a create or update slower than the bound (2 x timeout, connect
plus read, plus --slack seconds), a decision other than the one
allow_on_error dictates (201/200 when allowed, 403 when denied), an answer
other than 2xx/403/404/409, a lease left in a transitional status, an
allowed lease without its hosts or a denied one holding any.

    /work/venv/bin/python tools/chaos/enforcement_faults.py \
        [--backend postgresql|mysql] [--timeout 2] [--per-mode 6]
"""

import argparse
import socket
import sys
import threading
import time

import chaoslib

# mode -> (how the service answers, is it an error that allow_on_error
# decides, or a decision of its own: 'allow' / 'deny')
MODES = {
    'ok': 'allow',
    'deny': 'deny',
    'deny-garbage-body': 'deny',
    'refused': 'error',
    'blackhole': 'error',
    'slow': 'error',
    'drip': 'error',
    'drip-headers': 'error',
    'garbage-200': 'error',
    'status-500': 'error',
    'not-http': 'error',
    'reset': 'error',
    'truncated': 'error',
    # A whole status line then the connection closed mid-headers:
    # http.client takes the status as the answer. Noted, not counted.
    'truncated-headers': 'allow',
    'huge-403': 'deny',
}


class FaultyService:
    """An HTTP service on a raw socket, misbehaving as ``mode`` says."""

    def __init__(self, timeout: float):
        self.timeout = timeout
        self.mode = 'ok'
        self.calls = 0
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(('127.0.0.1', 0))
        self.sock.listen(128)
        self.port = self.sock.getsockname()[1]
        self.url = 'http://127.0.0.1:%d' % self.port
        self.stopped = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def stop(self) -> None:
        self.stopped.set()
        self.sock.close()

    def _accept(self) -> None:
        while not self.stopped.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,),
                             daemon=True).start()

    @staticmethod
    def _read_request(conn) -> bool:
        data = b''
        while b'\r\n\r\n' not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return False
            data += chunk
        head, _, body = data.partition(b'\r\n\r\n')
        length = 0
        for line in head.split(b'\r\n'):
            if line.lower().startswith(b'content-length:'):
                length = int(line.split(b':', 1)[1])
        while len(body) < length:
            chunk = conn.recv(65536)
            if not chunk:
                return False
            body += chunk
        return True

    def _serve(self, conn) -> None:
        try:
            with conn:
                while self._read_request(conn):
                    self.calls += 1
                    if not self._answer(conn, self.mode):
                        return
        except OSError:
            pass

    def _answer(self, conn, mode: str) -> bool:
        """Answer one request; False to close the connection."""
        def send(status, body=b'', headers=''):
            conn.sendall(b'HTTP/1.1 %s\r\nContent-Length: %d\r\n%s\r\n'
                         % (status.encode(), len(body), headers.encode())
                         + body)
        if mode == 'ok':
            send('204 No Content')
        elif mode == 'deny':
            send('403 Forbidden', b'{"message": "chaos says no"}',
                 'Content-Type: application/json\r\n')
        elif mode == 'deny-garbage-body':
            send('403 Forbidden', b'\xff\xfe<html>{{{', '')
        elif mode == 'huge-403':
            send('403 Forbidden', b'{"message": "%s"}' % (b'x' * 2000000),
                 'Content-Type: application/json\r\n')
        elif mode == 'blackhole':
            self.stopped.wait(self.timeout * 10)
            return False
        elif mode == 'slow':
            self.stopped.wait(self.timeout + 2)
            send('204 No Content')
        elif mode == 'drip':
            # Headers at once, then a body a byte at a time, each byte
            # well within the timeout, the whole far beyond it.
            body = b'{"message": "slow drip"}'
            conn.sendall(b'HTTP/1.1 403 Forbidden\r\nContent-Length: %d\r\n'
                         b'\r\n' % len(body))
            for byte in body:
                if self.stopped.wait(self.timeout / 3):
                    return False
                conn.sendall(bytes([byte]))
            return False
        elif mode == 'drip-headers':
            head = (b'HTTP/1.1 204 No Content\r\nX-A: ' + b'a' * 30 +
                    b'\r\nContent-Length: 0\r\n\r\n')
            for byte in head:
                if self.stopped.wait(self.timeout / 3):
                    return False
                conn.sendall(bytes([byte]))
            return False
        elif mode == 'garbage-200':
            send('200 OK', b'<html>not json</html>')
        elif mode == 'status-500':
            send('500 Internal Server Error', b'Traceback...')
        elif mode == 'not-http':
            conn.sendall(b'SSH-2.0-OpenSSH_9.0\r\n\x00\x01\x02')
            return False
        elif mode == 'reset':
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                            b'\x01\x00\x00\x00\x00\x00\x00\x00')
            return False
        elif mode == 'truncated':
            conn.sendall(b'HTTP/1.1 20')
            return False
        elif mode == 'truncated-headers':
            conn.sendall(b'HTTP/1.1 204 No Content\r\nContent-Le')
            return False
        return True


def run(backend: str, allow_on_error: bool, timeout: float, per_mode: int,
        slack: float, seed: int) -> int:
    reason = chaoslib.skip_reason(backend)
    if reason:
        print('SKIP %s: %s' % (backend, reason))
        return 2
    service = FaultyService(timeout)
    refused_url = 'http://127.0.0.1:%d' % _closed_port()
    extra = ('[enforcement]\nenabled_filters = ExternalServiceFilter\n'
             '[enforcement_external]\nendpoint_url = %s\ntimeout = %s\n'
             'allow_on_error = %s\ntoken = chaos-token\n'
             % (service.url, timeout, allow_on_error))
    # 'refused' needs an endpoint where nothing listens: a second pair of
    # processes would cost more than pointing one manager there.
    bound = 2 * timeout + slack
    lost = []
    thrown = []
    with chaoslib.Deployment(backend, managers=2, apis=2,
                             extra_config=extra,
                             rpc_timeout=60) as deployment:
        load = chaoslib.Load(deployment.endpoints, seed=seed,
                             request_timeout=120)
        for n in range(per_mode):
            status, _ = load.request('POST', '/v1/os-hosts',
                                     {'name': 'enf-host-%d' % n})
            assert status == 201, status
        # A PENDING lease to update in every mode, made while the
        # service approves.
        service.mode = 'ok'
        targets = [load.create('enf-target-%d' % n, chaoslib.date(60),
                               chaoslib.date(90)) for n in range(per_mode)]
        assert all(targets), load.bad
        slot = iter(range(10000))
        for mode, kind in MODES.items():
            if mode == 'refused':
                # Nothing listens: every manager points at a closed port.
                _restart_managers(deployment, extra.replace(
                    service.url, refused_url))
            service.mode = mode
            expect = {'allow': (201, 200), 'deny': (403, 403),
                      'error': ((201, 200) if allow_on_error
                                else (403, 403))}[kind]
            results = []
            lock = threading.Lock()

            def one(n):
                # Each lease its own window: only enforcement decides.
                start = 120 + 120 * next(slot)
                began = time.monotonic()
                status, data = load.request(
                    'POST', '/v1/leases',
                    {'name': 'enf-%s-%d' % (mode, n),
                     'start_date': chaoslib.date(start),
                     'end_date': chaoslib.date(start + 60),
                     'reservations': [chaoslib.host_spec()],
                     'events': []})
                created = time.monotonic() - began
                lease_id = data.get('lease', {}).get('id') if data else None
                if status == 201:
                    with load.lock:
                        load.created.add(lease_id)
                began = time.monotonic()
                update, _ = load.update(targets[n]['id'],
                                        {'name': 'enf-%s-%d' % (mode, n)})
                updated = time.monotonic() - began
                with lock:
                    results.append((status, created, update, updated))

            chaoslib.run_threads(per_mode, one)
            if mode == 'refused':
                _restart_managers(deployment, extra)
            creates = sorted(r[0] for r in results)
            updates = sorted(r[2] for r in results)
            slowest = max(max(r[1], r[3]) for r in results)
            thrown.append('%-18s creates %s updates %s slowest %.2fs'
                          % (mode, _counts(creates), _counts(updates),
                             slowest))
            if any(s != expect[0] for s in creates):
                lost.append('%s: creates answered %s, want all %d'
                            % (mode, _counts(creates), expect[0]))
            if any(s != expect[1] for s in updates):
                lost.append('%s: updates answered %s, want all %d'
                            % (mode, _counts(updates), expect[1]))
            if slowest > bound:
                lost.append('%s: a call took %.1fs, bound %.1fs (timeout '
                            '%ss)' % (mode, slowest, bound, timeout))
        service.stop()
        lost += (chaoslib.bad_answers(load) +
                 chaoslib.service_state(deployment))
        thrown.append('leases afterwards: %s'
                      % chaoslib.lease_statuses(deployment))
        thrown.append('service calls: %d' % service.calls)
    return chaoslib.report(
        'Enforcement service faults on %s, allow_on_error=%s, timeout %ss '
        '(bound %.1fs), %d creates + %d updates per mode, 2 APIs, '
        '2 managers' % (backend, allow_on_error, timeout, bound, per_mode,
                        per_mode), thrown, lost)


def _counts(values) -> str:
    out = {}
    for value in values:
        out[value] = out.get(value, 0) + 1
    return ' '.join('%s:%d' % kv for kv in sorted(out.items(), key=str))


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def _restart_managers(deployment, extra: str) -> None:
    """Rewrite the configuration and restart every manager with it."""
    with open(deployment.config_file) as f:
        text = f.read()
    head = text[:text.index('[enforcement]')]
    with open(deployment.config_file, 'w') as f:
        f.write(head + extra)
    for index, manager in enumerate(deployment.managers):
        manager.stop()
        deployment.managers[index] = deployment.start_manager(manager.name)
    deployment.wait_managers()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--backend', default='postgresql',
                        choices=('mysql', 'postgresql'))
    parser.add_argument('--timeout', type=float, default=2.0)
    parser.add_argument('--per-mode', type=int, default=6)
    parser.add_argument('--slack', type=float, default=3.0)
    parser.add_argument('--allow-on-error', choices=('true', 'false',
                                                     'both'),
                        default='both')
    parser.add_argument('--seed', type=int, default=1)
    args = parser.parse_args()
    choices = {'true': [True], 'false': [False],
               'both': [False, True]}[args.allow_on_error]
    results = [run(args.backend, allow, args.timeout, args.per_mode,
                   args.slack, args.seed) for allow in choices]
    return 1 if 1 in results else (2 if 2 in results else 0)


if __name__ == '__main__':
    sys.exit(main())
