#!/usr/bin/env python3
"""Benchmark the resource properties listing.

Loads hosts with extra capabilities through the database layer (the same
functions the manager uses), then times the property functions the API
calls and prints the median of each:

    python tools/bench/properties.py                  # 10,000 hosts x 20
    python tools/bench/properties.py --hosts 1000 --connection URL

Capability i takes min(2**(i+1), hosts) distinct values, so the listing
covers cardinalities from 2 to one value per host.
"""

import argparse
import os
import shutil
import statistics
import tempfile
import time

from oslo_config import cfg

from blazar_ext import conf  # noqa: F401  (registers the options)
from blazar_ext import context as blazar_context
from blazar_ext.db.api import capability as capability_api
from blazar_ext.db.api import host as host_api
from blazar_ext.db import migration
from blazar_ext.db import session as db_session

CONF = cfg.CONF
RESOURCE_TYPE = 'physical:host'


def _load(ctx, hosts: int, capabilities: int) -> float:
    """Register ``hosts`` hosts in one transaction; returns seconds."""
    cardinality = [min(2 ** (i + 1), hosts) for i in range(capabilities)]
    started = time.perf_counter()
    with db_session.writer.using(ctx):
        for n in range(hosts):
            columns = {'hypervisor_hostname': 'bench-%05d' % n,
                       'vcpus': 32, 'memory_mb': 131072, 'local_gb': 1000,
                       'cpu_info': '{}', 'hypervisor_type': 'QEMU',
                       'hypervisor_version': 8002000}
            values = {'cap_%02d' % i: 'v%d' % (n % cardinality[i])
                      for i in range(capabilities)}
            # Half the capabilities private, as after an operator's review.
            host_api.host_create(ctx, columns, values,
                                 private_default=False)
    with db_session.writer.using(ctx):
        for i in range(0, capabilities, 2):
            capability_api.property_set_private(
                ctx, RESOURCE_TYPE, 'cap_%02d' % i, True)
    return time.perf_counter() - started


def _median(func, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        func()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--hosts', type=int, default=10000)
    parser.add_argument('--capabilities', type=int, default=20)
    parser.add_argument('--repeat', type=int, default=20)
    parser.add_argument('--connection',
                        help='database URL (default: a temporary SQLite '
                             'file); its schema must be empty')
    args = parser.parse_args()

    tmp = None
    connection = args.connection
    if connection is None:
        tmp = tempfile.mkdtemp(prefix='bench-properties-')
        connection = 'sqlite:///%s' % os.path.join(tmp, 'bench.sqlite')
    CONF([], project='blazar-ext', default_config_files=[])
    CONF.set_override('connection', connection, group='database')
    try:
        migration.upgrade('head')
        ctx = blazar_context.get_admin_context()
        load = _load(ctx, args.hosts, args.capabilities)
        print('database: %s' % connection.split(':', 1)[0])
        print('loaded %d hosts x %d capabilities in %.1f s'
              % (args.hosts, args.capabilities, load))
        cases = [
            ('detailed listing, all (admin, ?detail=true&all=true)',
             lambda: capability_api.property_list(
                 ctx, RESOURCE_TYPE, include_private=True, detail=True)),
            ('detailed listing, public only (?detail=true)',
             lambda: capability_api.property_list(
                 ctx, RESOURCE_TYPE, include_private=False, detail=True)),
            ('names only, all (?all=true)',
             lambda: capability_api.property_list(
                 ctx, RESOURCE_TYPE, include_private=True, detail=False)),
            ('one property, %d values' % min(2 ** args.capabilities,
                                             args.hosts),
             lambda: capability_api.property_get(
                 ctx, RESOURCE_TYPE, 'cap_%02d' % (args.capabilities - 1))),
        ]
        for label, func in cases:
            print('%-55s median %8.1f ms (%d runs)'
                  % (label, _median(func, args.repeat) * 1000, args.repeat))
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
