#!/usr/bin/env python3
"""Time to book a lease series, and to schedule maintenance on many hosts.

    python tools/bench/series_maintenance.py [--hosts 10000] [--per-host 10]
        [--series 5] [--count 52] [--maintenance-hosts 100]
        [--affected-per-host 10] [--profile series|maintenance]

Runs the manager in process on a fresh migrated SQLite file, loaded as
tools/bench/lease_create.py's large scenario (four capabilities per host,
ten one-day reservations per host in bulk). Then:

- series: --series times, a weekly series of --count occurrences asking
  for one host (``["==", "$gpu", "true"]``), every occurrence booked at
  create (the horizon is set past the last one): the manager's
  create_series, timed (rule, enforcement seam, one allocating
  transaction with one savepoint and one selection per occurrence,
  commit, notifications);
- maintenance: --maintenance-hosts more hosts each hold
  --affected-per-host one-hour leases; a maintenance window covering them
  is scheduled on each host in turn (what POST
  /v1/os-hosts/{id}/maintenance runs), and the total is timed, with the
  number of reservations moved and left.

--profile runs one part under cProfile and prints the 25 functions with
the most cumulative time, then blazar_ext's 40 (the figures are then
slower).
"""

import argparse
import contextlib
import cProfile
import datetime
import os
import pstats
import shutil
import statistics
import sys
import tempfile
import time

from oslo_config import cfg
from oslo_utils import timeutils

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import lease_create  # noqa: E402
import lease_import  # noqa: E402

from blazar_ext import context as blazar_context  # noqa: E402
from blazar_ext.manager import endpoint as manager_endpoint  # noqa: E402

CONF = cfg.CONF
GPU = '["==", "$gpu", "true"]'
FMT = '%Y-%m-%d %H:%M'


def bench_series(endpoint, rounds: int, count: int,
                 base: datetime.datetime) -> list:
    context = blazar_context.RequestContext(user_id='bench',
                                            project_id='bench')
    times = []
    for n in range(rounds):
        start = base + datetime.timedelta(days=1, hours=n)
        values = {'name': 'series-%d' % n,
                  'start_date': start.strftime(FMT),
                  'end_date': (start + datetime.timedelta(minutes=50))
                  .strftime(FMT),
                  'recurrence': 'FREQ=WEEKLY;COUNT=%d' % count,
                  'reservations': [{'resource_type': 'physical:host',
                                    'min': 1, 'max': 1,
                                    'hypervisor_properties': '',
                                    'resource_properties': GPU}]}
        t, cpu = time.perf_counter(), time.process_time()
        result = endpoint.create_lease_series(context, values)
        times.append(time.perf_counter() - t)
        print('series %d: %.0f ms (%.0f ms CPU), %d skipped' % (
            n + 1, times[-1] * 1000, (time.process_time() - cpu) * 1000,
            len(result['skipped'])))
        sys.stdout.flush()
    return times


def load_affected(host_ids: list, per_host: int,
                  base: datetime.datetime) -> datetime.datetime:
    """``per_host`` one-hour leases on each host; the end of the last."""
    context = blazar_context.get_admin_context()
    start = base + datetime.timedelta(days=1, hours=2)
    lease_import.bulk_import(context, [
        {'name': 'affected-%s-%d' % (host_id, i), 'project_id': 'bench',
         'host_id': host_id,
         'start_date': start + datetime.timedelta(hours=i),
         'end_date': start + datetime.timedelta(hours=i, minutes=50)}
        for host_id in host_ids for i in range(per_host)])
    return start + datetime.timedelta(hours=per_host)


def bench_maintenance(endpoint, host_ids: list,
                      base: datetime.datetime,
                      end: datetime.datetime) -> tuple:
    context = blazar_context.get_admin_context()
    window = {'start_date': (base + datetime.timedelta(days=1))
              .strftime(FMT), 'end_date': end.strftime(FMT),
              'reason': 'bench'}
    moved = unmovable = 0
    t, cpu = time.perf_counter(), time.process_time()
    for host_id in host_ids:
        result = endpoint.schedule_maintenance(context, str(host_id),
                                               window)
        moved += len(result['moved'])
        unmovable += len(result['unmovable'])
    return (time.perf_counter() - t, time.process_time() - cpu, moved,
            unmovable)


@contextlib.contextmanager
def profiled(enabled: bool):
    """Profile the block when ``enabled``; print the top functions."""
    if not enabled:
        yield
        return
    # CPU time: on a busy machine wall time mostly measures the others.
    profile = cProfile.Profile(time.process_time)
    profile.enable()
    try:
        yield
    finally:
        profile.disable()
        stats = pstats.Stats(profile, stream=sys.stdout)
        stats.sort_stats('cumulative').print_stats(25)
        # And blazar_ext's own functions, where a cut would be made.
        stats.sort_stats('cumulative').print_stats('blazar_ext', 40)


def run(args) -> int:
    tmp = tempfile.mkdtemp(prefix='blazar-ext-bench-')
    restore = lease_create.configure(os.path.join(tmp, 'bench.sqlite'))
    CONF.set_override('series_horizon_days', 400, group='manager')
    try:
        t0 = time.perf_counter()
        host_ids = lease_create.load_hosts(args.hosts
                                           + args.maintenance_hosts)
        serviced = host_ids[args.hosts:]
        base = timeutils.utcnow().replace(second=0, microsecond=0)
        existing = lease_create.load_reservations(host_ids[:args.hosts],
                                                  args.per_host, base)
        end = load_affected(serviced, args.affected_per_host, base)
        print('loaded %d hosts, %d reservations (%d on the %d hosts to '
              'service) in %.1f s'
              % (len(host_ids), existing + len(serviced)
                 * args.affected_per_host,
                 len(serviced) * args.affected_per_host, len(serviced),
                 time.perf_counter() - t0))
        endpoint = manager_endpoint.ManagerEndpoint()
        with profiled(args.profile == 'series'):
            times = bench_series(endpoint, args.series, args.count, base)
        print('weekly series of %d occurrences among %d hosts: median '
              '%.0f ms (min %.0f, max %.0f, %d series)'
              % (args.count, len(host_ids), statistics.median(times) * 1000,
                 min(times) * 1000, max(times) * 1000, args.series))
        with profiled(args.profile == 'maintenance'):
            elapsed, cpu, moved, unmovable = bench_maintenance(
                endpoint, serviced, base, end)
        print('maintenance on %d hosts, %d affected reservations: %.2f s '
              '(%.2f s CPU; %d moved, %d unmovable)'
              % (len(serviced), len(serviced) * args.affected_per_host,
                 elapsed, cpu, moved, unmovable))
    finally:
        restore()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--hosts', type=int, default=10000)
    parser.add_argument('--per-host', type=int, default=10)
    parser.add_argument('--series', type=int, default=5)
    parser.add_argument('--count', type=int, default=52)
    parser.add_argument('--maintenance-hosts', type=int, default=100)
    parser.add_argument('--affected-per-host', type=int, default=10)
    parser.add_argument('--profile', choices=('series', 'maintenance'))
    return run(parser.parse_args(argv))


if __name__ == '__main__':
    sys.exit(main())
