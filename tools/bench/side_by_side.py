#!/usr/bin/env python3
"""blazar_ext and upstream Blazar 18.0.0 side by side, on the same data.

    python tools/bench/side_by_side.py [--sizes 1000,10000] [--ext-only 50000]
        [--reps 5] [--upstream-reps 3] [--upstream-reps-large 3] [--block 1]
        [--upstream-timeout SECONDS] [--concurrency 20]
        [--database URL_PREFIX] [--workdir DIR]
        [--operations create_eq,...,leases] [--reuse EXT_URL UP_URL]

For each size both sides get the hosts of tools/bench/seed.py (20 extra
capabilities each) and ten one-day reservations per host (two at 50,000;
one lease each; the first ``size`` leases belong to project 'lister'),
on SQLite files by default (kept, for ``--reuse``). blazar_ext runs in
process as the all-in-one does; upstream runs in process in one
long-lived worker of its own venv (tools/bench/upstream.py;
$BLAZAR_EXT_UPSTREAM_VENV, else .blazar-venv, made by
tools/blazar/setup-venv.sh). For lease create (equality and numeric), GET
/v1/os-hosts, GET /v1/os-hosts/properties?detail=true and GET /v1/leases
(as 'lister') the two sides' repetitions alternate (ours, upstream,
ours, ...; in turns of ``--block`` each) so both see the same load;
each operation prints both medians, the ratio and the 1-minute load
average seen meanwhile. An upstream
request still unanswered after ``--upstream-timeout`` seconds is stopped
and its figure printed as a lower bound ('>'). Then 8 clients for
``--concurrency`` seconds per side, in two alternating turns, against
blazar-ext-api --workers 2 and upstream's API (one process, as its
blazar-api runs).

``--database`` takes a server URL without a database name
(mysql+pymysql://root@127.0.0.1, postgresql://postgres@127.0.0.1); each
side and size gets a fresh database on it, left in place afterwards
(bench_<side>_<size>_<random>).
"""

import argparse
import concurrent.futures
import contextlib
import datetime
import json
import os
import select
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import requests
import sqlalchemy as sa
import webob

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lease_import  # noqa: E402
import seed  # noqa: E402

from blazar_ext.api import app as api_app  # noqa: E402
from blazar_ext import conf as blazar_conf  # noqa: E402
from blazar_ext import context as blazar_context  # noqa: E402
from blazar_ext.db.api import capability as capability_api  # noqa: E402
from blazar_ext.db import migration  # noqa: E402
from blazar_ext.db.models import host as host_models  # noqa: E402
from blazar_ext.db import session as db_session  # noqa: E402
from blazar_ext.manager import service  # noqa: E402
from blazar_ext.query import language  # noqa: E402
from blazar_ext import rpc  # noqa: E402
from blazar_ext.rpc import manager_client  # noqa: E402

CONF = blazar_conf.CONF
# Upstream takes minutes for these: --upstream-reps of them.
LONG = ('create_eq', 'create_num', 'hosts')
FMT = '%Y-%m-%d %H:%M'
BASE = '2031-01-01 00:00'
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
ADMIN = {'X-Auth-Token': 'admin'}
LISTER = {'X-User-Id': 'lister', 'X-Project-Id': 'lister',
          'X-Roles': 'member,reader'}
OPERATIONS = (
    ('create_eq', 'POST /v1/leases %s' % seed.EQUALITY),
    ('create_num', 'POST /v1/leases %s' % seed.NUMERIC),
    ('hosts', 'GET /v1/os-hosts'),
    ('properties', 'GET /v1/os-hosts/properties?detail=true'),
    ('leases', 'GET /v1/leases (lister: as many leases as hosts)'),
)


UPSTREAM_PY = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           'upstream.py')


def upstream_python() -> str:
    venv = os.environ.get('BLAZAR_EXT_UPSTREAM_VENV',
                          os.path.join(ROOT, '.blazar-venv'))
    return os.path.join(venv, 'bin', 'python')


