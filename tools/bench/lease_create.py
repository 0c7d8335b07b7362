#!/usr/bin/env python3
"""Median time to create a lease and to list hosts, through the API.

    python tools/bench/lease_create.py [--leases 50] [--lists 10]
        [--scenario small|large|both]

Runs the whole service in process, as the all-in-one does: the v1 API app
(noauth), the manager over oslo.messaging's fake:// transport, and a fresh
migrated SQLite file. Two scenarios:

  small  200 hosts, no existing reservations
  large  10,000 hosts and 100,000 existing reservations (ten per host,
         loaded in bulk through tools/bench/lease_import.bulk_import)

Each host has a few extra capabilities. For each scenario it creates
--leases leases (POST /v1/leases, one physical:host reservation, min=max=1,
filtered on a capability) and lists hosts --lists times (GET /v1/os-hosts),
and prints the medians. Upstream Blazar: 0.5-2 s per lease at 200 hosts,
750 ms to list 200 hosts.
"""

import argparse
import datetime
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid

from oslo_config import cfg
from oslo_db.sqlalchemy import engines
from oslo_utils import timeutils
import sqlalchemy as sa
import webob

from blazar_ext.api import app as api_app
from blazar_ext import conf as blazar_conf
from blazar_ext import context as blazar_context
from blazar_ext.db.api import capability as capability_api
from blazar_ext.db import migration
from blazar_ext.db.models import host as host_models
from blazar_ext.db import session as db_session
from blazar_ext.manager import service
from blazar_ext.query import language
from blazar_ext import rpc
from blazar_ext.rpc import manager_client

# A script beside this one (its directory is on sys.path).
import lease_import  # noqa: I100

CONF = blazar_conf.CONF
FMT = '%Y-%m-%d %H:%M'


def configure(path: str, wal: bool = False):
    """Point the service at a fresh SQLite file; returns the undo.

    ``wal`` switches the file to WAL with synchronous=NORMAL, to show how
    much of a create is the fsync of SQLite's default durable commit.
    """
    CONF([], project='blazar-ext', default_config_files=[])
    CONF.set_override('state_path', os.path.dirname(path))
    CONF.set_override('auth_strategy', 'noauth', group='api')
    CONF.set_override('transport_url', 'fake:/')
    CONF.set_override('event_interval', 3600, group='manager')
    CONF.set_override('connection', 'sqlite:///%s' % path, group='database')
    engine = engines.create_engine('sqlite:///%s' % path)
    if wal:
        @sa.event.listens_for(engine, 'connect')
        def _pragmas(dbapi_connection, record):
            cursor = dbapi_connection.cursor()
            cursor.execute('PRAGMA journal_mode=WAL')
            cursor.execute('PRAGMA synchronous=NORMAL')
            cursor.close()
    migration.upgrade('head', engine)
    return db_session.context_manager.patch_engine(engine)


def load_hosts(count: int) -> list:
    """Bulk-insert hosts with four capabilities each; returns their ids."""
    context = blazar_context.get_admin_context()
    names = ['gpu', 'rack', 'nic', 'cpu_model']
    cap_ids = {name: str(uuid.uuid4()) for name in names}
    hosts, values = [], []
    for i in range(1, count + 1):
        hosts.append({
            'id': i, 'vcpus': 8 * (1 + i % 8), 'cpu_info': '{}',
            'hypervisor_type': 'QEMU', 'hypervisor_version': 1,
            'hypervisor_hostname': 'host-%d' % i,
            'memory_mb': 4096 * (1 + i % 32), 'local_gb': 100,
            'reservable': True, 'disabled': False})
        capability = {'gpu': 'true' if i % 3 == 0 else 'false',
                      'rack': 'r%d' % (i % 50),
                      'nic': str((10, 25, 40, 100)[i % 4]),
                      'cpu_model': ('Haswell', 'Skylake')[i % 2]}
        for name, value in capability.items():
            values.append({'id': str(uuid.uuid4()), 'computehost_id': i,
                           'capability_id': cap_ids[name],
                           'capability_value': value,
                           'capability_number': language.number_of(value)})
    with db_session.writer.using(context) as session:
        session.execute(sa.insert(host_models.ExtraCapability), [
            {'id': cap_id, 'resource_type': 'physical:host',
             'capability_name': name, 'private': False}
            for name, cap_id in cap_ids.items()])
        session.execute(sa.insert(host_models.ComputeHost), hosts)
        session.execute(sa.insert(host_models.ComputeHostExtraCapability),
                        values)
        capability_api.fill_values(session, 'physical:host')
    return [h['id'] for h in hosts]


def load_reservations(host_ids: list, per_host: int,
                      base: datetime.datetime) -> int:
    """Ten one-day reservations per host over the coming weeks; about half
    the hosts are busy on any given day."""
    context = blazar_context.get_admin_context()
    total = 0
    batch = []
    for host_id in host_ids:
        for k in range(per_host):
            start = base + datetime.timedelta(days=2 * k + host_id % 2,
                                              hours=1)
            batch.append({'name': 'existing-%d-%d' % (host_id, k),
                          'project_id': 'bench', 'host_id': host_id,
                          'start_date': start,
                          'end_date': start + datetime.timedelta(days=1)})
        if len(batch) >= 20000:
            total += lease_import.bulk_import(context, batch)
            batch = []
    if batch:
        total += lease_import.bulk_import(context, batch)
    return total


def call(app, method: str, path: str, body=None) -> webob.Response:
    req = webob.Request.blank(path, method=method)
    req.headers['X-Auth-Token'] = 'admin'
    if body is not None:
        req.body = json.dumps(body).encode()
        req.content_type = 'application/json'
    return req.get_response(app)


