#!/usr/bin/env python3
"""Placement API at scale: blazar_ext and upstream Placement 16 side by side.

    python tools/bench/placement.py [--sizes 1000,10000] [--ext-only 50000]
        [--scenarios flat,nested] [--requests 10] [--upstream-requests 5]
        [--block 1]
        [--database URL_PREFIX] [--placement-venv DIR]
    python tools/bench/placement.py --alone [--providers 10000]
        [--api-load 1000] [--requests 20] [--database URL]

Side by side (the default): for each size and scenario, blazar_ext
(``blazar-ext-api``, one worker, 16 threads, ``[api] auth_strategy =
noauth``) and upstream Placement 16.0.0 (tools/placement/serve.py in its
own venv: cheroot, 16 threads, ``[api] auth_strategy = noauth2``) each run
in their own process over their own fresh database (SQLite files by
default), with the same data: the one custom trait is made through each
API (PUT /traits/CUSTOM_GPU), then providers, inventories, traits and
aggregates are inserted by bulk SQL into each service's own schema (the
same table layout on both sides), with the same ids and uuids. Each query
is then asked of both, alternately, so a busy machine slows both alike;
the bench prints medians, the ratio upstream/blazar_ext and the number of
allocation requests or providers each side returned (they must match for
the comparison to mean anything: a mismatch is flagged with ``!=``).

Scenarios, ``size`` being the number of hosts (root providers):

flat
    Every host has VCPU 32 (allocation_ratio 4.0), MEMORY_MB 131072 and
    DISK_GB 2000, and HW_CPU_X86_SSE; half have HW_CPU_X86_AVX, one in ten
    CUSTOM_GPU. Queries: GET /allocation_candidates?resources=VCPU:1
    &required=HW_CPU_X86_AVX,!CUSTOM_GPU (also with limit=100),
    GET /resource_providers?required=HW_CPU_X86_AVX,!CUSTOM_GPU and
    GET /allocation_candidates?resources=VCPU:1&limit=100.
nested
    Every host (traits as above, no inventory) has two NUMA children with
    VCPU 16 (ratio 4.0) and MEMORY_MB 65536 each; every 100 hosts share a
    storage pool (DISK_GB 100000, MISC_SHARES_VIA_AGGREGATE) through one
    aggregate (3.01 providers per host). Queries, all with
    root_required=HW_CPU_X86_AVX,!CUSTOM_GPU: the unnamed group
    resources=VCPU:1,MEMORY_MB:1024,DISK_GB:100 (spread over the tree and
    the pool: 4 candidates per host); granular resources1=VCPU:1
    &resources2=MEMORY_MB:1024&resources3=DISK_GB:100&group_policy=isolate
    (2 per host); granular resources1=VCPU:1,MEMORY_MB:1024
    &resources2=DISK_GB:100&group_policy=none (2 per host). (With the
    pool's DISK_GB in the unnamed group and isolate, upstream returns one
    host per pool: a query both answer alike is the honest one.)

``--ext-only`` sizes run blazar_ext alone (upstream would take minutes a
request). The upstream venv is --placement-venv, else
$BLAZAR_EXT_PLACEMENT_VENV, else .placement-venv in the repository root
(tools/placement/setup-venv.sh makes it). ``--database`` takes a server
URL without a database name (mysql+pymysql://root@127.0.0.1,
postgresql+psycopg2://postgres@127.0.0.1): every side, scenario and size
gets a fresh database there (analyzed after loading), dropped afterwards;
both run.

Each row prints both sides' median wall time and median server CPU time
per request (the CPU each server process's threads ran during the
request, from Linux's scheduler statistics; on a machine shared by many
jobs the wall time of a short request is mostly waiting for a core, and
the CPU time compares the work itself), with ratios upstream/blazar_ext.

Figures, with the commands and the load they were taken under, are in
doc/source/admin/performance.rst ("Side by side with upstream Placement
16"); earlier rounds' are in git log -- tools/bench/placement.py
README.md doc/source/admin/performance.rst. Both servers hand
large bodies to cheroot in blocks (blazar_ext/wsgi/blocks.py), so the
run compares the applications, not cheroot's copying of one large write.

``--alone`` is the former blazar_ext-only bench, in process: it loads
--api-load providers through the HTTP API (POST provider, PUT inventories,
PUT traits) and prints that load rate, bulk-loads the rest up to
--providers (the flat scenario's data), then prints the median and 95th
percentile of the flat queries. Upstream Placement on this kind of
machine at 10,000 providers: about 57 requests per second loading.
"""

