#!/usr/bin/env python3
"""Webhook delivery throughput and delay: --events events to a local
receiver, delivered by --managers manager processes.

    python tools/bench/webhooks.py [--events 10000] [--leases 1000]
        [--managers 2] [--backend sqlite|mysql|postgresql]

A fresh migrated database (a SQLite file, or a fresh database on the
local MariaDB or PostgreSQL as the functional tests make them); one
subscription to every project's ``lease.updated``; a receiver process
(HTTP/1.1 keep-alive, answers 200) on a free loopback port; --managers
processes each running the managers' delivery (DeliveryLoop.run_once in
a loop, [notifications] delivery_workers threads posting). --recorders
processes then record the events through outbox.record, 100 per
transaction, spread over --leases subjects (deliveries keep each
subject's order, so one subject is one queue).

Prints events per second (first record to last receipt), the delay from
the record to its receipt (median, p99, max), and whether every event
id arrived exactly once.
"""

import argparse
import datetime
import http.server
import json
import multiprocessing
import os
import resource
import statistics
import sys
import threading
import time

import fixtures
from oslo_db.sqlalchemy import engines

from blazar_ext import conf as blazar_conf
from blazar_ext import context as blazar_context
from blazar_ext.db.api import outbox as outbox_api
from blazar_ext.db.api import retry as db_retry
from blazar_ext.db.api import subscription as subscription_api
from blazar_ext.db import migration
from blazar_ext.db import session as db_session

CONF = blazar_conf.CONF
SECRET = 'bench-secret-bench-secret'


def configure(url: str, workers: int) -> None:
    CONF([], project='blazar-ext', default_config_files=[])
    CONF.set_override('connection', url, group='database')
    CONF.set_override('transport_url', 'fake:/')
    CONF.set_override('allow_private_targets', True, group='notifications')
    CONF.set_override('delivery_workers', workers, group='notifications')


