#!/usr/bin/env python3
"""Placement-compatible API at scale: load rate and query latency.

    python tools/bench/placement.py [--providers 10000] [--api-load 1000]
                                    [--requests 20] [--database URL]

Serves the API with cheroot on 127.0.0.1 (noauth) over a fresh SQLite file
(or --database, e.g. a MySQL or PostgreSQL URL of an empty database).
Loads --api-load providers through the HTTP API (POST provider, PUT
inventories VCPU/MEMORY_MB/DISK_GB, PUT traits) and prints that load rate,
then bulk-loads the rest through the db layer, up to --providers. Every
provider has HW_CPU_X86_SSE; half have HW_CPU_X86_AVX, one in ten has
CUSTOM_GPU. Then prints the median and 95th percentile of

    GET /allocation_candidates?resources=VCPU:1
        &required=HW_CPU_X86_AVX,!CUSTOM_GPU
    GET /resource_providers?required=HW_CPU_X86_AVX,!CUSTOM_GPU

with and without a limit. Upstream Placement on this kind of machine at
10,000 providers: 733 ms and 131 ms, about 57 requests per second loading.

Figures (2 cores, SQLite file, ``--api-load 300 --requests 10``, medians;
"before" is the code at 186da97, both measured back to back):

=====================================  ==========  ==========
query / load                           before      after
=====================================  ==========  ==========
allocation_candidates (4000 results)   186-199 ms  73-75 ms
allocation_candidates, limit=100       32-34 ms    7-8 ms
resource_providers (4000 results)      75 ms       38-39 ms
API load                               54-58 rp/s  64 rp/s
=====================================  ==========  ==========

The same on MariaDB 10.11 / PostgreSQL 15 (``--database``, fresh
databases, not analyzed), before -> after: candidates 359 -> 167 ms /
211 -> 100 ms; with limit=100 37 -> 11 ms / 35 -> 30 ms; providers
93 -> 60 ms / 80 -> 43 ms; load 58 -> 73 / 65 -> 72 providers/s.

Where the time went, and what changed: the candidate query ran twice
and joined inventories (so a limit could not stop the scan); every row
became nested dicts twice before the encoder; and the rows kept alive
woke a full garbage collection over the whole process on every large
request (about 40% of it). See git log -- blazar_ext/db/api/placement.
"""

import argparse
import os
import statistics
import tempfile
import threading
import time

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
HEADERS = {'X-Auth-Token': 'admin',
           'OpenStack-API-Version': 'placement 1.39'}
QUERIES = [
    '/allocation_candidates?resources=VCPU:1'
    '&required=HW_CPU_X86_AVX,!CUSTOM_GPU',
    '/allocation_candidates?resources=VCPU:1'
    '&required=HW_CPU_X86_AVX,!CUSTOM_GPU&limit=100',
    '/resource_providers?required=HW_CPU_X86_AVX,!CUSTOM_GPU',
]


def traits_for(i: int) -> list:
    traits = ['HW_CPU_X86_SSE']
    if i % 2 == 0:
        traits.append('HW_CPU_X86_AVX')
    if i % 10 == 0:
        traits.append('CUSTOM_GPU')
    return traits


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--providers', type=int, default=10000)
    parser.add_argument('--api-load', type=int, default=1000)
    parser.add_argument('--requests', type=int, default=20)
    parser.add_argument('--database')
    args = parser.parse_args()
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


if __name__ == '__main__':
    main()
