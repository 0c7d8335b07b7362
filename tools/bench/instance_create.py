#!/usr/bin/env python3
"""Median time to create a virtual:instance lease (amount=10, vcpus=4)
among many hosts with many existing instance reservations.

    python tools/bench/instance_create.py [--leases 30]
        [--hosts 1000,10000] [--per-host 10]

The whole service in process on a fresh SQLite file, as
tools/bench/lease_create.py runs it. Each host gets a resource provider
with VCPU, MEMORY_MB and DISK_GB inventories and --per-host existing
one-day instance reservations over the coming weeks (10,000 hosts x 10 =
100,000), written in bulk. Each new lease asks for 10 instances of 4 VCPU,
4 GB, 20 GB (affinity null) in a window that overlaps the existing ones
on about half the hosts. Prints the median create time through the API
and through the manager code alone, per host count, and the growth; and
beside each the median CPU time of the process per create, which other
load on a shared machine does not inflate as it does the wall time.
"""

import argparse
import datetime
import os
import shutil
import sys
import tempfile
import time
import uuid

from oslo_config import cfg
from oslo_utils import timeutils
import sqlalchemy as sa

from blazar_ext.api import app as api_app
from blazar_ext import context as blazar_context
from blazar_ext.db.api import instance_capacity
from blazar_ext.db.api.placement import resource_class as rc_api
from blazar_ext.db.models import host as host_models
from blazar_ext.db.models import instance as instance_models
from blazar_ext.db.models import lease as lease_models
from blazar_ext.db.models import placement as placement_models
from blazar_ext.db import session as db_session
from blazar_ext.manager import service
from blazar_ext import rpc
from blazar_ext.rpc import manager_client

# Scripts beside this one (their directory is on sys.path).
import lease_create  # noqa: I100

CONF = cfg.CONF
FMT = '%Y-%m-%d %H:%M'


def load_world(hosts: int, per_host: int,
               base: datetime.datetime) -> int:
    """Hosts with providers and inventories, and existing instance
    reservations; returns how many reservations."""
    context = blazar_context.get_admin_context()
    rc_api.sync_standard_classes(context)
    now = timeutils.utcnow()
    with db_session.writer.using(context) as session:
        classes = rc_api.ids_by_name(session,
                                     ['VCPU', 'MEMORY_MB', 'DISK_GB'])
        session.execute(sa.insert(placement_models.ResourceProvider), [{
            'id': i, 'uuid': str(uuid.uuid4()), 'name': 'host-%d' % i,
            'generation': 1, 'root_provider_id': i}
            for i in range(1, hosts + 1)])
        # Host ids are strings; each host's provider has the same number.
        session.execute(sa.insert(host_models.ComputeHost), [{
            'id': str(i), 'vcpus': 32, 'cpu_info': '{}',
            'hypervisor_type': 'QEMU', 'hypervisor_version': 1,
            'hypervisor_hostname': 'host-%d' % i, 'memory_mb': 131072,
            'local_gb': 1000, 'reservable': True, 'disabled': False,
            'resource_provider_id': i}
            for i in range(1, hosts + 1)])
        session.execute(sa.insert(placement_models.Inventory), [{
            'resource_provider_id': i, 'resource_class_id': classes[name],
            'total': total, 'reserved': 0, 'min_unit': 1,
            'max_unit': total, 'step_size': 1, 'allocation_ratio': ratio}
            for i in range(1, hosts + 1)
            for name, total, ratio in (('VCPU', 32, 4.0),
                                       ('MEMORY_MB', 131072, 1.0),
                                       ('DISK_GB', 1000, 1.0))])
        # Written as an inventory write through the API would.
        instance_capacity.refresh(session, range(1, hosts + 1))
        leases, reservations, details, allocations = [], [], [], []
        for host_id in range(1, hosts + 1):
            for k in range(per_host):
                start = base + datetime.timedelta(
                    days=2 * k + host_id % 2, hours=1)
                end = start + datetime.timedelta(days=1)
                lease_id, res_id = str(uuid.uuid4()), str(uuid.uuid4())
                leases.append({'id': lease_id, 'name': 'e-%d-%d' % (
                    host_id, k), 'project_id': 'bench', 'status': 'PENDING',
                    'degraded': False, 'start_date': start,
                    'end_date': end, 'created_at': now})
                reservations.append({
                    'id': res_id, 'lease_id': lease_id,
                    'resource_type': 'virtual:instance',
                    'status': 'pending', 'missing_resources': False,
                    'resources_changed': False, 'created_at': now})
                details.append({
                    'id': str(uuid.uuid4()), 'reservation_id': res_id,
                    'vcpus': 4, 'memory_mb': 4096, 'disk_gb': 20,
                    'amount': 8, 'affinity': None,
                    'resource_properties': '', 'created_at': now})
                allocations.append({
                    'id': str(uuid.uuid4()),
                    'compute_host_id': str(host_id),
                    'reservation_id': res_id, 'slots': 8, 'vcpus': 4,
                    'memory_mb': 4096, 'disk_gb': 20, 'start_date': start,
                    'end_date': end, 'created_at': now})
        for model, rows in ((lease_models.Lease, leases),
                            (lease_models.Reservation, reservations),
                            (instance_models.InstanceReservation, details),
                            (instance_models.InstanceAllocation,
                             allocations)):
            for i in range(0, len(rows), 20000):
                session.execute(sa.insert(model), rows[i:i + 20000])
    return len(leases)


