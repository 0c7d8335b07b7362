#!/usr/bin/env python3
"""blazar_ext and upstream Blazar 18.0.0 side by side, on the same data.

    python tools/bench/side_by_side.py [--sizes 1000,10000] [--ext-only 50000]
        [--reps 5] [--upstream-reps 3] [--concurrency 20]
        [--database URL_PREFIX] [--operations create_eq,...,leases]

For each size both sides get the hosts of tools/bench/seed.py (20 extra
capabilities each) and ten one-day reservations per host (two at 50,000;
one lease each; the first ``size`` leases belong to project 'lister'),
on SQLite files by default. blazar_ext runs in process as the
all-in-one does; upstream runs in process in its own venv
(tools/bench/upstream.py; $BLAZAR_EXT_UPSTREAM_VENV, else .blazar-venv,
made by tools/blazar/setup-venv.sh). Prints medians and ratios for lease
create (equality and numeric), GET /v1/os-hosts, GET
/v1/os-hosts/properties?detail=true and GET /v1/leases (as 'lister'),
then 8 clients for ``--concurrency`` seconds against blazar-ext-api
--workers 2 and upstream's API (one process, as its blazar-api runs).

``--database`` takes a server URL without a database name
(mysql+pymysql://root@127.0.0.1, postgresql://postgres@127.0.0.1); each
side and size gets a fresh database on it, left in place afterwards
(bench_<side>_<size>_<random>).
"""

import argparse
import concurrent.futures
import datetime
import json
import os
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


def upstream_python() -> str:
    venv = os.environ.get('BLAZAR_EXT_UPSTREAM_VENV',
                          os.path.join(ROOT, '.blazar-venv'))
    return os.path.join(venv, 'bin', 'python')


def database_url(prefix: str | None, side: str, size: int,
                 tmp: str) -> str:
    """A fresh database for one side and size."""
    if not prefix:
        return 'sqlite:///%s' % os.path.join(tmp, '%s-%d.sqlite'
                                             % (side, size))
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
    engine = sa.create_engine(url)
    migration.upgrade('head', engine)
    return engine, db_session.context_manager.patch_engine(engine)


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


def timed(fn, reps: int) -> float:
    times = []
    for n in range(reps):
        t = time.perf_counter()
        fn(n)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def ext_measure(reps: int, base: datetime.datetime,
                operations: set) -> dict:
    rpc.cleanup()
    manager_client.reset_client()
    manager = service.ManagerService()
    manager.start()
    manager_client.serve_locally(manager.endpoint)
    app = api_app.build(CONF)
    results = {}
    try:
        for kind, expression, offset in (('create_eq', seed.EQUALITY, 0),
                                         ('create_num', seed.NUMERIC, 1000)):
            if kind not in operations:
                continue

            def create(n, kind=kind, expression=expression, offset=offset):
                start, end = seed.lease_window(offset + n, base)
                call(app, 'POST', '/v1/leases', ADMIN, {
                    'name': 'bench-%s-%d' % (kind, n),
                    'start_date': start.strftime(FMT),
                    'end_date': end.strftime(FMT),
                    'reservations': [{
                        'resource_type': 'physical:host', 'min': 1,
                        'max': 1, 'hypervisor_properties': '',
                        'resource_properties': expression}],
                    'events': []})
            results[kind] = timed(create, reps)
        for kind, path, headers in (
                ('hosts', '/v1/os-hosts', ADMIN),
                ('properties', '/v1/os-hosts/properties?detail=true', ADMIN),
                ('leases', '/v1/leases', LISTER)):
            if kind in operations:
                results[kind] = timed(
                    lambda n, path=path, headers=headers: call(
                        app, 'GET', path, headers), reps)
    finally:
        manager.stop()
        rpc.cleanup()
        manager_client.reset_client()
    return results


def ext_side(url: str, size: int, per_host: int, reps: int,
             base: datetime.datetime, operations: set,
             seed_it: bool = True) -> dict:
    engine, restore = ext_configure(url)
    try:
        t = time.perf_counter()
        if seed_it:
            ext_seed(size, per_host, size, base)
        seeded = time.perf_counter() - t
        results = ext_measure(reps, base, operations)
        results['seed_s'] = seeded
        return results
    finally:
        restore()
        engine.dispose()
        CONF.reset()


# --- upstream's side --------------------------------------------------------