import argparse
import dataclasses
import datetime
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid

from cheroot import wsgi
from oslo_db.sqlalchemy import engines
from oslo_utils import uuidutils
import requests
import sqlalchemy as sa

from blazar_ext.api import app as api_app
from blazar_ext import conf as blazar_conf
from blazar_ext import context as blazar_context
from blazar_ext.db.api.placement import resource_class as rc_api
from blazar_ext.db.api.placement import trait as trait_api
from blazar_ext.db import migration
from blazar_ext.db.models import placement as models
from blazar_ext.db import session as db_session

CONF = blazar_conf.CONF
REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
HEADERS = {'X-Auth-Token': 'admin',
           'OpenStack-API-Version': 'placement 1.39'}
FLAT_FILTER = 'required=HW_CPU_X86_AVX,!CUSTOM_GPU'
ROOT_FILTER = 'root_required=HW_CPU_X86_AVX,!CUSTOM_GPU'
SCENARIOS = {
    'flat': [
        ('candidates, required',
         '/allocation_candidates?resources=VCPU:1&' + FLAT_FILTER),
        ('candidates, required, limit=100',
         '/allocation_candidates?resources=VCPU:1&' + FLAT_FILTER
         + '&limit=100'),
        ('providers, required', '/resource_providers?' + FLAT_FILTER),
        # Issue 27's target: no trait filter.
        ('candidates, limit=100',
         '/allocation_candidates?resources=VCPU:1&limit=100'),
    ],
    'nested': [
        ('nested: VCPU,MEMORY_MB,DISK_GB',
         '/allocation_candidates?resources=VCPU:1,MEMORY_MB:1024,'
         'DISK_GB:100&' + ROOT_FILTER),
        ('granular isolate: VCPU, MEMORY_MB, DISK_GB',
         '/allocation_candidates?resources1=VCPU:1'
         '&resources2=MEMORY_MB:1024&resources3=DISK_GB:100'
         '&group_policy=isolate&' + ROOT_FILTER),
        ('granular: 1 VCPU+MEMORY_MB, 2 DISK_GB',
         '/allocation_candidates?resources1=VCPU:1,MEMORY_MB:1024'
         '&resources2=DISK_GB:100&group_policy=none&' + ROOT_FILTER),
    ],
}
QUERIES = [path for _label, path in SCENARIOS['flat']]
NUMA_PER_HOST = 2
HOSTS_PER_POOL = 100
UUIDS = uuid.UUID('5e1d0b5c-7a4e-4c2a-9a57-1f0c7f5b2d14')


def traits_for(i: int) -> list:
    traits = ['HW_CPU_X86_SSE']
    if i % 2 == 0:
        traits.append('HW_CPU_X86_AVX')
    if i % 10 == 0:
        traits.append('CUSTOM_GPU')
    return traits


# -- the data both sides get -------------------------------------------------

@dataclasses.dataclass
class Data:
    """Rows in Placement's table layout, which blazar_ext shares."""

    providers: list = dataclasses.field(default_factory=list)
    inventories: list = dataclasses.field(default_factory=list)
    traits: list = dataclasses.field(default_factory=list)
    aggregates: list = dataclasses.field(default_factory=list)
    members: list = dataclasses.field(default_factory=list)

    def provider(self, name: str, parent=None, root=None) -> int:
        pid = len(self.providers) + 1
        self.providers.append(dict(
            id=pid, uuid=str(uuid.uuid5(UUIDS, name)), name=name,
            generation=1, parent_provider_id=parent,
            root_provider_id=root or pid))
        return pid

    def inventory(self, pid: int, name: str, total: int,
                  ratio: float = 1.0) -> None:
        self.inventories.append((pid, name, total, ratio))