def body(i: int, start: datetime.datetime) -> dict:
    begin = start + datetime.timedelta(hours=2 * i)
    return {'name': 'bench-%d' % i, 'start_date': begin.strftime(FMT),
            'end_date': (begin + datetime.timedelta(minutes=50))
            .strftime(FMT),
            'reservations': [{
                'resource_type': 'virtual:instance', 'amount': 10,
                'vcpus': 4, 'memory_mb': 4096, 'disk_gb': 20,
                'affinity': None, 'resource_properties': ''}]}


def run(hosts: int, per_host: int, leases: int) -> dict:
    tmp = tempfile.mkdtemp(prefix='blazar-ext-bench-')
    restore = lease_create.configure(os.path.join(tmp, 'bench.sqlite'))
    base = timeutils.utcnow().replace(second=0, microsecond=0)
    t0 = time.perf_counter()
    existing = load_world(hosts, per_host, base)
    load_s = time.perf_counter() - t0
    rpc.cleanup()
    manager_client.reset_client()
    manager = service.ManagerService()
    manager.start()
    manager_client.serve_locally(manager.endpoint)
    try:
        app = api_app.build(CONF)
        start = base + datetime.timedelta(days=1, hours=2)
        api_times, api_cpu, statuses = [], [], {}
        for i in range(leases):
            t, c = time.perf_counter(), time.process_time()
            resp = lease_create.call(app, 'POST', '/v1/leases',
                                     body(i, start))
            api_times.append(time.perf_counter() - t)
            api_cpu.append(time.process_time() - c)
            statuses[resp.status_int] = statuses.get(resp.status_int,
                                                     0) + 1
        context = blazar_context.RequestContext(
            is_admin=True, roles=['admin'], project_id='bench',
            user_id='bench')
        manager_times, manager_cpu = [], []
        for i in range(leases, 2 * leases):
            t, c = time.perf_counter(), time.process_time()
            manager.endpoint.leases.create_lease(context, body(i, start))
            manager_times.append(time.perf_counter() - t)
            manager_cpu.append(time.process_time() - c)
    finally:
        manager.stop()
        rpc.cleanup()
        manager_client.reset_client()
        restore()
        CONF.reset()
        CONF.clear_override('connection', group='database')
        shutil.rmtree(tmp, ignore_errors=True)
    return {'hosts': hosts, 'existing': existing, 'load_s': load_s,
            'api_ms': lease_create.median_ms(api_times),
            'manager_ms': lease_create.median_ms(manager_times),
            'api_cpu_ms': lease_create.median_ms(api_cpu),
            'manager_cpu_ms': lease_create.median_ms(manager_cpu),
            'statuses': statuses}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--leases', type=int, default=30)
    parser.add_argument('--hosts', default='1000,10000')
    parser.add_argument('--per-host', type=int, default=10)
    args = parser.parse_args(argv)
    print('%7s %9s %8s %10s %11s %8s %8s %10s' % (
        'hosts', 'existing', 'load s', 'create ms', 'manager ms',
        'cpu ms', 'mgr cpu', 'statuses'))
    results = []
    for hosts in [int(h) for h in args.hosts.split(',')]:
        r = run(hosts, args.per_host, args.leases)
        results.append(r)
        print('%7d %9d %8.1f %10.2f %11.2f %8.2f %8.2f %10s' % (
            r['hosts'], r['existing'], r['load_s'], r['api_ms'],
            r['manager_ms'], r['api_cpu_ms'], r['manager_cpu_ms'],
            ','.join('%d:%d' % kv for kv in sorted(r['statuses'].items()))))
        sys.stdout.flush()
    if len(results) > 1:
        first, last = results[0], results[-1]
        print('growth %d -> %d hosts: create x%.2f, manager x%.2f; '
              'CPU time: create x%.2f, manager x%.2f' % (
                  first['hosts'], last['hosts'],
                  last['api_ms'] / first['api_ms'],
                  last['manager_ms'] / first['manager_ms'],
                  last['api_cpu_ms'] / first['api_cpu_ms'],
                  last['manager_cpu_ms'] / first['manager_cpu_ms']))
    print('(medians of %d creates of amount=10, vcpus=4 through the API '
          'and %d through the manager code alone; "cpu ms" is the '
          "process's CPU time per create, which other load on the machine "
          'does not inflate)' % (args.leases, args.leases))
    return 0


if __name__ == '__main__':
    cfg.CONF.import_group('manager', 'blazar_ext.conf.manager')
    sys.exit(main())