def upstream(action: str, url: str, *args) -> dict:
    out = subprocess.run(
        [upstream_python(), os.path.join(os.path.dirname(
            os.path.abspath(__file__)), 'upstream.py'), action,
         '--database', url, '--base', BASE] + [str(a) for a in args],
        capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError('upstream.py %s failed:\n%s' % (
            action, out.stderr[-3000:]))
    return json.loads(out.stdout.strip().splitlines()[-1])


# --- Concurrency ------------------------------------------------------------

def hammer(url: str, headers: dict, clients: int, seconds: float) -> tuple:
    """``clients`` threads GET ``url`` for ``seconds``: (req/s, p99 ms,
    errors)."""
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
    latencies.sort()
    p99 = latencies[int(len(latencies) * 0.99) - 1] if latencies else 0
    return len(latencies) / seconds, p99 * 1000, len(errors)


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


def start_ext_api(url: str, workers: int, tmp: str) -> tuple:
    """blazar-ext-api on ``url``: (process, base URL)."""
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
                               stdout=subprocess.DEVNULL,
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


def concurrency(ext_url: str, up_url: str, seconds: float,
                tmp: str) -> dict:
    results = {}
    ext, ext_base = start_ext_api(ext_url, 2, tmp)
    up_port = free_port()
    up = subprocess.Popen(
        [upstream_python(), os.path.join(os.path.dirname(
            os.path.abspath(__file__)), 'upstream.py'), 'serve',
         '--database', up_url, '--port', str(up_port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        up_base = 'http://127.0.0.1:%d' % up_port
        wait_answering(up_base + '/', up)
        up_admin = {'X-User-Id': 'bench-admin', 'X-Project-Id': 'bench',
                    'X-Roles': 'admin', 'X-Auth-Token': 'bench',
                    'Content-Type': 'application/json',
                    'Accept': 'application/json',
                    'X-Service-Catalog': '[]'}
        up_lister = dict(up_admin, **{'X-User-Id': 'lister',
                                      'X-Project-Id': 'lister',
                                      'X-Roles': 'member,reader'})
        for name, path, ext_headers, up_headers in (
                ('leases', '/v1/leases', LISTER, up_lister),
                ('properties', '/v1/os-hosts/properties?detail=true',
                 ADMIN, up_admin)):
            results[name] = (hammer(ext_base + path, ext_headers, 8, seconds),
                             hammer(up_base + path, up_headers, 8, seconds))
    finally:
        for process in (ext, up):
            stop(process)
    return results


# --- Report -----------------------------------------------------------------

def fmt(seconds) -> str:
    if seconds is None:
        return '-'
    return ('%.1f ms' % (seconds * 1000) if seconds < 1
            else '%.2f s' % seconds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--sizes', default='1000,10000')
    parser.add_argument('--ext-only', default='50000',
                        help='sizes for blazar_ext alone ("" for none)')
    parser.add_argument('--reps', type=int, default=5)
    parser.add_argument('--upstream-reps', type=int, default=3)
    parser.add_argument('--upstream-reps-large', type=int, default=3,
                        help='upstream repetitions above 1,000 hosts')
    parser.add_argument('--concurrency', type=float, default=20,
                        help='seconds per side (0: skip)')
    parser.add_argument('--database', default=None)
    parser.add_argument('--operations', default=','.join(
        key for key, _label in OPERATIONS),
        help='which to measure, comma-separated (default: all)')
    parser.add_argument('--reuse', nargs=2, metavar=('EXT_URL', 'UP_URL'),
                        help="measure again on the databases an earlier "
                             "run seeded (left in place), for one size")
    args = parser.parse_args()
    operations = set(args.operations.split(','))
    tmp = tempfile.mkdtemp(prefix='blazar-side-by-side-')
    base = datetime.datetime.strptime(BASE, FMT)
    sizes = [int(s) for s in args.sizes.split(',') if s]
    ext_only = [int(s) for s in args.ext_only.split(',') if s]
    rows, urls = {}, {}
    for size in sizes + ext_only:
        per_host = 10 if size <= 10000 else 2
        ext_url = (args.reuse[0] if args.reuse else
                   database_url(args.database, 'ext', size, tmp))
        ext = ext_side(ext_url, size, per_host, args.reps, base, operations,
                       seed_it=not args.reuse)
        up = {}
        if size in sizes:
            up, up_url = {}, (args.reuse[1] if args.reuse else
                              database_url(args.database, 'up', size, tmp))
            if not args.reuse:
                seeded = upstream('seed', up_url, '--hosts', size,
                                  '--per-host', per_host, '--listed', size)
                # The seed's counts apart: its 'hosts' is not a time.
                up['seed_s'] = seeded['seconds']
            up.update(upstream('measure', up_url, '--reps',
                               args.upstream_reps if size <= 1000 else
                               args.upstream_reps_large,
                               '--read-reps', args.reps,
                               '--operations', ','.join(sorted(operations))))
            urls[size] = (ext_url, up_url)
        rows[size] = (ext, up)
        # The raw figures first, should anything after fail.
        print(json.dumps({'size': size, 'blazar_ext': ext,
                          'upstream': up}), flush=True)
        served, rss, length = host_list_rss(ext_url, tmp)
        print('%d hosts (%d reservations): seeded blazar_ext in %.0f s; '
              'blazar-ext-api served GET /v1/os-hosts (%.1f MB) in %s at '
              'peak RSS %.0f MB' % (size, size * per_host, ext['seed_s'],
                                    length / 1e6, fmt(served), rss),
              flush=True)
        for key, label in OPERATIONS:
            if key not in operations:
                continue
            ratio = (up[key] / ext[key]) if key in up and ext[key] else None
            print('  %-62s %10s %10s %10s' % (
                label, fmt(ext[key]), fmt(up.get(key)),
                '%.0fx' % ratio if ratio and ratio >= 10 else
                ('%.2fx' % ratio if ratio else '')), flush=True)
    print('\ngrowth (blazar_ext):')
    for key in ('create_eq', 'create_num', 'hosts'):
        if key in operations:
            print('  %-12s %s' % (key, '  '.join(
                '%d: %s' % (size, fmt(rows[size][0][key]))
                for size in rows)))
    if args.concurrency and sizes:
        size = sizes[0]
        print('\n8 clients, %.0f s each, %d hosts; blazar-ext-api --workers '
              '2 vs upstream (one process):' % (args.concurrency, size))
        for name, (ext, up) in concurrency(*urls[size], args.concurrency,
                                           tmp).items():
            print('  GET %-10s blazar_ext %6.1f req/s p99 %6.0f ms (%d '
                  'errors) | upstream %6.1f req/s p99 %6.0f ms (%d errors)'
                  ' | %.2fx' % (name, ext[0], ext[1], ext[2], up[0], up[1],
                                up[2], ext[0] / up[0] if up[0] else 0))
    return 0


if __name__ == '__main__':
    sys.exit(main())
