#!/usr/bin/env python3
"""Median time to find a slot (POST /v1/leases/plan), against the way
users of upstream Blazar answer the same question today.

    python tools/bench/slot_search.py [--hosts 1000,10000,50000]
        [--per-host 10] [--runs 15] [--upstream-runs 3] [--workdir DIR]

For each host count: a fresh SQLite file, hosts with the 20 capabilities
of tools/bench/seed.py (a third with gpu=True), --per-host reservations
per host over the next 30 days (random lengths of 6 hours to 3 days, in
bulk through tools/bench/lease_import.py), then two questions over a
30-day window, limit=5:

  small  4 GPU hosts for 48 hours
  large  1/10 of the GPU hosts for 48 hours

each asked --runs times through the v1 API in process (the app, noauth,
as the all-in-one serves it), and the medians of wall and CPU (process)
time printed, with the load average and a calibration loop's CPU time.
Beside it, the upstream way, on the same data in the same run: GET
/v1/os-hosts (to know which hosts have a GPU), GET
/v1/os-hosts/allocations (every allocation), then the free windows
computed in Python (per host, the gaps between its allocations; a sweep
over the gaps long enough for the earliest starts where enough hosts are
free): the medians of --upstream-runs, and the
ratio of CPU times (the less load-dependent one).

With --workdir, the seeded files are kept there (slot-HOSTS-PER.sqlite
and its base date in slot-HOSTS-PER.json) and reused by later runs, so
that two trees (one on PYTHONPATH) can be measured alternately on the
same data; a reused file is good for the day after it was seeded.
"""

import argparse
import datetime
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
import uuid

from oslo_utils import timeutils
import sqlalchemy as sa
import webob

from blazar_ext.api import app as api_app
from blazar_ext import context as blazar_context
from blazar_ext.db.api import capability as capability_api
from blazar_ext.db.models import host as host_models
from blazar_ext.db import session as db_session
from blazar_ext.query import language

# Scripts beside this one (its directory is on sys.path).
import lease_create  # noqa: I100
import lease_import
import seed

CONF = lease_create.CONF
FMT = '%Y-%m-%d %H:%M'
DAY = datetime.timedelta(days=1)
GPU = '["==", "$gpu", "True"]'


def load_hosts(count: int) -> list:
    """Bulk-insert hosts with seed's 20 capabilities; their ids."""
    context = blazar_context.get_admin_context()
    cap_ids = {name: str(uuid.uuid4()) for name in seed.CAPABILITY_NAMES}
    with db_session.writer.using(context) as session:
        session.execute(sa.insert(host_models.ExtraCapability), [
            {'id': cap_id, 'resource_type': 'physical:host',
             'capability_name': name, 'private': False}
            for name, cap_id in cap_ids.items()])
        for low in range(1, count + 1, 5000):
            hosts, values = [], []
            for i in range(low, min(low + 5000, count + 1)):
                hosts.append(dict(seed.host_columns(i), id=i,
                                  reservable=True, disabled=False))
                for name, value in seed.capabilities(i).items():
                    values.append({
                        'id': str(uuid.uuid4()), 'computehost_id': i,
                        'capability_id': cap_ids[name],
                        'capability_value': value,
                        'capability_number': language.number_of(value)})
            session.execute(sa.insert(host_models.ComputeHost), hosts)
            session.execute(
                sa.insert(host_models.ComputeHostExtraCapability), values)
        capability_api.fill_values(session, 'physical:host')
    return list(range(1, count + 1))


