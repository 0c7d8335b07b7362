#!/usr/bin/env python3
"""Cost of the budget and the four fair-use filters on a lease create.

    python tools/bench/budget_enforcement.py [--hosts 10000] [--per-host 10]
        [--leases 40] [--profile PREFIX]

Loads --hosts hosts with four capabilities and --per-host one-day
reservations each (another project's, in bulk, as
tools/bench/lease_create.py does) into a fresh SQLite file, then creates
leases through the manager's lease code (one physical:host reservation
filtered on a capability), alternating between no filters and
BudgetFilter + MaxConcurrentUsageFilter + MaxFutureLeasesFilter +
MaxAdvanceBookingFilter + AntiStackingFilter (with a budget, two rates
and every rule set), so both see the same database. Prints the medians
and 90th percentiles, wall clock and CPU, and their differences.
--profile writes cProfile statistics of the creates with the filters off
and on to PREFIX.off and PREFIX.on (read them with python -m pstats).
"""

import argparse
import cProfile
import datetime
import os
import shutil
import statistics
import sys
import tempfile
import time

from oslo_utils import timeutils

from blazar_ext import conf as blazar_conf
from blazar_ext import context as blazar_context
from blazar_ext.db.api.budgets import budget as budget_api
from blazar_ext import enforcement
from blazar_ext.enforcement import rates as rates_mod
from blazar_ext.manager import service
from blazar_ext import rpc
from blazar_ext.rpc import manager_client

import lease_create  # noqa: I100 - a script beside this one

CONF = blazar_conf.CONF
FMT = '%Y-%m-%d %H:%M'
FILTERS = ['BudgetFilter', 'MaxConcurrentUsageFilter',
           'MaxFutureLeasesFilter', 'MaxAdvanceBookingFilter',
           'AntiStackingFilter']


def chains() -> tuple:
    CONF.set_override('enabled_filters', [], group='enforcement')
    off = enforcement.get_chain(CONF)
    CONF.set_override('enabled_filters', FILTERS, group='enforcement')
    for name, value in (('max_concurrent_hosts', 1000),
                        ('max_concurrent_vcpus', 100000),
                        ('max_future_leases', 1000),
                        ('max_advance_hours', 24 * 365),
                        ('stacking_max_hours', 100),
                        ('stacking_window_hours', 168)):
        CONF.set_override(name, value, group='fair_use')
    return off, enforcement.get_chain(CONF)


def _median_p90(samples: list) -> tuple:
    ordered = sorted(samples)
    return (statistics.median(ordered) * 1000,
            ordered[int(0.90 * (len(ordered) - 1))] * 1000)


def figures(samples: list) -> str:
    """Wall clock and CPU time of the process (on a loaded machine the
    CPU time is the steadier figure)."""
    wall = _median_p90([w for w, _ in samples])
    cpu = _median_p90([c for _, c in samples])
    return ('wall median %.2f ms, p90 %.2f ms; CPU median %.2f ms, '
            'p90 %.2f ms' % (wall + cpu))


def differences(off: list, on: list) -> str:
    """On minus off: the medians' and the 90th percentiles' differences."""
    out = []
    for label, index in (('wall', 0), ('CPU', 1)):
        a = _median_p90([s[index] for s in off])
        b = _median_p90([s[index] for s in on])
        out.append('%s median %+.2f ms, p90 %+.2f ms'
                   % (label, b[0] - a[0], b[1] - a[1]))
    return '; '.join(out)


def run(hosts: int, per_host: int, leases: int,
        profile: str | None = None) -> tuple:
    tmp = tempfile.mkdtemp(prefix='blazar-ext-bench-')
    restore = lease_create.configure(os.path.join(tmp, 'bench.sqlite'))
    t0 = time.perf_counter()
    host_ids = lease_create.load_hosts(hosts)
    base = timeutils.utcnow().replace(second=0, microsecond=0)
    existing = lease_create.load_reservations(host_ids, per_host, base)
    print('loaded %d hosts, %d reservations in %.0f s'
          % (hosts, existing, time.perf_counter() - t0))
    admin = blazar_context.get_admin_context()
    budget_api.budget_create(admin, {'project_id': 'p-bench',
                                     'credits': 10 ** 9})
    budget_api.rates_replace(admin, rates_mod.validate_list([
        {'resource_type': 'physical:host',
         'properties': ['==', '$gpu', 'true'], 'credits_per_hour': 4},
        {'resource_type': 'physical:host',
         'properties': ['==', '$nic', '100'], 'credits_per_hour': 2}]))
    rpc.cleanup()
    manager_client.reset_client()
    manager = service.ManagerService()
    manager.start()
    off_chain, on_chain = chains()
    context = blazar_context.RequestContext(
        roles=['member'], project_id='p-bench', user_id='u-bench')
    start = base + datetime.timedelta(days=1, hours=2)
    off, on = [], []
    profiles = {True: cProfile.Profile(), False: cProfile.Profile()}
    try:
        for i in range(2 * leases + 2):
            enforced = i % 2 == 1
            manager.endpoint.leases.enforcement = (
                on_chain if enforced else off_chain)
            begin = start + datetime.timedelta(hours=2 * i)
            body = {'name': 'bench-%d' % i,
                    'start_date': begin.strftime(FMT),
                    'end_date': (begin + datetime.timedelta(minutes=50))
                    .strftime(FMT),
                    'reservations': [{
                        'resource_type': 'physical:host', 'min': 1,
                        'max': 1, 'hypervisor_properties':
                        '[">=", "$memory_mb", "8192"]',
                        'resource_properties': '["==", "$gpu", "true"]'}]}
            if profile and i >= 2:
                profiles[enforced].enable()
            t, cpu = time.perf_counter(), time.process_time()
            manager.endpoint.leases.create_lease(context, body,
                                                 private_visible=True)
            elapsed = (time.perf_counter() - t, time.process_time() - cpu)
            profiles[enforced].disable()
            if i >= 2:  # the first two warm the caches
                (on if enforced else off).append(elapsed)
        spent = budget_api.budget_list(admin, 'p-bench')[0]['spent']
        if profile:
            profiles[False].dump_stats(profile + '.off')
            profiles[True].dump_stats(profile + '.on')
    finally:
        manager.stop()
        rpc.cleanup()
        manager_client.reset_client()
        restore()
        shutil.rmtree(tmp, ignore_errors=True)
    return off, on, spent


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--hosts', type=int, default=10000)
    parser.add_argument('--per-host', type=int, default=10)
    parser.add_argument('--leases', type=int, default=40)
    parser.add_argument('--profile', metavar='PREFIX',
                        help='Write cProfile statistics to PREFIX.off and '
                             'PREFIX.on.')
    args = parser.parse_args(argv)
    off, on, spent = run(args.hosts, args.per_host, args.leases,
                         args.profile)
    print('lease create, filters off: %s (%d leases)' % (figures(off),
                                                         len(off)))
    print('lease create, budget + 4 fair-use filters on: %s (%d leases)'
          % (figures(on), len(on)))
    print('on minus off: %s; credits spent: %s'
          % (differences(off, on), spent))
    return 0


if __name__ == '__main__':
    sys.exit(main())
