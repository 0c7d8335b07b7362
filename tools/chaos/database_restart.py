#!/usr/bin/env python3
"""The database restarted under load: a clean stop, then a crash.

A private mariadbd (never the shared one on 3306) holds the state of two
blazar-ext-api and two blazar-ext-manager processes over the shared
RabbitMQ. Threads keep creating, updating, deleting and reading leases
while the database is up, stopped (SIGTERM) for --down seconds, up again,
killed (SIGKILL) and started at once (crash recovery), and up again.

Lost: while it is down, an answer other than 503 with a JSON message (or
a 2xx/4xx that beat the stop), or none within the bound ([manager]
rpc_timeout + 2 s + --slack); after it is back, an API that does not
recover within --recover seconds, a 503 once it has; an overlapping
allocation, a transitional or half-made lease, a 201 lease missing, a
204 lease still there.

    /work/venv/bin/python tools/chaos/database_restart.py \
        [--down 15] [--threads 8]
"""

import argparse
import sys
import threading
import time

import chaoslib
import rabbitmq_outage


def wait_recovered(load, endpoints, since: float, recover: float) -> dict:
    """{endpoint: seconds until it created something again}."""
    recovered = {}
    deadline = time.monotonic() + recover
    while len(recovered) < len(endpoints) and time.monotonic() < deadline:
        for endpoint in endpoints:
            if endpoint in recovered:
                continue
            status, _ = load.request(
                'POST', '/v1/os-hosts',
                {'name': 'db-probe-%s' % time.monotonic()}, endpoint)
            if status == 201:
                recovered[endpoint] = time.monotonic() - since
        time.sleep(0.5)
    return recovered


def run(down: float, threads: int, rpc_timeout: int, slack: float,
        recover: float, seed: int) -> int:
    reason = chaoslib.services.rabbitmq_unavailable()
    if reason:
        print('SKIP: %s' % reason)
        return 2
    lost, thrown = [], []
    with chaoslib.PrivateMariaDB() as database, chaoslib.Deployment(
            'mysql', managers=2, apis=2, database_url=database.url,
            rpc_timeout=rpc_timeout) as deployment:
        load = chaoslib.Load(deployment.endpoints, seed=seed,
                             request_timeout=120)
        for n in range(4):
            status, _ = load.request('POST', '/v1/os-hosts',
                                     {'name': 'db-host-%d' % n})
            assert status == 201, status
        stop = threading.Event()
        pool = [threading.Thread(target=rabbitmq_outage.worker,
                                 args=(n, load, stop, 4, seed), daemon=True)
                for n in range(threads)]
        for thread in pool:
            thread.start()
        marks = [('setup', 0.0), ('before', time.monotonic())]
        time.sleep(10)
        marks.append(('stopped', time.monotonic()))
        database.stop()
        marks.append(('down', time.monotonic()))
        time.sleep(down)
        marks.append(('starting', time.monotonic()))
        database.start()
        marks.append(('recovering', time.monotonic()))
        first = wait_recovered(load, deployment.endpoints, marks[-1][1],
                               recover)
        marks.append(('up', time.monotonic()))
        time.sleep(10)
        marks.append(('crashed', time.monotonic()))
        database.kill()
        database.start()
        marks.append(('recovering2', time.monotonic()))
        second = wait_recovered(load, deployment.endpoints, marks[-1][1],
                                recover)
        marks.append(('after', time.monotonic()))
        time.sleep(10)
        stop.set()
        for thread in pool:
            thread.join(rpc_timeout + 10)

        bound = rpc_timeout + 2 + slack
        phases = {name: [] for name, _ in marks}
        ends = [at for _, at in marks[1:]] + [float('inf')]
        for started, method, status, elapsed in load.log:
            index = [i for i, (_, at) in enumerate(marks)
                     if at <= started][-1]
            phase = marks[index][0]
            phases[phase].append((method, status, elapsed))
            if status is None:
                lost.append('%s %s: no answer within %ss'
                            % (phase, method, load.request_timeout))
            elif elapsed > bound:
                lost.append('%s: %s took %.1fs, bound %.1fs'
                            % (phase, method, elapsed, bound))
            elif status >= 500 and status != 503:
                lost.append('%s %s answered %s' % (phase, method, status))
            elif (status == 503 and phase in ('before', 'up', 'after') and
                    started + elapsed < ends[index]):
                # Answered before anything happened to the database.
                lost.append('%s %s answered 503 with the database up'
                            % (phase, method))
        # Every error while it was down: JSON with a message.
        for method, path, status, body in load.bad:
            if isinstance(status, int) and 'error_message' not in (body
                                                                   or ''):
                lost.append('%s %s -> %s without a JSON message: %s'
                            % (method, path, status, body))
        for name, recovered in (('restart', first), ('crash', second)):
            for endpoint in deployment.endpoints:
                if endpoint not in recovered:
                    lost.append('%s did not recover within %ss of the %s'
                                % (endpoint, recover, name))
        for phase, rows in phases.items():
            counts = {}
            for method, status, _ in rows:
                counts[(method, status)] = counts.get((method, status),
                                                      0) + 1
            thrown.append('%-11s %4d requests %s slowest %.2fs' % (
                phase, len(rows), ' '.join(
                    '%s:%s:%d' % (m, s, c) for (m, s), c in sorted(
                        counts.items(), key=str)),
                max((e for _, _, e in rows), default=0)))
        thrown.insert(0, 'database stopped %.1fs; APIs answered again '
                         'after %s (restart) and %s (crash)' % (
                             marks[4][1] - marks[3][1],
                             ', '.join('%.1fs' % v for v in first.values()),
                             ', '.join('%.1fs' % v
                                       for v in second.values())))
        in_db = {r[0] for r in deployment.query('SELECT id FROM leases')}
        thrown.append('leases made though their create got no 201: %d'
                      % len(in_db - load.created))
        load.created |= in_db
        lost += chaoslib.service_state(deployment, load)
        thrown.append('leases afterwards: %s'
                      % chaoslib.lease_statuses(deployment))
    return chaoslib.report(
        'Database (private mariadbd) stopped, started, crashed under load: '
        '%d threads, 2 APIs, 2 managers, rpc_timeout %ds (bound %.1fs)'
        % (threads, rpc_timeout, bound), thrown, lost)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--down', type=float, default=15)
    parser.add_argument('--threads', type=int, default=8)
    parser.add_argument('--rpc-timeout', type=int, default=10)
    parser.add_argument('--slack', type=float, default=3.0)
    parser.add_argument('--recover', type=float, default=60)
    parser.add_argument('--seed', type=int, default=1)
    args = parser.parse_args()
    return run(args.down, args.threads, args.rpc_timeout, args.slack,
               args.recover, args.seed)


if __name__ == '__main__':
    sys.exit(main())
