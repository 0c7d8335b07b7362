#!/usr/bin/env python3
"""High availability: two blazar-ext-api and two blazar-ext-manager
processes over RabbitMQ, on MariaDB then PostgreSQL, under hundreds of
concurrent lease creates, updates and deletes competing for a few hosts.

A share of the creates (--live) start now and end a minute or two later,
so the managers' event loops start and end leases while other requests
update and delete them.

Lost, for this script: an overlapping allocation on one host, an answer
other than 2xx/403/404/409 (5xx, or none within the client timeout), a
lease left in a transitional status or in ERROR, an event not DONE well
after its time, a lease holding fewer than min or more than max hosts, a
201 lease missing or a 204 lease still there.

    /work/venv/bin/python tools/chaos/ha_leases.py \
        [--backend mysql|postgresql|both] [--requests 400] [--threads 24] \
        [--hosts 4]
"""

import argparse
import datetime
import random
import sys
import threading
import time

import chaoslib


def hammer(deployment, load, total: int, threads: int, hosts: int,
           seed: int, live: float) -> None:
    pool = chaoslib.LeasePool(load)
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
            target = pool.pick(rnd)
            roll = rnd.random()
            if target is None or roll < 0.5:
                start, end = window(rnd)
                start, end = chaoslib.date(start), chaoslib.date(end)
                if rnd.random() < live:
                    # Starts now, ends in a minute or two: its events run
                    # while the others update and delete it.
                    start, end = 'now', chaoslib.date(rnd.choice((1, 2)))
                low = rnd.randint(1, 2)
                pool.create('ha-%d' % i, start, end, low,
                            rnd.randint(low, min(3, hosts)))
            elif roll < 0.8:
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
                        {'id': target[1], 'min': low,
                         'max': rnd.randint(low, min(3, hosts))}]}
                pool.update(target, body)
            else:
                pool.delete(target)

    chaoslib.run_threads(threads, worker)


def wait_for_events(deployment, within: float = 300) -> None:
    """Until no event due in the next five minutes is left undone."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        soon = datetime.datetime.utcnow() + datetime.timedelta(minutes=5)
        if not deployment.query(
                "SELECT id FROM events WHERE status <> 'DONE' AND "
                "time <= :soon", soon=soon):
            return
        time.sleep(2)


def run(backend: str, total: int, threads: int, hosts: int,
        seed: int, live: float) -> int:
    reason = chaoslib.skip_reason(backend)
    if reason:
        print('SKIP %s: %s' % (backend, reason))
        return 2
    with chaoslib.Deployment(backend, managers=2, apis=2, rpc_timeout=60,
                             extra_config='[manager]\nevent_interval = 0.5\n'
                             'minutes_before_end_lease = 0\n'
                             ) as deployment:
        load = chaoslib.Load(deployment.endpoints, seed=seed)
        for n in range(hosts):
            status, _ = load.request('POST', '/v1/os-hosts',
                                     {'name': 'chaos-host-%d' % n})
            assert status == 201, status
        hammer(deployment, load, total, threads, hosts, seed, live)
        if live:
            wait_for_events(deployment)
        late = deployment.query(
            "SELECT lease_id, event_type, status FROM events WHERE "
            "status <> 'DONE' AND time <= :now",
            now=datetime.datetime.utcnow() - datetime.timedelta(seconds=30))
        errors = deployment.query(
            "SELECT id FROM leases WHERE status = 'ERROR'")
        # Ended though its end (perhaps moved by an update answered 200)
        # is still ahead.
        early = deployment.query(
            "SELECT id, end_date FROM leases WHERE status = 'TERMINATED' "
            "AND end_date > :now", now=datetime.datetime.utcnow())
        leases = chaoslib.lease_statuses(deployment)
        allocs = deployment.query(
            'SELECT COUNT(*) FROM computehost_allocations')[0][0]
        lost = (chaoslib.bad_answers(load) +
                chaoslib.service_state(deployment, load) +
                ['event %s of lease %s is %s long after its time'
                 % (e, lease, status) for lease, e, status in late] +
                ['lease %s in ERROR' % row for row in errors] +
                ['lease %s TERMINATED before its end %s' % row
                 for row in early])
        return chaoslib.report(
            'HA on %s: 2 APIs, 2 managers, %d hosts, %d requests from %d '
            'threads' % (backend, hosts, total, threads),
            [load.summary(),
             'leases afterwards: %s; host allocations: %d'
             % (leases, allocs)], lost)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--backend', default='both',
                        choices=('mysql', 'postgresql', 'both'))
    parser.add_argument('--requests', type=int, default=400)
    parser.add_argument('--threads', type=int, default=24)
    parser.add_argument('--hosts', type=int, default=4)
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--live', type=float, default=0.3,
                        help='share of creates that start now and end a '
                             'minute or two later (0: all in the future)')
    args = parser.parse_args()
    backends = (['mysql', 'postgresql'] if args.backend == 'both'
                else [args.backend])
    results = [run(b, args.requests, args.threads, args.hosts, args.seed,
                   args.live)
               for b in backends]
    return 1 if 1 in results else (2 if all(r == 2 for r in results) else 0)


if __name__ == '__main__':
    sys.exit(main())