def database_url(prefix: str | None, side: str, size: int,
                 tmp: str) -> str:
    """A fresh database for one side and size."""
    if not prefix:
        path = os.path.join(tmp, '%s-%d.sqlite' % (side, size))
        if os.path.exists(path):  # an earlier run's, kept for --reuse
            path = os.path.join(tmp, '%s-%d-%s.sqlite' % (
                side, size, uuid.uuid4().hex[:6]))
        return 'sqlite:///%s' % path
    name = 'bench_%s_%d_%s' % (side, size, uuid.uuid4().hex[:6])
    engine = sa.create_engine(prefix + '/', isolation_level='AUTOCOMMIT')
    with engine.connect() as conn:
        conn.execute(sa.text('CREATE DATABASE %s' % name))
    engine.dispose()
    suffix = '?charset=utf8mb4' if prefix.startswith('mysql') else ''
    return '%s/%s%s' % (prefix, name, suffix)


# --- blazar_ext's side ------------------------------------------------------

def ext_configure(url: str):
    CONF([], project='blazar-ext', default_config_files=[])
    CONF.set_override('auth_strategy', 'noauth', group='api')
    CONF.set_override('transport_url', 'fake:/')
    CONF.set_override('event_interval', 3600, group='manager')
    CONF.set_override('connection', url, group='database')
    engine = service_engine(url)
    migration.upgrade('head', engine)
    return engine, db_session.context_manager.patch_engine(engine)


def service_engine(url: str) -> sa.engine.Engine:
    """An engine for ``url`` made as the service makes its own: oslo.db's
    events (SQLite: foreign keys, a BEGIN for every transaction, readers
    included) and db.session's pool. A plain sa.create_engine had none of
    them, and the in-process benches measured reads that were not one
    transaction."""
    manager = db_session.context_manager.make_new_manager()
    manager.configure(connection=url)
    return manager.writer.get_engine()


def ext_seed(hosts: int, per_host: int, listed: int,
             base: datetime.datetime) -> None:
    context = blazar_context.get_admin_context()
    ids = {name: str(uuid.uuid4()) for name in seed.CAPABILITY_NAMES}
    with db_session.writer.using(context) as session:
        session.execute(sa.insert(host_models.ExtraCapability), [
            {'id': cap_id, 'resource_type': 'physical:host',
             'capability_name': name, 'private': False}
            for name, cap_id in ids.items()])
    for start in range(1, hosts + 1, 2000):
        rows, values = [], []
        for i in range(start, min(hosts, start + 1999) + 1):
            rows.append(dict(seed.host_columns(i), id=str(i), reservable=True,
                             disabled=False, availability_zone='nova'))
            for name, value in seed.capabilities(i).items():
                values.append({'id': str(uuid.uuid4()),
                               'computehost_id': str(i),
                               'capability_id': ids[name],
                               'capability_value': value,
                               'capability_number':
                                   language.number_of(value)})
        with db_session.writer.using(context) as session:
            session.execute(sa.insert(host_models.ComputeHost), rows)
            session.execute(
                sa.insert(host_models.ComputeHostExtraCapability), values)
    with db_session.writer.using(context) as session:
        capability_api.fill_values(session, 'physical:host')
    batch, n = [], 0
    for i in range(1, hosts + 1):
        for start, end in seed.reservation_windows(i, per_host, base):
            batch.append({'name': 'existing-%d' % n,
                          'project_id': 'lister' if n < listed else 'bench',
                          'user_id': 'lister' if n < listed else 'bench',
                          'host_id': str(i), 'start_date': start,
                          'end_date': end})
            n += 1
        if len(batch) >= 20000:
            lease_import.bulk_import(context, batch)
            batch = []
    if batch:
        lease_import.bulk_import(context, batch)


def call(app, method: str, path: str, headers: dict, body=None):
    req = webob.Request.blank(path, method=method, headers=headers)
    if body is not None:
        req.body = json.dumps(body).encode()
        req.content_type = 'application/json'
    resp = req.get_response(app)
    body = resp.body  # the whole streamed body
    if resp.status_int >= 400:
        raise RuntimeError('blazar_ext answered %s: %s'
                           % (resp.status, body[:500]))
    return body


def ext_operation(app, kind: str, base: datetime.datetime, tag: str):
    """The request ``kind`` names, as a function of the repetition number
    (the same requests as upstream.operation())."""
    headers = {'admin': ADMIN, 'lister': LISTER}

    def one(n):
        method, path, who, body = seed.request(kind, n, base, tag)
        return call(app, method, path, headers[who], body)
    return one


