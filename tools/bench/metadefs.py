#!/usr/bin/env python3
"""Median time of the metadefs namespace list with the shipped definitions.

    python tools/bench/metadefs.py [--namespaces 25] [--requests 200]

Loads the shipped definitions (etc/blazar-ext/metadefs) into a fresh SQLite
file, adds copies of the host capabilities namespace until there are
--namespaces namespaces (each with its properties, object, tags and
resource type association), serves the API with cheroot on 127.0.0.1 (noauth)
and times GET /v2/metadefs/namespaces?limit=N over HTTP, as an admin and as
a non-admin (who sees public namespaces through the visibility filter).
Prints the median and the 95th percentile. For comparison, Glance on this
kind of machine: 95 ms for a page of 25 namespaces.
"""

import argparse
import os
import statistics
import tempfile
import threading
import time

from cheroot import wsgi
from oslo_db.sqlalchemy import engines
import requests

from blazar_ext.api import app as api_app
from blazar_ext.cmd import metadefs
from blazar_ext import conf as blazar_conf
from blazar_ext import context as blazar_context
from blazar_ext.db.api.metadefs import namespace as ns_api
from blazar_ext.db import migration
from blazar_ext.db import session as db_session

CONF = blazar_conf.CONF
HOST_NS = 'OS::Blazar::HostCapabilities'


def setup(workdir: str, count: int) -> None:
    CONF([], project='blazar-ext', default_config_files=[])
    CONF.set_override('auth_strategy', 'noauth', group='api')
    CONF.set_override('state_path', workdir)
    url = 'sqlite:///%s' % os.path.join(workdir, 'bench.sqlite')
    CONF.set_override('connection', url, group='database')
    engine = engines.create_engine(url)
    migration.upgrade('head', engine)
    db_session.context_manager.patch_engine(engine)
    ctx = blazar_context.get_admin_context()
    metadefs.load(ctx, metadefs.definitions_dir())
    template = ns_api.namespace_get_full(ctx, HOST_NS)
    existing = len(ns_api.namespace_list(ctx))
    for i in range(max(0, count - existing)):
        ns_api.namespace_create(
            ctx, {'namespace': 'Bench::Copy%02d' % i, 'owner': 'admin',
                  'visibility': 'public', 'protected': False,
                  'display_name': 'Copy %d' % i,
                  'description': template['description']},
            properties=template['properties'],
            objects=[{k: v for k, v in o.items()
                      if k not in ('created_at', 'updated_at')}
                     for o in template['objects']],
            tags=template['tags'],
            associations=[{'name': 'OS::Blazar::Host'}])


def timed(session: requests.Session, url: str, headers: dict,
          n: int, expect: int) -> list:
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        resp = session.get(url, headers=headers)
        samples.append((time.perf_counter() - start) * 1000)
        resp.raise_for_status()
        assert len(resp.json()['namespaces']) == expect, resp.text[:200]
    return samples


def report(label: str, samples: list) -> None:
    samples = sorted(samples)
    p95 = samples[int(len(samples) * 0.95) - 1]
    print('%-34s median %7.2f ms   p95 %7.2f ms   (%d requests)'
          % (label, statistics.median(samples), p95, len(samples)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--namespaces', type=int, default=25)
    parser.add_argument('--requests', type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        setup(workdir, args.namespaces)
        server = wsgi.Server(('127.0.0.1', 0), api_app.build(CONF),
                             numthreads=4)
        server.prepare()
        thread = threading.Thread(target=server.serve, daemon=True)
        thread.start()
        try:
            url = ('http://127.0.0.1:%d/v2/metadefs/namespaces?limit=%d'
                   % (server.bind_addr[1], args.namespaces))
            session = requests.Session()
            admin = {'X-Auth-Token': 'admin'}
            user = {'X-Auth-Token': 'u', 'X-Roles': 'member',
                    'X-Project-Id': 'demo', 'X-User-Id': 'demo'}
            timed(session, url, admin, 10, args.namespaces)  # warm up
            print('namespace list, page of %d namespaces, shipped '
                  'definitions loaded:' % args.namespaces)
            report('admin', timed(session, url, admin, args.requests,
                                  args.namespaces))
            report('non-admin (visibility filter)',
                   timed(session, url, user, args.requests,
                         args.namespaces))
            print('Glance for comparison: 95 ms for a page of 25')
        finally:
            server.stop()


if __name__ == '__main__':
    main()