def load_reservations(host_ids: list, per_host: int,
                      base: datetime.datetime) -> int:
    """``per_host`` reservations per host over the 30 days after
    ``base``, 6 hours to 3 days long, apart on each host."""
    rng = random.Random(29)
    context = blazar_context.get_admin_context()
    total, batch = 0, []
    for host_id in host_ids:
        cursor = base + datetime.timedelta(hours=rng.randrange(0, 48))
        for k in range(per_host):
            length = datetime.timedelta(hours=rng.randrange(6, 72))
            batch.append({'name': 'existing-%d-%d' % (host_id, k),
                          'project_id': 'bench', 'host_id': host_id,
                          'start_date': cursor,
                          'end_date': cursor + length})
            cursor += length + datetime.timedelta(
                hours=rng.randrange(1, 36))
        if len(batch) >= 20000:
            total += lease_import.bulk_import(context, batch)
            batch = []
    if batch:
        total += lease_import.bulk_import(context, batch)
    return total


def call(app, method: str, path: str, body=None) -> webob.Response:
    resp = lease_create.call(app, method, path, body)
    assert resp.status_int == 200, resp.text
    return resp


def plan_body(count: int, base: datetime.datetime) -> dict:
    return {'reservations': [{
        'resource_type': 'physical:host', 'min': count, 'max': count,
        'hypervisor_properties': '', 'resource_properties': GPU}],
        'duration': 48 * 3600, 'not_before': base.strftime(FMT),
        'not_after': (base + 30 * DAY).strftime(FMT), 'limit': 5}