def median_ms(samples: list) -> float:
    return statistics.median(samples) * 1000


def run(hosts: int, per_host: int, leases: int, lists: int,
        wal: bool = False, over_rpc: bool = False) -> dict:
    tmp = tempfile.mkdtemp(prefix='blazar-ext-bench-')
    restore = configure(os.path.join(tmp, 'bench.sqlite'), wal)
    t0 = time.perf_counter()
    host_ids = load_hosts(hosts)
    # The new leases' windows sit between the existing ones' boundaries
    # (1 h past each day mark from ``base``).
    base = timeutils.utcnow().replace(second=0, microsecond=0)
    existing = (load_reservations(host_ids, per_host, base) if per_host
                else 0)
    load_s = time.perf_counter() - t0
    rpc.cleanup()
    manager_client.reset_client()
    manager = service.ManagerService()
    manager.start()
    if not over_rpc:
        # As blazar-ext-all-in-one does on fake://.
        manager_client.serve_locally(manager.endpoint)
    try:
        app = api_app.build(CONF)
        start = base + datetime.timedelta(days=1, hours=2)
        create_times, status = [], {}
        for i in range(leases):
            begin = start + datetime.timedelta(hours=2 * i)
            body = {'name': 'bench-%d' % i,
                    'start_date': begin.strftime(FMT),
                    'end_date': (begin + datetime.timedelta(minutes=50))
                    .strftime(FMT),
                    'reservations': [{
                        'resource_type': 'physical:host', 'min': 1,
                        'max': 1, 'hypervisor_properties':
                        '[">=", "$memory_mb", "8192"]',
                        'resource_properties':
                        '["==", "$gpu", "true"]'}],
                    'events': []}
            t = time.perf_counter()
            resp = call(app, 'POST', '/v1/leases', body)
            create_times.append(time.perf_counter() - t)
            status[resp.status_int] = status.get(resp.status_int, 0) + 1
        # The same through the manager's lease code alone, without the API
        # and the fake:// transport (whose listener polls every 50 ms).
        manager_times = []
        context = blazar_context.RequestContext(
            is_admin=True, roles=['admin'], project_id='bench',
            user_id='bench')
        for i in range(leases, 2 * leases):
            begin = start + datetime.timedelta(hours=2 * i)
            body = {'name': 'bench-%d' % i,
                    'start_date': begin.strftime(FMT),
                    'end_date': (begin + datetime.timedelta(minutes=50))
                    .strftime(FMT),
                    'reservations': [{
                        'resource_type': 'physical:host', 'min': 1,
                        'max': 1, 'hypervisor_properties':
                        '[">=", "$memory_mb", "8192"]',
                        'resource_properties':
                        '["==", "$gpu", "true"]'}]}
            t = time.perf_counter()
            manager.endpoint.leases.create_lease(context, body)
            manager_times.append(time.perf_counter() - t)
        list_times = []
        for _ in range(lists):
            t = time.perf_counter()
            resp = call(app, 'GET', '/v1/os-hosts')
            list_times.append(time.perf_counter() - t)
            assert resp.status_int == 200, resp.text
        listed = len(json.loads(resp.body)['hosts'])
    finally:
        manager.stop()
        rpc.cleanup()
        manager_client.reset_client()
        restore()
        CONF.reset()
        CONF.clear_override('connection', group='database')
        shutil.rmtree(tmp, ignore_errors=True)
    return {'hosts': hosts, 'existing_reservations': existing,
            'load_s': load_s, 'create_ms': median_ms(create_times),
            'create_status': status,
            'manager_ms': median_ms(manager_times),
            'list_ms': median_ms(list_times),
            'listed': listed}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--leases', type=int, default=50)
    parser.add_argument('--lists', type=int, default=10)
    parser.add_argument('--scenario', choices=('small', 'large', 'both'),
                        default='both')
    parser.add_argument('--rpc', action='store_true',
                        help='API to manager over the fake:// transport '
                             '(default: the direct in-process call the '
                             'all-in-one makes)')
    parser.add_argument('--wal', action='store_true',
                        help='SQLite in WAL mode with synchronous=NORMAL '
                             '(default: SQLite defaults, fsync per commit)')
    args = parser.parse_args(argv)
    scenarios = {'small': (200, 0), 'large': (10000, 10)}
    chosen = (['small', 'large'] if args.scenario == 'both'
              else [args.scenario])
    print('%-6s %7s %9s %8s %12s %10s %11s %12s' % (
        'case', 'hosts', 'existing', 'load s', 'create ms', 'statuses',
        'manager ms', 'list ms'))
    for name in chosen:
        hosts, per_host = scenarios[name]
        r = run(hosts, per_host, args.leases, args.lists, args.wal,
                args.rpc)
        print('%-6s %7d %9d %8.1f %12.2f %10s %11.2f %12.1f' % (
            name, r['hosts'], r['existing_reservations'], r['load_s'],
            r['create_ms'],
            ','.join('%d:%d' % kv
                     for kv in sorted(r['create_status'].items())),
            r['manager_ms'], r['list_ms']))
        sys.stdout.flush()
    print('(medians of %d lease creates through the API, %d more through '
          'the manager code alone, and %d host lists; upstream Blazar: '
          '500-2000 ms per lease at 200 hosts, 750 ms to list 200 hosts)'
          % (args.leases, args.leases, args.lists))
    return 0


if __name__ == '__main__':
    cfg.CONF.import_group('manager', 'blazar_ext.conf.manager')
    sys.exit(main())
