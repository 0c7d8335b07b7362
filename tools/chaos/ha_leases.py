#!/usr/bin/env python3
"""High availability: two blazar-ext-api and two blazar-ext-manager
processes over RabbitMQ, on MariaDB then PostgreSQL, under hundreds of
concurrent lease creates, updates and deletes competing for a few hosts.

Lost, for this script: an overlapping allocation on one host, an answer
other than 2xx/403/404/409 (5xx, or none within the client timeout), a
lease left in a transitional status, a lease holding fewer than min or
more than max hosts, a 201 lease missing or a 204 lease still there.

    /work/venv/bin/python tools/chaos/ha_leases.py \
        [--backend mysql|postgresql|both] [--requests 400] [--threads 24] \
        [--hosts 4]
"""

import argparse
import sys
import threading

import chaoslib


def hammer(deployment, load, total: int, threads: int, hosts: int,
           seed: int) -> None:
    import random
    pool = []  # (lease_id, reservation_id) created and maybe alive
    pool_lock = threading.Lock()
    counter = iter(range(total))
    counter_lock = threading.Lock()
    # Windows from a handful of slots a day ahead: many overlap.
    slots = [60 + 30 * n for n in range(6)]

    def window(rnd):
        start = rnd.choice(slots)
        return start, start + rnd.choice((30, 60, 90))

    def worker(n):
        rnd = random.Random(seed * 1000 + n)
        while True:
            with counter_lock:
                i = next(counter, None)
            if i is None:
                return
            with pool_lock:
                target = rnd.choice(pool) if pool else None
            roll = rnd.random()
            if target is None or roll < 0.5:
                start, end = window(rnd)
                low = rnd.randint(1, 2)
                lease = load.create('ha-%d' % i, chaoslib.date(start),
                                    chaoslib.date(end), low,
                                    rnd.randint(low, min(3, hosts)))
                if lease:
                    with pool_lock:
                        pool.append((lease['id'],
                                     lease['reservations'][0]['id']))
            elif roll < 0.8:
                lease_id, res_id = target
                kind = rnd.choice(('dates', 'end', 'hosts'))
                if kind == 'dates':
                    start, end = window(rnd)
                    body = {'start_date': chaoslib.date(start),
                            'end_date': chaoslib.date(end)}
                elif kind == 'end':
                    # Past the last slot's start: always after the start.
                    body = {'end_date': chaoslib.date(
                        slots[-1] + rnd.choice((30, 60, 90)))}
                else:
                    low = rnd.randint(1, 2)
                    body = {'reservations': [
                        {'id': res_id, 'min': low,
                         'max': rnd.randint(low, min(3, hosts))}]}
                if load.update(lease_id, body)[0] == 404:
                    with pool_lock:
                        if target in pool:
                            pool.remove(target)
            else:
                if load.delete(target[0]) in (204, 404):
                    with pool_lock:
                        if target in pool:
                            pool.remove(target)

    chaoslib.run_threads(threads, worker)


def run(backend: str, total: int, threads: int, hosts: int,
        seed: int) -> int:
    reason = chaoslib.skip_reason(backend)
    if reason:
        print('SKIP %s: %s' % (backend, reason))
        return 2
    with chaoslib.Deployment(backend, managers=2, apis=2,
                             rpc_timeout=60) as deployment:
        load = chaoslib.Load(deployment.endpoints, seed=seed)
        for n in range(hosts):
            status, _ = load.request('POST', '/v1/os-hosts',
                                     {'name': 'chaos-host-%d' % n})
            assert status == 201, status
        hammer(deployment, load, total, threads, hosts, seed)
        leases = deployment.query(
            'SELECT status, COUNT(*) FROM leases GROUP BY status')
        allocs = deployment.query(
            'SELECT COUNT(*) FROM computehost_allocations')[0][0]
        lost = (chaoslib.bad_answers(load) +
                chaoslib.overlapping_allocations(deployment) +
                chaoslib.transitional_leases(deployment) +
                chaoslib.half_made_leases(deployment) +
                chaoslib.lease_accounting(deployment, load))
        for process in deployment.apis + deployment.managers:
            if not process.running():
                lost.append('%s died' % process.name)
        return chaoslib.report(
            'HA on %s: 2 APIs, 2 managers, %d hosts, %d requests from %d '
            'threads' % (backend, hosts, total, threads),
            [load.summary(),
             'leases afterwards: %s; host allocations: %d'
             % (dict(leases), allocs)], lost)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--backend', default='both',
                        choices=('mysql', 'postgresql', 'both'))
    parser.add_argument('--requests', type=int, default=400)
    parser.add_argument('--threads', type=int, default=24)
    parser.add_argument('--hosts', type=int, default=4)
    parser.add_argument('--seed', type=int, default=1)
    args = parser.parse_args()
    backends = (['mysql', 'postgresql'] if args.backend == 'both'
                else [args.backend])
    results = [run(b, args.requests, args.threads, args.hosts, args.seed)
               for b in backends]
    return 1 if 1 in results else (2 if all(r == 2 for r in results) else 0)


if __name__ == '__main__':
    sys.exit(main())