def _parse(value: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(value.replace('Z', ''))


def upstream_way(app, count: int, base: datetime.datetime,
                 limit: int = 5) -> list:
    """What a user of upstream does: list hosts and every allocation,
    then compute the earliest ``limit`` starts where ``count`` GPU hosts
    are free for 48 hours, in Python."""
    hosts = json.loads(call(app, 'GET', '/v1/os-hosts').body)['hosts']
    gpu = {str(h['id']) for h in hosts if str(h.get('gpu')) == 'True'}
    allocations = json.loads(call(
        app, 'GET', '/v1/os-hosts/allocations').body)['allocations']
    start, end = base, base + 30 * DAY
    duration = datetime.timedelta(hours=48)
    events = []
    for allocation in allocations:
        if str(allocation['resource_id']) not in gpu:
            continue
        busy = sorted((_parse(r['start_date']), _parse(r['end_date']))
                      for r in allocation['reservations'])
        cursor = start
        for b_start, b_end in busy + [(end, end)]:
            if b_start - cursor >= duration:
                # Starts from cursor to b_start - duration are free.
                events.append((cursor, 0))
                events.append((b_start - duration, 1))
            cursor = max(cursor, b_end)
    # Hosts without any allocation are free throughout.
    idle = len(gpu) - len({str(a['resource_id']) for a in allocations
                           if str(a['resource_id']) in gpu})
    events.sort()
    level, found = idle, []
    if level >= count:
        found.append(start)
    for when, kind in events:
        level += 1 if kind == 0 else -1
        if kind == 0 and level == count and (not found or
                                             found[-1] != when):
            found.append(when)
            if len(found) >= limit:
                break
    return found


CALIBRATION = ('calibration: 3,000,000 additions in a Python loop took '
               '%.0f ms of CPU (compare runs by it); load %.1f')


def calibrate() -> tuple:
    """CPU time of a fixed loop, to read the figures by: a loaded machine
    slows every process's CPU time too (shared caches, SMT)."""
    c = time.process_time()
    total = 0
    for i in range(3000000):
        total += i
    return (time.process_time() - c) * 1000, os.getloadavg()[0]


def median_ms(samples: list) -> float:
    return statistics.median(samples) * 1000


def seeded(hosts: int, per_host: int, workdir: str | None) -> tuple:
    """(undo, base date, reservations, load seconds, directory to remove
    or None): a fresh file, or the one kept in ``workdir``."""
    tmp = workdir or tempfile.mkdtemp(prefix='blazar-ext-bench-')
    name = os.path.join(tmp, 'slot-%d-%d' % (hosts, per_host))
    kept = workdir is not None and os.path.exists(name + '.json')
    restore = lease_create.configure(name + '.sqlite')
    if kept:
        with open(name + '.json') as f:
            meta = json.load(f)
        return (restore, datetime.datetime.fromisoformat(meta['base']),
                meta['reservations'], 0.0, None)
    base = timeutils.utcnow().replace(second=0, microsecond=0) + DAY
    t0 = time.perf_counter()
    existing = load_reservations(load_hosts(hosts), per_host, base)
    load_s = time.perf_counter() - t0
    if workdir is not None:
        with open(name + '.json', 'w') as f:
            json.dump({'base': base.isoformat(),
                       'reservations': existing}, f)
    return restore, base, existing, load_s, None if workdir else tmp


def run(hosts: int, per_host: int, runs: int, upstream_runs: int,
        workdir: str | None = None) -> dict:
    restore, base, existing, load_s, tmp = seeded(hosts, per_host, workdir)
    results = {'hosts': hosts, 'reservations': existing, 'load_s': load_s}
    try:
        app = api_app.build(CONF)
        results['calibration_ms'] = calibrate()[0]
        gpu_hosts = hosts // 3
        for name, count in (('small', 4), ('large', max(gpu_hosts // 10,
                                                        1))):
            body = plan_body(count, base)
            times, cpu = [], []
            for _ in range(runs):
                t, c = time.perf_counter(), time.process_time()
                options = json.loads(call(app, 'POST', '/v1/leases/plan',
                                          body).body)['options']
                times.append(time.perf_counter() - t)
                cpu.append(time.process_time() - c)
            up_times, up_cpu = [], []
            for _ in range(upstream_runs):
                t, c = time.perf_counter(), time.process_time()
                upstream = upstream_way(app, count, base)
                up_times.append(time.perf_counter() - t)
                up_cpu.append(time.process_time() - c)
            results[name] = {
                'count': count, 'options': len(options),
                'first': options[0]['start_date'] if options else None,
                'upstream_first': (upstream[0].strftime(FMT)
                                   if upstream else None),
                'plan_ms': median_ms(times), 'plan_cpu_ms': median_ms(cpu),
                'upstream_ms': median_ms(up_times),
                'upstream_cpu_ms': median_ms(up_cpu),
                'load': os.getloadavg()[0]}
    finally:
        restore()
        CONF.reset()
        CONF.clear_override('connection', group='database')
        # A 50,000-host file is a gigabyte.
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--hosts', default='1000,10000,50000',
                        help='Host counts, comma-separated.')
    parser.add_argument('--per-host', type=int, default=10)
    parser.add_argument('--runs', type=int, default=15)
    parser.add_argument('--upstream-runs', type=int, default=3)
    parser.add_argument('--workdir', default=None,
                        help='Keep the seeded files here and reuse them.')
    args = parser.parse_args(argv)
    print(CALIBRATION % calibrate())
    print('%7s %9s %7s %-6s %6s %8s %14s %14s %7s %6s %s' % (
        'hosts', 'reserv.', 'load s', 'ask', 'count', 'options',
        'plan wall/cpu', 'upstream w/c', 'ratio', 'load1',
        'first option (upstream\'s)'))
    for hosts in [int(h) for h in args.hosts.split(',')]:
        r = run(hosts, args.per_host, args.runs, args.upstream_runs,
                args.workdir)
        print('  (calibration before these runs: %.0f ms)'
              % r['calibration_ms'])
        for name in ('small', 'large'):
            q = r[name]
            print('%7d %9d %7.1f %-6s %6d %8d %6.1f/%6.1f %6.0f/%6.0f '
                  '%6.0fx %6.1f %s (%s)'
                  % (hosts, r['reservations'], r['load_s'], name,
                     q['count'], q['options'], q['plan_ms'],
                     q['plan_cpu_ms'], q['upstream_ms'],
                     q['upstream_cpu_ms'],
                     q['upstream_cpu_ms'] / q['plan_cpu_ms'], q['load'],
                     q['first'], q['upstream_first']))
        sys.stdout.flush()
    return 0


if __name__ == '__main__':
    sys.exit(main())