def receive(port: int, out: str, ready, stop) -> None:
    """The receiver process: keeps (id, event time, receipt time)."""
    got = []
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = 'HTTP/1.1'

        def do_POST(self):
            body = self.rfile.read(int(self.headers['Content-Length']))
            now = time.time()
            event = json.loads(body)
            with lock:
                got.append((event['id'], event['time'], now))
            self.send_response(200)
            self.send_header('Content-Length', '0')
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(('127.0.0.1', port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    ready.set()
    while not stop.wait(0.2):
        with open(out + '.count', 'w') as f:
            with lock:
                f.write(str(len(got)))
    server.shutdown()
    with open(out, 'w') as f:
        with lock:
            json.dump(got, f)


def manage(url: str, workers: int, stop) -> None:
    """A manager process's delivery, as DeliveryLoop runs it."""
    configure(url, workers)
    from blazar_ext.manager import delivery
    loop = delivery.DeliveryLoop(delivery.Dispatcher())
    while not stop.is_set():
        try:
            if not loop.run_once():
                time.sleep(0.02)
        except Exception as exc:  # as the manager's thread: log, go on
            print('manager %d: %s' % (os.getpid(), exc), file=sys.stderr)
    loop.dispatcher.close()


@db_retry.on_deadlock
def _record_chunk(context, numbers: list, leases: int) -> None:
    """One transaction (retried as the manager's are on a deadlock)."""
    with db_session.writer.using(context) as session:
        for n in numbers:
            outbox_api.record(session, 'lease.updated',
                              {'id': 'lease-%d' % (n % leases), 'n': n},
                              project_id='bench')


def record_share(url: str, count: int, leases: int, share: int,
                 shares: int, times) -> None:
    """One recorder process: events n = share, share + shares, ... (so
    a lease's events all come from one recorder, in order), 100 per
    transaction, each transaction's notifications then sent (as the
    manager that records them does); puts (first, last) in ``times``."""
    configure(url, 1)
    from blazar_ext.manager import delivery
    dispatcher = delivery.Dispatcher()
    context = blazar_context.get_admin_context()
    numbers = list(range(share, count, shares))
    first = time.time()
    for start in range(0, len(numbers), 100):
        _record_chunk(context, numbers[start:start + 100], leases)
        dispatcher.send_notifications(context)
    times.put((first, time.time()))


def record(url: str, count: int, leases: int, recorders: int) -> tuple:
    """Record the events from ``recorders`` processes at once (as many
    API calls changing leases would); (first record, recording time)."""
    spawn = multiprocessing.get_context('spawn')
    times = spawn.Queue()
    processes = [spawn.Process(target=record_share, args=(
        url, count, leases, k, recorders, times)) for k in range(recorders)]
    for process in processes:
        process.start()
    spans = [times.get(timeout=300) for _ in processes]
    for process in processes:
        process.join()
    first = min(s[0] for s in spans)
    return first, max(s[1] for s in spans) - first


def _epoch(text: str) -> float:
    return datetime.datetime.fromisoformat(text.rstrip('Z')).replace(
        tzinfo=datetime.timezone.utc).timestamp()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--events', type=int, default=10000)
    parser.add_argument('--leases', type=int, default=1000)
    parser.add_argument('--managers', type=int, default=2)
    parser.add_argument('--workers', type=int, default=16)
    parser.add_argument('--recorders', type=int, default=4,
                        help='processes recording the events at once')
    parser.add_argument('--backlog', action='store_true',
                        help='record every event before the managers '
                             'start: delivery alone is timed (from their '
                             'start), and the delay is the backlog\'s')
    parser.add_argument('--backend', default='sqlite',
                        choices=('sqlite', 'mysql', 'postgresql'))
    args = parser.parse_args(argv)
    with fixtures.TempDir() as tmp, fixtures.Fixture() as holder:
        if args.backend == 'sqlite':
            url = 'sqlite:///%s' % os.path.join(tmp.path, 'bench.sqlite')
        else:
            from blazar_ext.tests.functional import services
            url = holder.useFixture(services.Database(args.backend)).url
        configure(url, args.workers)
        engine = engines.create_engine(url)
        migration.upgrade('head', engine)
        engine.dispose()
        from blazar_ext.tests.functional import services
        port = services.free_port()
        context = blazar_context.get_admin_context()
        subscription_api.subscription_create(context, {
            'url': 'http://127.0.0.1:%d/hook' % port,
            'events': ['lease.updated'], 'lead_times': [3600],
            'secret': SECRET, 'project_id': None})
        spawn = multiprocessing.get_context('spawn')
        stop, ready = spawn.Event(), spawn.Event()
        out = os.path.join(tmp.path, 'received.json')
        receiver = spawn.Process(target=receive,
                                 args=(port, out, ready, stop))
        receiver.start()
        ready.wait(30)
        managers = [spawn.Process(target=manage,
                                  args=(url, args.workers, stop))
                    for _ in range(args.managers)]
        if args.backlog:
            first, recorded = record(url, args.events, args.leases,
                                     args.recorders)
            # Delivery is then timed from the first receipt (the
            # managers' imports and connections left out).
        for process in managers:
            process.start()
        if not args.backlog:
            time.sleep(3)  # the managers import and connect
            first, recorded = record(url, args.events, args.leases,
                                     args.recorders)
        deadline = time.time() + 600
        while time.time() < deadline:
            time.sleep(0.2)
            try:
                with open(out + '.count') as f:
                    if int(f.read() or 0) >= args.events:
                        break
            except (OSError, ValueError):
                pass
        stop.set()
        for process in managers + [receiver]:
            process.join(60)
        with open(out) as f:
            got = json.load(f)
    ids = [g[0] for g in got]
    delays = sorted(g[2] - _epoch(g[1]) for g in got)
    last = max(g[2] for g in got)
    if args.backlog:
        first = min(g[2] for g in got)
    print('backend %s, %d managers x %d workers, %d recorders, %d events '
          'over %d leases' % (args.backend, args.managers, args.workers,
                              args.recorders, args.events, args.leases))
    print('recorded in %.2f s (%.0f events/s)'
          % (recorded, args.events / recorded))
    print('delivered %d (%d distinct ids) in %.2f s: %.0f events/s%s'
          % (len(ids), len(set(ids)), last - first, len(got) /
             (last - first), ' (from the first receipt)'
             if args.backlog else ''))
    print('delay record -> receipt: median %.3f s, p99 %.3f s, max %.3f s'
          % (statistics.median(delays),
             delays[min(len(delays) - 1, int(len(delays) * 0.99))],
             delays[-1]))
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    print('CPU of the recorders, managers and receiver: %.1f s (user+sys); '
          'load average now %.2f' % (children.ru_utime + children.ru_stime,
                                     os.getloadavg()[0]))
    ok = len(ids) == len(set(ids)) == args.events
    print('every event once: %s' % ('yes' if ok else 'NO'))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
