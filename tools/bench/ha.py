#!/usr/bin/env python3
"""Lease creates per second across two ``blazar-ext-api --workers 2``
and two ``blazar-ext-manager`` on tools/ha's Galera cluster (three nodes
behind HAProxy, RabbitMQ cluster with quorum queues), then the same
processes, configuration and load on the single MariaDB of the machine
(127.0.0.1:3306, a throw-away database), in one run.

    python tools/bench/ha.py [--leases 300] [--threads 4] [--hosts 20]

Each lease holds one host (min = max = 1) in a window of its own slot:
no request is refused for lack of hosts, so the figure is the write path
(API, RPC, the manager's allocation transaction, commit; certification
on Galera). Needs root (tools/ha); MariaDB on 3306 as
tools/test-setup.sh sets it up.
"""

import argparse
import os
import sys
import threading
import time

import requests

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'ha'))
import cluster as ha  # noqa: E402

from blazar_ext.tests.functional import services  # noqa: E402

ADMIN = {'X-Auth-Token': 'admin'}


def date(minutes: int) -> str:
    return time.strftime('%Y-%m-%d %H:%M',
                         time.gmtime(time.time() + 60 * minutes))


def create_leases(endpoints: list, leases: int, threads: int,
                  hosts: int) -> tuple:
    """(seconds, answers by status) for ``leases`` creates."""
    for n in range(hosts):
        resp = requests.post(endpoints[n % len(endpoints)] + '/v1/os-hosts',
                             json={'name': 'bench-host-%d' % n},
                             headers=ADMIN, timeout=60)
        resp.raise_for_status()
    counter = iter(range(leases))
    lock = threading.Lock()
    statuses = {}

    def worker(t):
        session = requests.Session()
        session.headers.update(ADMIN)
        while True:
            with lock:
                i = next(counter, None)
            if i is None:
                return
            # ``hosts`` leases per one-hour slot, a day ahead and on.
            slot = 24 * 60 + 60 * (i // hosts)
            resp = session.post(
                endpoints[i % len(endpoints)] + '/v1/leases', json={
                    'name': 'bench-%d' % i, 'start_date': date(slot),
                    'end_date': date(slot + 59), 'events': [],
                    'reservations': [{
                        'resource_type': 'physical:host', 'min': 1,
                        'max': 1, 'hypervisor_properties': '',
                        'resource_properties': ''}]}, timeout=120)
            with lock:
                statuses[resp.status_code] = statuses.get(
                    resp.status_code, 0) + 1

    pool = [threading.Thread(target=worker, args=(t,))
            for t in range(threads)]
    started = time.perf_counter()
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return time.perf_counter() - started, statuses


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--leases', type=int, default=300)
    parser.add_argument('--threads', type=int, default=4)
    parser.add_argument('--hosts', type=int, default=20)
    parser.add_argument('--dir', default='/tmp/blazar-ha-bench-%d'
                        % os.getpid())
    args = parser.parse_args()
    reason = services.database_unavailable('mysql')
    if reason or os.geteuid() != 0:
        print('SKIP: %s' % (reason or 'tools/ha needs root'))
        return 2
    cluster = ha.Cluster(args.dir, sys.prefix)
    results = []
    try:
        cluster.up()
        seconds, statuses = create_leases(cluster.endpoints(), args.leases,
                                          args.threads, args.hosts)
        results.append(('Galera x3 via HAProxy', seconds, statuses))
        with services.Database('mysql') as single:
            cluster.blazar_restart(single.url)
            seconds, statuses = create_leases(
                cluster.endpoints(), args.leases, args.threads, args.hosts)
            results.append(('single MariaDB (3306)', seconds, statuses))
            # Before the drop: nothing may hold the database open.
            for piece in ('api-1', 'api-2', 'manager-1', 'manager-2'):
                cluster.stop(piece)
    finally:
        cluster.down()
    print('lease creates, %d leases from %d client threads over 2 APIs '
          '(--workers 2) and 2 managers, RabbitMQ x3 (quorum queues)'
          % (args.leases, args.threads))
    for name, seconds, statuses in results:
        print('  %-24s %6.1f creates/s  (%.1fs; answers %s)' % (
            name, statuses.get(201, 0) / seconds, seconds,
            dict(sorted(statuses.items()))))
    if len(results) == 2:
        print('  Galera / single: %.2f' % (
            (results[0][2].get(201, 0) / results[0][1]) /
            (results[1][2].get(201, 0) / results[1][1])))
    return 0


if __name__ == '__main__':
    sys.exit(main())
