#!/usr/bin/env python3
"""What a WSGI server costs a small request, before any application work.

    python tools/bench/servers.py [--venv DIR] [--turns 8] [--block 250]

A WSGI application that answers a constant 153-byte JSON document is served
by cheroot (blazar_ext's server, 16 threads), waitress (16 threads),
gunicorn (one gthread worker, 16 threads) and granian (Rust, one WSGI
worker, 16 blocking threads), each in a process of its own, beside a
minimal socket server that sends the same bytes (tools/bench/floor.py's
floor), in a process of its own too. One keep-alive client asks each
``--block`` requests in turn, ``--turns`` times (the first turn warms
up); the bench prints each server's median and the server process's
CPU per request (Linux schedstat, threads and worker processes summed).

The servers other than cheroot are installed in ``--venv`` (made if
absent, from the package index) so that blazar_ext's environment is
left as it is. It tells how much of a small request's time through the
all-in-one is the server's, and what a target such as "1.5 times the
floor" leaves to the application.
"""

import argparse
import http.client
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

BODY = b'{"versions": [{"id": "v1.0", "status": "CURRENT"}]}' * 3
APP = '''BODY = %r


def app(environ, start_response):
    start_response('200 OK', [('Content-Type', 'application/json'),
                              ('Content-Length', str(len(BODY)))])
    return [BODY]
''' % BODY
PACKAGES = ('cheroot', 'waitress', 'gunicorn', 'granian')


def ensure_venv(venv: str) -> str:
    """The venv's bin directory, with PACKAGES installed."""
    bin_dir = os.path.join(venv, 'bin')
    if not os.path.exists(os.path.join(bin_dir, 'granian')):
        subprocess.check_call([sys.executable, '-m', 'venv', venv])
        subprocess.check_call([os.path.join(bin_dir, 'pip'), 'install',
                               '-q'] + list(PACKAGES))
    return bin_dir


def commands(bin_dir: str, ports: dict) -> dict:
    """{server: argv} serving hello_app:app on its port."""
    return {
        'cheroot': [os.path.join(bin_dir, 'python'), '-c',
                    'from cheroot import wsgi; import hello_app; '
                    'wsgi.Server(("127.0.0.1", %d), hello_app.app, '
                    'numthreads=16).start()' % ports['cheroot']],
        'waitress': [os.path.join(bin_dir, 'waitress-serve'),
                     '--listen=127.0.0.1:%d' % ports['waitress'],
                     '--threads=16', 'hello_app:app'],
        'gunicorn gthread': [os.path.join(bin_dir, 'gunicorn'), '-b',
                             '127.0.0.1:%d' % ports['gunicorn gthread'],
                             '-w', '1', '-k', 'gthread', '--threads', '16',
                             'hello_app:app'],
        'granian': [os.path.join(bin_dir, 'granian'), '--interface', 'wsgi',
                    '--host', '127.0.0.1', '--port',
                    str(ports['granian']), '--workers', '1',
                    '--blocking-threads', '16', 'hello_app:app'],
    }


def serve_raw(listener: socket.socket) -> None:
    """The floor: read each request's head, send the same bytes."""
    response = (b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n'
                b'Content-Length: %d\r\n\r\n%s' % (len(BODY), BODY))
    while True:
        client, _ = listener.accept()
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        buffered = b''
        with client:
            while True:
                chunk = client.recv(65536)
                if not chunk:
                    break
                buffered += chunk
                while b'\r\n\r\n' in buffered:
                    _head, buffered = buffered.split(b'\r\n\r\n', 1)
                    client.sendall(response)


def cpu_ms(pid: int) -> float:
    """CPU the process and its children have run, in ms."""
    total = 0
    for one in [pid] + _children(pid):
        try:
            for task in os.listdir('/proc/%d/task' % one):
                with open('/proc/%d/task/%s/schedstat' % (one, task)) as f:
                    total += int(f.read().split()[0])
        except OSError:
            pass
    return total / 1e6


def _children(pid: int) -> list:
    try:
        with open('/proc/%d/task/%d/children' % (pid, pid)) as f:
            direct = [int(c) for c in f.read().split()]
    except OSError:
        return []
    return direct + [g for c in direct for g in _children(c)]


def stop(processes) -> None:
    """SIGTERM, so that gunicorn and granian stop their worker processes
    too; SIGKILL after 10 s."""
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def wait_answering(port: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection('127.0.0.1', port, timeout=2)
            conn.request('GET', '/')
            conn.getresponse().read()
            conn.close()
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit('no answer on port %d' % port)


def measure(ports: dict, pids: dict, turns: int, block: int) -> dict:
    """{server: (median ms, CPU ms per request or None)}."""
    conns = {name: http.client.HTTPConnection('127.0.0.1', port)
             for name, port in ports.items()}
    times: dict = {name: [] for name in ports}
    cpu: dict = {name: 0.0 for name in ports}
    for turn in range(turns):
        for name, conn in conns.items():
            before = cpu_ms(pids[name]) if name in pids else 0.0
            for _ in range(block):
                start = time.perf_counter()
                conn.request('GET', '/')
                conn.getresponse().read()
                if turn:
                    times[name].append(time.perf_counter() - start)
            if turn and name in pids:
                cpu[name] += cpu_ms(pids[name]) - before
    return {name: (statistics.median(t) * 1000,
                   cpu[name] / len(t) if name in pids else None)
            for name, t in times.items()}


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == '--serve-raw':
        serve_raw(socket.create_server(('127.0.0.1', int(sys.argv[2]))))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--venv', default=os.path.join(
        tempfile.gettempdir(), 'blazar-ext-bench-servers'))
    parser.add_argument('--turns', type=int, default=8)
    parser.add_argument('--block', type=int, default=250)
    args = parser.parse_args()
    bin_dir = ensure_venv(args.venv)
    workdir = tempfile.mkdtemp(prefix='bench-servers-')
    with open(os.path.join(workdir, 'hello_app.py'), 'w') as f:
        f.write(APP)
    names = ('floor (socket)', 'cheroot', 'waitress', 'gunicorn gthread',
             'granian')
    ports = {name: free_port() for name in names}
    argvs = commands(bin_dir, ports)
    argvs['floor (socket)'] = [sys.executable, os.path.abspath(__file__),
                               '--serve-raw', str(ports['floor (socket)'])]
    processes = {}
    try:
        for name in names:
            argv = argvs[name]
            processes[name] = subprocess.Popen(
                argv, cwd=workdir, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL)
        for name in names:
            wait_answering(ports[name])
        results = measure(ports, {n: p.pid for n, p in processes.items()},
                          args.turns, args.block)
    finally:
        stop(processes.values())
    floor_ms = results['floor (socket)'][0]
    print('%d turns of %d requests each (the first warms up), one '
          'keep-alive client; load average %.2f'
          % (args.turns, args.block, os.getloadavg()[0]))
    print('%-18s %9s %8s %14s'
          % ('server', 'median ms', '/ floor', 'CPU ms/request'))
    for name, (ms, cpu) in results.items():
        print('%-18s %9.3f %7.2fx %14s' % (
            name, ms, ms / floor_ms, '-' if cpu is None else '%.3f' % cpu))
    return 0


if __name__ == '__main__':
    sys.exit(main())