def flat_data(hosts: int) -> Data:
    data = Data()
    for i in range(hosts):
        pid = data.provider('rp-%06d' % i)
        data.inventory(pid, 'VCPU', 32, 4.0)
        data.inventory(pid, 'MEMORY_MB', 131072)
        data.inventory(pid, 'DISK_GB', 2000)
        data.traits += [(pid, name) for name in traits_for(i)]
    return data


def nested_data(hosts: int) -> Data:
    data = Data()
    pools = []
    for k in range(-(-hosts // HOSTS_PER_POOL)):
        pid = data.provider('pool-%04d' % k)
        data.inventory(pid, 'DISK_GB', 100000)
        data.traits.append((pid, 'MISC_SHARES_VIA_AGGREGATE'))
        data.aggregates.append(dict(id=k + 1, uuid=str(
            uuid.uuid5(UUIDS, 'aggregate-%04d' % k))))
        data.members.append((pid, k + 1))
        pools.append(k + 1)
    for i in range(hosts):
        root = data.provider('host-%06d' % i)
        data.traits += [(root, name) for name in traits_for(i)]
        data.members.append((root, pools[i // HOSTS_PER_POOL]))
        for j in range(NUMA_PER_HOST):
            numa = data.provider('host-%06d-numa%d' % (i, j), parent=root,
                                 root=root)
            data.inventory(numa, 'VCPU', 16, 4.0)
            data.inventory(numa, 'MEMORY_MB', 65536)
    return data


def bulk_load(url: str, data: Data) -> None:
    """Insert ``data`` into a service's own schema, by SQL."""
    engine = sa.create_engine(url)
    meta = sa.MetaData()
    meta.reflect(engine, only=[
        'resource_providers', 'inventories', 'resource_classes', 'traits',
        'resource_provider_traits', 'placement_aggregates',
        'resource_provider_aggregates'])
    t = meta.tables
    now = datetime.datetime.utcnow().replace(microsecond=0)

    def rows(table, dicts):
        stamp = {c: now for c in ('created_at', 'updated_at')
                 if c in t[table].c}
        return [dict(d, **stamp) for d in dicts]

    try:
        with engine.begin() as conn:
            if conn.scalar(sa.select(sa.func.count()).select_from(
                    t['resource_providers'])):
                raise SystemExit('%s: expected no providers' % url)
            rc = t['resource_classes']
            classes = dict(conn.execute(sa.select(rc.c.name,
                                                  rc.c.id)).all())
            traits = dict(conn.execute(sa.select(
                t['traits'].c.name, t['traits'].c.id)).all())
            conn.execute(sa.insert(t['resource_providers']),
                         rows('resource_providers', data.providers))
            conn.execute(sa.insert(t['inventories']), rows('inventories', [
                dict(resource_provider_id=pid,
                     resource_class_id=classes[name], total=total,
                     reserved=0, min_unit=1, max_unit=total, step_size=1,
                     allocation_ratio=ratio)
                for pid, name, total, ratio in data.inventories]))
            conn.execute(sa.insert(t['resource_provider_traits']), rows(
                'resource_provider_traits', [
                    dict(resource_provider_id=pid, trait_id=traits[name])
                    for pid, name in data.traits]))
            if data.aggregates:
                conn.execute(sa.insert(t['placement_aggregates']),
                             rows('placement_aggregates', data.aggregates))
                conn.execute(sa.insert(t['resource_provider_aggregates']),
                             rows('resource_provider_aggregates', [
                                 dict(resource_provider_id=pid,
                                      aggregate_id=agg)
                                 for pid, agg in data.members]))
        if engine.dialect.name != 'sqlite':
            # Statistics, as a database in service would have.
            with engine.begin() as conn:
                for table in t:
                    conn.execute(sa.text(
                        ('ANALYZE TABLE %s' if engine.dialect.name == 'mysql'
                         else 'ANALYZE %s') % table))
    finally:
        engine.dispose()


# -- the two services, each in its own process ------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


@dataclasses.dataclass
class Service:
    name: str
    base: str
    url: str
    process: subprocess.Popen
    log: str

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _wait(service: Service, timeout: float = 180) -> Service:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if service.process.poll() is not None:
            break
        try:
            if requests.get(service.base + '/', timeout=5).ok:
                return service
        except requests.ConnectionError:
            pass
        time.sleep(0.3)
    service.stop()
    with open(service.log) as f:
        tail = f.read()[-3000:]
    raise SystemExit('%s did not start; its log ends:\n%s'
                     % (service.name, tail))


def start_ext(workdir: str, url: str) -> Service:
    """blazar-ext-api over ``url``, as deployed: one worker, 16 threads."""
    engine = engines.create_engine(url)
    migration.upgrade('head', engine)
    engine.dispose()
    port = _free_port()
    conf = os.path.join(workdir, 'blazar-ext.conf')
    log = os.path.join(workdir, 'blazar-ext.log')
    with open(conf, 'w') as f:
        f.write('[DEFAULT]\nlog_file = %s\nstate_path = %s\n'
                '[api]\nauth_strategy = noauth\nhost = 127.0.0.1\n'
                'port = %d\nworkers = 1\nthreads = 16\n'
                '[database]\nconnection = %s\n'
                % (log, workdir, port, url))
    command = os.path.join(os.path.dirname(sys.executable),
                           'blazar-ext-api')
    with open(log + '.out', 'w') as out:
        process = subprocess.Popen([command, '--config-file', conf],
                                   stdout=out, stderr=subprocess.STDOUT)
    return _wait(Service('blazar_ext', 'http://127.0.0.1:%d/placement'
                         % port, url, process, log + '.out'))


def start_upstream(workdir: str, url: str, venv: str) -> Service:
    """Upstream Placement 16 over ``url`` (it makes its own schema)."""
    port = _free_port()
    log = os.path.join(workdir, 'placement.log')
    with open(log + '.out', 'w') as out:
        process = subprocess.Popen(
            [os.path.join(venv, 'bin', 'python'),
             os.path.join(REPO, 'tools', 'placement', 'serve.py'),
             '--database', url, '--port', str(port), '--threads', '16',
             '--log-file', log], stdout=out, stderr=subprocess.STDOUT)
    return _wait(Service('upstream', 'http://127.0.0.1:%d' % port, url,
                         process, log + '.out'))


def placement_venv(given: str | None) -> str:
    venv = (given or os.environ.get('BLAZAR_EXT_PLACEMENT_VENV')
            or os.path.join(REPO, '.placement-venv'))
    if not os.path.exists(os.path.join(venv, 'bin', 'python')):
        raise SystemExit('No Placement venv at %s: run '
                         'tools/placement/setup-venv.sh' % venv)
    return venv


class Databases:
    """Fresh databases: SQLite files under ``workdir``, or new databases
    on the server at ``prefix``, dropped by close()."""

    def __init__(self, workdir: str, prefix: str | None):
        self.workdir, self.prefix = workdir, prefix
        self.made = []

    def new(self, name: str) -> str:
        if not self.prefix:
            return 'sqlite:///%s' % os.path.join(self.workdir,
                                                 name + '.sqlite')
        name = 'bench_%s_%s' % (name, uuidutils.generate_uuid()[:8])
        engine = sa.create_engine(self.prefix.rstrip('/') + '/',
                                  isolation_level='AUTOCOMMIT')
        with engine.connect() as conn:
            conn.execute(sa.text('CREATE DATABASE %s' % name))
        engine.dispose()
        self.made.append(name)
        url = '%s/%s' % (self.prefix.rstrip('/'), name)
        if url.startswith('mysql'):
            url += '?charset=utf8mb4'
        return url

    def close(self) -> None:
        if not self.made:
            return
        engine = sa.create_engine(self.prefix.rstrip('/') + '/',
                                  isolation_level='AUTOCOMMIT')
        with engine.connect() as conn:
            for name in self.made:
                conn.execute(sa.text('DROP DATABASE IF EXISTS %s' % name))
        engine.dispose()


# -- measuring --------------------------------------------------------------

def _count(body: dict) -> int:
    if 'allocation_requests' in body:
        return len(body['allocation_requests'])
    return len(body['resource_providers'])


def cpu_ms(pid: int) -> float:
    """CPU time the process has run, in ms, summed over its threads
    (Linux scheduler statistics, nanoseconds), or 0 where there are none."""
    total = 0
    try:
        for task in os.listdir('/proc/%d/task' % pid):
            with open('/proc/%d/task/%s/schedstat' % (pid, task)) as f:
                total += int(f.read().split()[0])
    except OSError:
        return 0.0
    return total / 1e6


def compare(services: list, path: str, reps: list,
            block: int = 1) -> list:
    """[(median ms, median server CPU ms, result count)] per service,
    asked in turns of ``block`` requests each (1: alternately)."""
    sessions = []
    counts = []
    for service in services:
        http = requests.Session()
        http.headers.update(HEADERS)
        resp = http.get(service.base + path)  # warm up, and count
        if resp.status_code != 200:
            raise SystemExit('%s: GET %s: %s %s' % (
                service.name, path, resp.status_code, resp.text[:500]))
        sessions.append(http)
        counts.append(_count(resp.json()))
    samples = [[] for _ in services]
    cpu = [[] for _ in services]
    for turn in range(0, max(reps), block):
        for n, service in enumerate(services):
            for _ in range(turn, min(turn + block, reps[n])):
                pid = service.process.pid
                before = cpu_ms(pid)
                start = time.perf_counter()
                resp = sessions[n].get(service.base + path)
                samples[n].append((time.perf_counter() - start) * 1000)
                cpu[n].append(cpu_ms(pid) - before)
                resp.raise_for_status()
    return [(statistics.median(s), statistics.median(c), n)
            for s, c, n in zip(samples, cpu, counts)]


def run_size(args, databases, venv, scenario: str, hosts: int,
             with_upstream: bool) -> list:
    data = (flat_data if scenario == 'flat' else nested_data)(hosts)
    services = []
    try:
        with tempfile.TemporaryDirectory(dir=databases.workdir) as workdir:
            sides = [('ext', start_ext)]
            if with_upstream:
                sides.append(('up', lambda w, u: start_upstream(w, u,
                                                                venv)))
            for side, start in sides:
                sidedir = os.path.join(workdir, side)
                os.mkdir(sidedir)
                url = databases.new('%s_%s_%d' % (side, scenario, hosts))
                services.append(start(sidedir, url))
            began = time.perf_counter()
            for service in services:
                requests.put(service.base + '/traits/CUSTOM_GPU',
                             headers=HEADERS).raise_for_status()
                bulk_load(service.url, data)
            print('%s, %d hosts (%d providers): loaded %s in %.1f s'
                  % (scenario, hosts, len(data.providers),
                     ' and '.join(s.name for s in services),
                     time.perf_counter() - began), flush=True)
            results = []
            for label, path in SCENARIOS[scenario]:
                reps = [args.requests, args.upstream_requests][
                    :len(services)]
                measured = compare(services, path, reps, args.block)
                results.append((hosts, len(data.providers), label, path,
                                measured))
                print_row(results[-1])
            for service in services:
                service.stop()
            return results
    finally:
        for service in services:
            if service.process.poll() is None:
                service.stop()


ROW = '%-6s %-7s %-40s %9s %9s %6s  %8s %8s %6s  %s'


def print_row(result) -> None:
    hosts, providers, label, _path, measured = result
    ext_ms, ext_cpu, ext_count = measured[0]
    if len(measured) > 1:
        up_ms, up_cpu, up_count = measured[1]
        same = '==' if up_count == ext_count else '!='
        print(ROW % (hosts, providers, label, '%.1f' % ext_ms,
                     '%.1f' % up_ms, '%.1fx' % (up_ms / ext_ms),
                     '%.1f' % ext_cpu, '%.1f' % up_cpu,
                     '%.1fx' % (up_cpu / ext_cpu) if ext_cpu else '-',
                     '%d %s %d' % (ext_count, same, up_count)), flush=True)
    else:
        print(ROW % (hosts, providers, label, '%.1f' % ext_ms, '-', '-',
                     '%.1f' % ext_cpu, '-', '-', '%d' % ext_count),
              flush=True)


def side_by_side(args) -> None:
    venv = placement_venv(args.placement_venv)
    sizes = [int(s) for s in args.sizes.split(',') if s]
    alone = [int(s) for s in args.ext_only.split(',') if s]
    scenarios = [s for s in args.scenarios.split(',') if s]
    print(ROW % ('hosts', 'rps', 'query', 'ext ms', 'up ms', 'ratio',
                 'ext CPU', 'up CPU', 'ratio',
                 'results (blazar_ext, upstream)'), flush=True)
    with tempfile.TemporaryDirectory(prefix='bench-placement-') as workdir:
        databases = Databases(workdir, args.database)
        try:
            for hosts, with_upstream in ([(s, True) for s in sizes]
                                         + [(s, False) for s in alone]):
                for scenario in scenarios:
                    run_size(args, databases, venv, scenario, hosts,
                             with_upstream)
        finally:
            databases.close()


# -- --alone: blazar_ext in process, loaded partly through its API -----------

def setup(workdir: str, url: str | None):
    CONF([], project='blazar-ext', default_config_files=[])
    CONF.set_override('auth_strategy', 'noauth', group='api')
    CONF.set_override('state_path', workdir)
    url = url or 'sqlite:///%s' % os.path.join(workdir, 'bench.sqlite')
    CONF.set_override('connection', url, group='database')
    engine = engines.create_engine(url)
    migration.upgrade('head', engine)
    db_session.context_manager.patch_engine(engine)
    ctx = blazar_context.get_admin_context()
    trait_api.sync_standard_traits(ctx)
    rc_api.sync_standard_classes(ctx)
    trait_api.create_trait(ctx, 'CUSTOM_GPU')
    return ctx


def serve():
    server = wsgi.Server(('127.0.0.1', 0), api_app.build(CONF),
                         numthreads=8)
    server.prepare()
    threading.Thread(target=server.serve, daemon=True).start()
    return server, 'http://127.0.0.1:%d/placement' % server.bind_addr[1]


def load_api(base: str, count: int) -> tuple:
    http = requests.Session()
    http.headers.update(HEADERS)
    start = time.perf_counter()
    for i in range(count):
        rp = http.post(base + '/resource_providers',
                       json={'name': 'api-%05d' % i}).json()
        http.put(base + '/resource_providers/%s/inventories' % rp['uuid'],
                 json={'resource_provider_generation': 0, 'inventories': {
                     'VCPU': {'total': 32, 'allocation_ratio': 4.0},
                     'MEMORY_MB': {'total': 131072},
                     'DISK_GB': {'total': 2000}}}).raise_for_status()
        http.put(base + '/resource_providers/%s/traits' % rp['uuid'],
                 json={'resource_provider_generation': 1,
                       'traits': traits_for(i)}).raise_for_status()
    return time.perf_counter() - start, count * 3


def load_db(ctx, start: int, count: int) -> float:
    """Bulk insert, in the shape the API writes, for the remainder."""
    began = time.perf_counter()
    with db_session.writer.using(ctx) as session:
        classes = rc_api.ids_by_name(session, ['VCPU', 'MEMORY_MB',
                                               'DISK_GB'])
        traits = trait_api.ids_by_name(
            session, ['HW_CPU_X86_SSE', 'HW_CPU_X86_AVX', 'CUSTOM_GPU'])
        rp = models.ResourceProvider.__table__
        first = (session.scalar(sa.select(sa.func.max(rp.c.id))) or 0) + 1
        ids = list(range(first, first + count))
        session.execute(sa.insert(rp), [
            {'id': pid, 'uuid': uuidutils.generate_uuid(),
             'name': 'db-%05d' % (start + n), 'generation': 2,
             'root_provider_id': pid} for n, pid in enumerate(ids)])
        inventories = []
        for pid in ids:
            inventories += [
                dict(resource_provider_id=pid, resource_class_id=classes[c],
                     total=t, reserved=0, min_unit=1, max_unit=t,
                     step_size=1, allocation_ratio=r)
                for c, t, r in (('VCPU', 32, 4.0), ('MEMORY_MB', 131072, 1.0),
                                ('DISK_GB', 2000, 1.0))]
        session.execute(sa.insert(models.Inventory.__table__), inventories)
        session.execute(sa.insert(models.ResourceProviderTrait.__table__), [
            {'resource_provider_id': pid, 'trait_id': traits[name]}
            for n, pid in enumerate(ids) for name in traits_for(start + n)])
    return time.perf_counter() - began


def time_query(base: str, path: str, repeat: int) -> tuple:
    http = requests.Session()
    http.headers.update(HEADERS)
    http.get(base + path).raise_for_status()  # warm up
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        resp = http.get(base + path)
        samples.append((time.perf_counter() - start) * 1000)
        resp.raise_for_status()
    body = resp.json()
    size = len(body.get('allocation_requests',
                        body.get('resource_providers', [])))
    samples.sort()
    return (statistics.median(samples),
            samples[int(len(samples) * 0.95) - 1], size)


def alone(args) -> None:
    with tempfile.TemporaryDirectory() as workdir:
        ctx = setup(workdir, args.database)
        server, base = serve()
        try:
            api_count = min(args.api_load, args.providers)
            if api_count:
                seconds, reqs = load_api(base, api_count)
                print('API load: %d providers in %.1f s: %.0f providers/s, '
                      '%.0f requests/s' % (api_count, seconds,
                                           api_count / seconds,
                                           reqs / seconds))
            rest = args.providers - api_count
            if rest:
                seconds = load_db(ctx, api_count, rest)
                print('db bulk load: %d providers in %.1f s'
                      % (rest, seconds))
            for path in QUERIES:
                median, p95, size = time_query(base, path, args.requests)
                print('GET %s: median %.1f ms, p95 %.1f ms (%d results)'
                      % (path, median, p95, size))
        finally:
            server.stop()


def main() -> None:
    # Stopped, stop the servers too (the finally blocks).
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(1))
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--alone', action='store_true',
                        help='blazar_ext only, in process, with an API '
                             'load (the former bench).')
    parser.add_argument('--sizes', default='1000,10000')
    parser.add_argument('--ext-only', default='50000')
    parser.add_argument('--scenarios', default='flat,nested')
    parser.add_argument('--upstream-requests', type=int, default=5)
    parser.add_argument('--placement-venv')
    parser.add_argument('--providers', type=int, default=10000)
    parser.add_argument('--api-load', type=int, default=1000)
    parser.add_argument('--requests', type=int)
    parser.add_argument('--block', type=int, default=1,
                        help='requests per turn of each side (1: the two '
                        'alternate request by request)')
    parser.add_argument('--database')
    args = parser.parse_args()
    if args.alone:
        args.requests = args.requests or 20
        alone(args)
    else:
        args.requests = args.requests or 10
        side_by_side(args)


if __name__ == '__main__':
    main()