@contextlib.contextmanager
def ext_app(url: str):
    """blazar_ext's API app and manager in process on ``url`` (migrated
    to head first)."""
    engine, restore = ext_configure(url)
    rpc.cleanup()
    manager_client.reset_client()
    manager = service.ManagerService()
    manager.start()
    manager_client.serve_locally(manager.endpoint)
    try:
        yield api_app.build(CONF)
    finally:
        manager.stop()
        rpc.cleanup()
        manager_client.reset_client()
        restore()
        engine.dispose()
        CONF.reset()


def ext_seed_side(url: str, size: int, per_host: int,
                  base: datetime.datetime) -> float:
    """Seed blazar_ext's database; the seconds it took."""
    engine, restore = ext_configure(url)
    try:
        t = time.perf_counter()
        ext_seed(size, per_host, size, base)
        return time.perf_counter() - t
    finally:
        restore()
        engine.dispose()
        CONF.reset()


# --- upstream's side --------------------------------------------------------

def upstream(action: str, url: str, *args) -> dict:
    out = subprocess.run(
        [upstream_python(), UPSTREAM_PY, action,
         '--database', url, '--base', BASE] + [str(a) for a in args],
        capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError('upstream.py %s failed:\n%s' % (
            action, out.stderr[-3000:]))
    return json.loads(out.stdout.strip().splitlines()[-1])


class Upstream:
    """Upstream in one long-lived process of its venv (upstream.py
    worker), asked one request at a time so that its repetitions
    alternate with blazar_ext's. A request still unanswered after
    ``timeout`` seconds is stopped by ending that process; the next
    request starts another."""

    def __init__(self, url: str, timeout: float | None, log: str):
        self.url, self.timeout, self.log = url, timeout, log
        self.process = None

    def _start(self) -> None:
        with open(self.log, 'a') as log:
            self.process = subprocess.Popen(
                [upstream_python(), UPSTREAM_PY, 'worker',
                 '--database', self.url, '--base', BASE],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                text=True)
        if self._answer(600) != 'ready':
            self.close()
            raise RuntimeError('upstream.py worker did not start; see %s'
                               % self.log)

    def _answer(self, timeout: float | None, loads: list | None = None):
        """The worker's next line, or None after ``timeout`` seconds;
        samples the load average every 10 s meanwhile."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = 10 if deadline is None else min(
                10, deadline - time.monotonic())
            if left <= 0:
                return None
            ready, _w, _x = select.select([self.process.stdout], [], [],
                                          left)
            if ready:
                line = self.process.stdout.readline()
                if not line:
                    raise RuntimeError('upstream.py worker exited; see %s'
                                       % self.log)
                return line.strip()
            if loads is not None:
                loads.append(os.getloadavg()[0])

    def ask(self, kind: str, n: int, tag: str, loads: list):
        """Upstream's seconds for request ``n`` of ``kind``, or None when
        it outlasted the cap (the worker is then ended)."""
        if self.process is None:
            self._start()
        self.process.stdin.write(json.dumps(
            {'op': kind, 'n': n, 'tag': tag}) + '\n')
        self.process.stdin.flush()
        line = self._answer(self.timeout, loads)
        if line is None:
            self.close()
            return None
        answer = json.loads(line)
        if answer['status'] >= 400:
            raise RuntimeError('upstream answered %s: %s'
                               % (answer['status'], answer['error']))
        return answer['seconds']

    def close(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


def alternate(ext_fn, up: Upstream | None, kind: str, reps: int,
              up_reps: int, tag: str, block: int = 1) -> dict:
    """``reps`` of blazar_ext and ``up_reps`` of upstream, in turns of
    ``block`` each (ours, upstream, ours, ...), so both see the same load.
    Once upstream outlasts its cap, its repetitions of ``kind`` stop and
    its figure is the median with the cap in place of the unanswered one:
    a lower bound ('capped')."""
    ext_times, up_times, loads = [], [], [os.getloadavg()[0]]
    capped = False
    turns = max(reps, up_reps if up else 0)
    for turn in range(0, turns, block):
        for n in range(turn, min(turn + block, reps)):
            t = time.perf_counter()
            ext_fn(n)
            ext_times.append(time.perf_counter() - t)
            loads.append(os.getloadavg()[0])
        for n in range(turn, min(turn + block, up_reps if up else 0)):
            if capped:
                break
            seconds = up.ask(kind, n, tag, loads)
            capped = seconds is None
            up_times.append(up.timeout if capped else seconds)
            loads.append(os.getloadavg()[0])
    return {'ext': statistics.median(ext_times),
            'up': statistics.median(up_times) if up_times else None,
            'capped': capped, 'load': (min(loads), max(loads)),
            'ext_times': ext_times, 'up_times': up_times}


# --- Concurrency ------------------------------------------------------------

def hammer(url: str, headers: dict, clients: int, seconds: float) -> tuple:
    """``clients`` threads GET ``url`` for ``seconds``: (the answered
    requests' latencies, the number of errors)."""
    latencies, errors = [], []
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def client():
        with requests.Session() as session:
            while time.monotonic() < stop:
                t = time.perf_counter()
                try:
                    ok = session.get(url, headers=headers,
                                     timeout=60).status_code == 200
                except requests.RequestException:
                    ok = False
                with lock:
                    (latencies if ok else errors).append(
                        time.perf_counter() - t)

    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        for future in [pool.submit(client) for _ in range(clients)]:
            future.result()
    return latencies, len(errors)


def throughput(latencies: list, errors: int, seconds: float) -> tuple:
    """(req/s, p99 ms, errors) of requests over ``seconds``."""
    latencies = sorted(latencies)
    p99 = latencies[max(0, int(len(latencies) * 0.99) - 1)] \
        if latencies else 0
    return len(latencies) / seconds, p99 * 1000, errors


def wait_answering(url: str, process, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError('%s exited' % process.args)
        try:
            requests.get(url, timeout=2)
            return
        except requests.RequestException:
            time.sleep(0.5)
    raise RuntimeError('nothing answers at %s' % url)


def free_port() -> int:
    import socket
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def start_ext_api(url: str, workers: int, tmp: str,
                  env: dict | None = None) -> tuple:
    """blazar-ext-api on ``url`` (``env``: its environment, else this
    one's): (process, base URL)."""
    port = free_port()
    config = os.path.join(tmp, 'api-%d.conf' % port)
    with open(config, 'w') as f:
        f.write('[DEFAULT]\ntransport_url = fake:/\nstate_path = %s\n'
                '[database]\nconnection = %s\n[api]\nhost = 127.0.0.1\n'
                'port = %d\nauth_strategy = noauth\n' % (tmp, url, port))
    bin_dir = os.path.dirname(sys.executable)
    process = subprocess.Popen([os.path.join(bin_dir, 'blazar-ext-api'),
                                '--config-file', config,
                                '--workers', str(workers)],
                               env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    base = 'http://127.0.0.1:%d' % port
    wait_answering(base + '/', process)
    return process, base


def stop(process) -> None:
    """SIGTERM, then SIGKILL if it has not exited in 30 s (a worker still
    closing its database connections on a loaded machine)."""
    process.terminate()
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


def host_list_rss(url: str, tmp: str) -> tuple:
    """(seconds, peak RSS in MB) of one blazar-ext-api process answering
    GET /v1/os-hosts, the body read and dropped as it streams."""
    process, base = start_ext_api(url, 1, tmp)
    try:
        t = time.perf_counter()
        size = 0
        with requests.get(base + '/v1/os-hosts', headers=ADMIN,
                          stream=True, timeout=600) as resp:
            for chunk in resp.iter_content(65536):
                size += len(chunk)
        seconds = time.perf_counter() - t
        with open('/proc/%d/status' % process.pid) as f:
            peak = [line for line in f if line.startswith('VmHWM:')][0]
        return seconds, int(peak.split()[1]) / 1024, size
    finally:
        stop(process)


def start_upstream_api(url: str) -> tuple:
    """upstream.py serve on ``url``: (process, base URL)."""
    port = free_port()
    process = subprocess.Popen(
        [upstream_python(), UPSTREAM_PY, 'serve', '--database', url,
         '--port', str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = 'http://127.0.0.1:%d' % port
    wait_answering(base + '/', process)
    return process, base


def concurrency(ext_url: str, up_url: str, seconds: float, tmp: str,
                rounds: int = 2) -> dict:
    """8 clients against blazar-ext-api --workers 2 and against upstream
    (one process, as its blazar-api runs), ``seconds`` each, in
    ``rounds`` alternating turns so both see the same load:
    {name: (ext (req/s, p99 ms, errors), upstream (...), (load min,
    max))}. Both servers start afresh for each path, so requests a
    client gave up on do not run on into the next path's turns."""
    up_admin = {'X-User-Id': 'bench-admin', 'X-Project-Id': 'bench',
                'X-Roles': 'admin', 'X-Auth-Token': 'bench',
                'Content-Type': 'application/json',
                'Accept': 'application/json', 'X-Service-Catalog': '[]'}
    up_lister = dict(up_admin, **{'X-User-Id': 'lister',
                                  'X-Project-Id': 'lister',
                                  'X-Roles': 'member,reader'})
    results = {}
    for name, path, ext_headers, up_headers in (
            ('leases', '/v1/leases', LISTER, up_lister),
            ('properties', '/v1/os-hosts/properties?detail=true', ADMIN,
             up_admin)):
        ext, ext_base = start_ext_api(ext_url, 2, tmp)
        up = None
        try:
            up, up_base = start_upstream_api(up_url)
            sides = {ext_base: ([], [0]), up_base: ([], [0])}
            loads = [os.getloadavg()[0]]
            for _round in range(rounds):
                for base, headers in ((ext_base, ext_headers),
                                      (up_base, up_headers)):
                    latencies, errors = hammer(base + path, headers, 8,
                                               seconds / rounds)
                    sides[base][0].extend(latencies)
                    sides[base][1][0] += errors
                    loads.append(os.getloadavg()[0])
            results[name] = tuple(
                throughput(sides[base][0], sides[base][1][0], seconds)
                for base in (ext_base, up_base)) + ((min(loads),
                                                     max(loads)),)
        finally:
            for process in (ext, up):
                if process is not None:
                    stop(process)
    return results


# --- Report -----------------------------------------------------------------

def fmt(seconds) -> str:
    if seconds is None:
        return '-'
    return ('%.1f ms' % (seconds * 1000) if seconds < 1
            else '%.2f s' % seconds)


def ratio_text(result: dict) -> str:
    """upstream / blazar_ext, '>' when upstream's figure is a lower
    bound (it outlasted the cap)."""
    if result['up'] is None or not result['ext']:
        return ''
    ratio = result['up'] / result['ext']
    text = '%.0fx' % ratio if ratio >= 10 else '%.2fx' % ratio
    return ('>' + text) if result['capped'] else text


def print_row(label: str, result: dict) -> None:
    up = fmt(result['up'])
    if result['capped']:
        up = '>' + up
    print('  %-62s %10s %11s %10s   load %.1f-%.1f' % (
        label, fmt(result['ext']), up, ratio_text(result),
        *result['load']), flush=True)


def measure_size(args, size: int, per_host: int, side_by_side: bool,
                 tmp: str, base: datetime.datetime, operations: list):
    """Seed (unless --reuse) and measure one size: (results by
    operation, seed seconds by side, (ext URL, upstream URL))."""
    seeds = {}
    ext_url = (args.reuse[0] if args.reuse else
               database_url(args.database, 'ext', size, tmp))
    up_url = None
    if not args.reuse:
        seeds['ext'] = ext_seed_side(ext_url, size, per_host, base)
    if side_by_side:
        up_url = (args.reuse[1] if args.reuse else
                  database_url(args.database, 'up', size, tmp))
        if not args.reuse:
            seeds['up'] = upstream('seed', up_url, '--hosts', size,
                                   '--per-host', per_host, '--listed',
                                   size)['seconds']
    print('%d hosts (%d reservations): blazar_ext on %s, upstream on %s; '
          'seeded in %s' % (size, size * per_host, ext_url, up_url,
                            ', '.join('%s %.0f s' % item
                                      for item in seeds.items()) or
                            '(reused)'), flush=True)
    up = (Upstream(up_url, args.upstream_timeout,
                   os.path.join(tmp, 'upstream-%d.log' % size))
          if side_by_side else None)
    up_reps = args.upstream_reps if size <= 1000 else \
        args.upstream_reps_large
    tag = uuid.uuid4().hex[:6]
    results = {}
    try:
        with ext_app(ext_url) as app:
            for key, label in OPERATIONS:
                if key not in operations:
                    continue
                reps = args.reps
                results[key] = alternate(
                    ext_operation(app, key, base, tag), up, key, reps,
                    up_reps if key in LONG else reps, tag, args.block)
                print_row(label, results[key])
    finally:
        if up:
            up.close()
    return results, seeds, (ext_url, up_url)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--sizes', default='1000,10000')
    parser.add_argument('--ext-only', default='50000',
                        help='sizes for blazar_ext alone ("" for none)')
    parser.add_argument('--reps', type=int, default=5)
    parser.add_argument('--block', type=int, default=1,
                        help='repetitions per turn of each side (1: ours '
                        'and upstream alternate request by request; more: '
                        'each side runs that many back to back, warm)')
    parser.add_argument('--upstream-reps', type=int, default=3,
                        help="upstream's lease creates and host lists at "
                             "up to 1,000 hosts (its other reads take "
                             "--reps)")
    parser.add_argument('--upstream-reps-large', type=int, default=3,
                        help="the same above 1,000 hosts")
    parser.add_argument('--upstream-timeout', type=float, default=None,
                        metavar='SECONDS',
                        help='stop an upstream request unanswered after '
                             'SECONDS and show its figure as a lower '
                             'bound (">")')
    parser.add_argument('--concurrency', type=float, default=20,
                        help='seconds per side (0: skip)')
    parser.add_argument('--database', default=None)
    parser.add_argument('--workdir', default=None,
                        help='where the SQLite files go (default: a new '
                             'temporary directory); they are kept')
    parser.add_argument('--operations', default=','.join(
        key for key, _label in OPERATIONS),
        help='which to measure, comma-separated (default: all)')
    parser.add_argument('--reuse', nargs=2, metavar=('EXT_URL', 'UP_URL'),
                        help="measure again on the databases an earlier "
                             "run seeded (left in place), for one size")
    args = parser.parse_args()
    operations = args.operations.split(',')
    unknown = set(operations) - {key for key, _label in OPERATIONS}
    if unknown:
        parser.error('unknown operations: %s' % ', '.join(sorted(unknown)))
    tmp = args.workdir or tempfile.mkdtemp(prefix='blazar-side-by-side-')
    os.makedirs(tmp, exist_ok=True)
    base = datetime.datetime.strptime(BASE, FMT)
    sizes = [int(s) for s in args.sizes.split(',') if s]
    ext_only = [int(s) for s in args.ext_only.split(',') if s]
    print('%s UTC; load average %s; ours and upstream alternate '
          'repetitions; medians, ratio = upstream / blazar_ext, the 1-minute '
          'load average seen during each operation' % (
              datetime.datetime.utcnow().strftime('%Y-%m-%d %H:%M'),
              ' '.join('%.1f' % x for x in os.getloadavg())), flush=True)
    rows, urls = {}, {}
    for size in sizes + ext_only:
        per_host = 10 if size <= 10000 else 2
        results, seeds, urls[size] = measure_size(
            args, size, per_host, size in sizes, tmp, base, operations)
        rows[size] = results
        print(json.dumps({'size': size, 'seed_s': seeds, 'results': {
            key: dict(value, load=list(value['load']))
            for key, value in results.items()}}), flush=True)
        if 'hosts' in operations:
            load = os.getloadavg()[0]
            served, rss, length = host_list_rss(urls[size][0], tmp)
            print('  blazar-ext-api (one process) served GET /v1/os-hosts '
                  '(%.1f MB) in %s at peak RSS %.0f MB, load %.1f-%.1f'
                  % (length / 1e6, fmt(served), rss, load,
                     os.getloadavg()[0]), flush=True)
    print('\ngrowth (blazar_ext):')
    for key in ('create_eq', 'create_num', 'hosts'):
        if key in operations:
            print('  %-12s %s' % (key, '  '.join(
                '%d: %s' % (size, fmt(rows[size][key]['ext']))
                for size in rows)))
    if args.concurrency and sizes:
        size = sizes[0]
        print('\n8 clients, %.0f s each in 2 alternating turns, %d hosts; '
              'blazar-ext-api --workers 2 vs upstream (one process):'
              % (args.concurrency, size))
        for name, (ext, up, load) in concurrency(
                *urls[size], args.concurrency, tmp).items():
            print('  GET %-10s blazar_ext %6.1f req/s p99 %6.0f ms (%d '
                  'errors) | upstream %6.1f req/s p99 %6.0f ms (%d errors)'
                  ' | %.2fx | load %.1f-%.1f' % (
                      name, *ext, *up, ext[0] / up[0] if up[0] else 0,
                      *load), flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
