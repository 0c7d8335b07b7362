#!/usr/bin/env python3
"""Latency added by ExternalServiceFilter to a lease create.

    python tools/bench/enforcement.py [--leases 100] [--calls 500]

Starts tools/sample_enforcement.py as its own process on 127.0.0.1 (as a
deployment would run its policy service), then measures:

  chain   the enforcement chain's check_create alone: no filters versus
          ExternalServiceFilter posting to the sample service (--calls)
  create  POST /v1/leases through the whole service in process (v1 API,
          the manager called directly as the all-in-one does, SQLite),
          alternating between no filters and ExternalServiceFilter
          (--leases of each)

and prints the medians and the 95th percentiles, and the difference.
"""

import argparse
import datetime
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from oslo_db.sqlalchemy import engines
from oslo_utils import timeutils
import webob

from blazar_ext.api import app as api_app
from blazar_ext import conf as blazar_conf
from blazar_ext.db import migration
from blazar_ext.db import session as db_session
from blazar_ext import enforcement
from blazar_ext.manager import service
from blazar_ext import rpc
from blazar_ext.rpc import manager_client

CONF = blazar_conf.CONF
FMT = '%Y-%m-%d %H:%M'
SAMPLE_SERVICE = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), 'sample_enforcement.py')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def start_sample_service(workdir: str) -> tuple:
    limits = os.path.join(workdir, 'limits.yaml')
    with open(limits, 'w') as f:
        f.write('default:\n  max_hosts: 10\n  max_hours: 100000\n')
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, SAMPLE_SERVICE,
         '--config', limits, '--port', str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = 'http://127.0.0.1:%d' % port
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(('127.0.0.1', port), 0.2).close()
            return proc, url
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit('the sample enforcement service did not start')


def configure(db_path: str) -> None:
    CONF([], project='blazar-ext', default_config_files=[])
    CONF.set_override('state_path', os.path.dirname(db_path))
    CONF.set_override('auth_strategy', 'noauth', group='api')
    CONF.set_override('transport_url', 'fake:/')
    CONF.set_override('event_interval', 3600, group='manager')
    CONF.set_override('connection', 'sqlite:///%s' % db_path,
                      group='database')
    engine = engines.create_engine('sqlite:///%s' % db_path)
    migration.upgrade('head', engine)
    db_session.context_manager.patch_engine(engine)


def request(app, method: str, path: str, body=None) -> webob.Response:
    req = webob.Request.blank(path, method=method)
    req.headers['X-Auth-Token'] = 'admin'
    if body is not None:
        req.body = json.dumps(body).encode()
        req.content_type = 'application/json'
    return req.get_response(app)


def figures(samples: list) -> str:
    ms = sorted(s * 1000 for s in samples)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    return 'median %7.2f ms  p95 %7.2f ms' % (statistics.median(ms), p95)


def bench_chain(url: str, calls: int) -> tuple:
    lease = {'name': 'bench', 'user_id': 'u', 'project_id': 'p',
             'start_date': datetime.datetime(2030, 1, 1),
             'end_date': datetime.datetime(2030, 1, 2),
             'reservations': [{'resource_type': 'physical:host', 'min': 1,
                               'max': 1, 'hypervisor_properties': '',
                               'resource_properties': ''}]}
    results = []
    for endpoint in (None, url):
        CONF.set_override('endpoint_url', endpoint,
                          group='enforcement_external')
        CONF.set_override('enabled_filters', ['ExternalServiceFilter']
                          if endpoint else [], group='enforcement')
        chain = enforcement.get_chain(CONF)
        chain.check_create({'user_id': 'u'}, lease)  # warm the connection
        samples = []
        for _ in range(calls):
            t0 = time.perf_counter()
            chain.check_create({'user_id': 'u'}, lease)
            samples.append(time.perf_counter() - t0)
        results.append(samples)
    CONF.clear_override('endpoint_url', group='enforcement_external')
    CONF.clear_override('enabled_filters', group='enforcement')
    return tuple(results)


def bench_create(url: str, leases: int) -> tuple:
    """Create leases one after the other, alternating the manager's chain
    between no filters and the external filter, so both runs see the same
    database growth. Returns (off samples, on samples)."""
    rpc.cleanup()
    manager_client.reset_client()
    manager = service.ManagerService()
    manager.start()
    # As blazar-ext-all-in-one does on fake://, whose listener polls every
    # 50 ms: that wait would drown the filter's cost.
    manager_client.serve_locally(manager.endpoint)
    CONF.set_override('enabled_filters', [], group='enforcement')
    off_chain = enforcement.get_chain(CONF)
    CONF.set_override('enabled_filters', ['ExternalServiceFilter'],
                      group='enforcement')
    CONF.set_override('endpoint_url', url, group='enforcement_external')
    on_chain = enforcement.get_chain(CONF)
    try:
        app = api_app.build(CONF)
        for i in range(20):
            resp = request(app, 'POST', '/v1/os-hosts',
                           {'name': 'host-%d' % i})
            assert resp.status_int == 201, resp.text
        now = timeutils.utcnow()
        off, on = [], []
        for i in range(2 * leases + 2):
            enforced = i % 2 == 1
            manager.endpoint.leases.enforcement = (
                on_chain if enforced else off_chain)
            start = now + datetime.timedelta(hours=1 + i)
            body = {'name': 'bench-%d' % i,
                    'start_date': start.strftime(FMT),
                    'end_date': (start + datetime.timedelta(minutes=30)
                                 ).strftime(FMT),
                    'reservations': [{'resource_type': 'physical:host',
                                      'min': 1, 'max': 1,
                                      'hypervisor_properties': '',
                                      'resource_properties': ''}]}
            t0 = time.perf_counter()
            resp = request(app, 'POST', '/v1/leases', body)
            elapsed = time.perf_counter() - t0
            assert resp.status_int == 201, resp.text
            if i >= 2:  # the first two warm caches and the connection
                (on if enforced else off).append(elapsed)
        return off, on
    finally:
        manager_client.serve_locally(None)
        manager.stop()
        rpc.cleanup()
        manager_client.reset_client()
        CONF.clear_override('endpoint_url', group='enforcement_external')
        CONF.clear_override('enabled_filters', group='enforcement')


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--leases', type=int, default=100)
    parser.add_argument('--calls', type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix='blazar-ext-bench-') as workdir:
        proc, url = start_sample_service(workdir)
        try:
            configure(os.path.join(workdir, 'bench.sqlite'))
            off, on = bench_chain(url, args.calls)
            print('chain check_create, %d calls' % args.calls)
            print('  no filters             %s' % figures(off))
            print('  ExternalServiceFilter  %s' % figures(on))
            print('  added (median)         %7.2f ms' % (
                (statistics.median(on) - statistics.median(off)) * 1000))
            off, on = bench_create(url, args.leases)
            print('POST /v1/leases, %d leases, 20 hosts' % args.leases)
            print('  enforcement off        %s' % figures(off))
            print('  external filter on     %s' % figures(on))
            print('  added (median)         %7.2f ms' % (
                (statistics.median(on) - statistics.median(off)) * 1000))
        finally:
            proc.terminate()
            proc.wait(10)
    return 0


if __name__ == '__main__':
    sys.exit(main())
