#!/usr/bin/env python3
"""Webhooks while managers are SIGKILLed: every event delivered, none
twice.

Two blazar-ext-manager processes over RabbitMQ on MariaDB or PostgreSQL
deliver every lease event to a receiver in this process (a subscription
to all projects and all lease events). Meanwhile leases are created
(start now, end one or two minutes later), renamed, some deleted, and a
host is taken out of service and brought back (healing moves and
degraded leases); a killer SIGKILLs a manager every few seconds and
starts it again. Then, once every lease has ended and nothing is left to
deliver, the outbox is compared with what the receiver got.

Lost: an outbox event the receiver never got, a delivery dead-lettered
or still open. Repeated: an event id received twice (possible only when
a manager dies between the receiver's answer and its record; counted
and printed, the receiver's idempotency key absorbs it).

    /work/venv/bin/python tools/chaos/webhooks_kill.py \
        [--backend mysql|postgresql] [--seconds 180] [--kill-every 4]
"""

import argparse
import collections
import http.server
import json
import random
import signal
import sys
import threading
import time

import chaoslib

from blazar_ext.tests.functional import services

SECRET = 'chaos-secret-chaos-secret'


class Receiver:
    """An HTTP receiver counting each event id."""

    def __init__(self):
        self.counts = collections.Counter()
        self.types = collections.Counter()
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'

            def do_POST(self):
                body = self.rfile.read(int(self.headers['Content-Length']))
                event = json.loads(body)
                with receiver.lock:
                    receiver.counts[event['id']] += 1
                    receiver.types[event['type']] += 1
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.port = services.free_port()
        self.server = http.server.ThreadingHTTPServer(
            ('127.0.0.1', self.port), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever,
                         daemon=True).start()


def killer(deployment, stop, every: float, rnd, log) -> None:
    while not stop.wait(rnd.uniform(every / 2, every * 1.5)):
        managers = deployment.managers
        index = rnd.randrange(len(managers))
        managers[index]._signal(signal.SIGKILL)
        managers[index].process.wait()
        log.append(managers[index].name)
        time.sleep(rnd.uniform(0.2, 1.5))
        managers[index] = deployment.start_manager(managers[index].name)


def load(lease_load, stop, rnd, host_ids) -> None:
    n = 0
    while not stop.is_set():
        n += 1
        lease = lease_load.create('wh-%d' % n, 'now',
                                  chaoslib.date(rnd.choice((1, 2))))
        if lease and rnd.random() < 0.5:
            lease_load.update(lease['id'], {'name': 'wh-%d-renamed' % n})
        if lease and rnd.random() < 0.15:
            lease_load.delete(lease['id'])
        if rnd.random() < 0.1:
            # A host some lease holds: healing moves it, or degrades it.
            _status, body = lease_load.request('GET',
                                               '/v1/os-hosts/allocations')
            used = [a['resource_id'] for a in (body or {}).get(
                'allocations', []) if a['reservations']]
            host = rnd.choice(used or host_ids)
            lease_load.request('PUT', '/v1/os-hosts/%s' % host,
                               {'reservable': False})
            time.sleep(0.5)
            lease_load.request('PUT', '/v1/os-hosts/%s' % host,
                               {'reservable': True})
        time.sleep(rnd.uniform(0.1, 1.0))


def run(backend: str, seconds: float, every: float, seed: int) -> int:
    reason = chaoslib.skip_reason(backend)
    if reason:
        print('SKIP %s: %s' % (backend, reason))
        return 2
    receiver = Receiver()
    extra = ('[manager]\nevent_interval = 1\nevent_claim_timeout = 10\n'
             'minutes_before_end_lease = 0\n'
             '[notifications]\nallow_private_targets = true\n'
             'delivery_interval = 0.5\nclaim_timeout = 8\n'
             'delivery_timeout = 3\nretry_base = 0.5\nretry_max = 4\n'
             'max_attempts = 50\n')
    rnd = random.Random(seed)
    with chaoslib.Deployment(backend, managers=2, apis=1,
                             extra_config=extra) as deployment:
        lease_load = chaoslib.Load(deployment.endpoints, seed=seed)
        hosts = []
        for n in range(12):
            status, body = lease_load.request(
                'POST', '/v1/os-hosts', {'name': 'wh-host-%d' % n})
            assert status == 201, status
            hosts.append(body['host']['id'])
        status, body = lease_load.request('POST', '/v1/subscriptions', {
            'url': 'http://127.0.0.1:%d/hook' % receiver.port,
            'events': ['lease.created', 'lease.updated', 'lease.deleted',
                       'lease.started', 'lease.before_end', 'lease.ended',
                       'lease.ending_soon', 'reservation.healed',
                       'lease.degraded'],
            'lead_times': [60], 'secret': SECRET, 'all_projects': True})
        assert status == 201, (status, body)
        stop = threading.Event()
        kills = []
        threads = [threading.Thread(target=killer, args=(
            deployment, stop, every, random.Random(seed + 1), kills)),
            threading.Thread(target=load, args=(
                lease_load, stop, rnd, hosts))]
        for thread in threads:
            thread.start()
        time.sleep(seconds)
        stop.set()
        for thread in threads:
            thread.join()
        print('load and kills stopped after %d s; %d kills; waiting for the '
              'leases to end and the outbox to drain' % (seconds, len(kills)))
        deployment.wait_managers()

        def settled() -> bool:
            return not deployment.query(
                "SELECT id FROM events WHERE status <> 'DONE'") and not \
                deployment.query(
                    "SELECT id FROM webhook_deliveries WHERE status IN "
                    "('PENDING', 'IN_PROGRESS')")
        deadline = time.monotonic() + 400
        while not settled() and time.monotonic() < deadline:
            time.sleep(2)
        time.sleep(3)
        outbox = {row[0]: row[1] for row in deployment.query(
            'SELECT id, event_type FROM outbox')}
        deliveries = deployment.query(
            'SELECT event_id, status FROM webhook_deliveries')
        with receiver.lock:
            counts = dict(receiver.counts)
            types = dict(receiver.types)
    lost = ['event %s (%s) never received' % (i, t)
            for i, t in outbox.items() if i not in counts]
    lost += ['delivery of %s ended %s' % (e, s) for e, s in deliveries
             if s != 'DELIVERED']
    repeated = {i: c for i, c in counts.items() if c > 1}
    thrown = ['%d SIGKILLs of a manager over %d s' % (len(kills), seconds),
              'outbox events: %d; deliveries: %d; received ids: %d; '
              'received POSTs: %d' % (len(outbox), len(deliveries),
                                      len(counts), sum(counts.values())),
              'by type: %s' % ', '.join('%s %d' % kv
                                        for kv in sorted(types.items())),
              'event ids received twice or more: %d %s'
              % (len(repeated), sorted(repeated.items())[:5]),
              'requests: %s' % lease_load.summary()]
    return chaoslib.report('webhooks under manager SIGKILL (%s)' % backend,
                           thrown, lost)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--backend', default='mysql',
                        choices=('mysql', 'postgresql'))
    parser.add_argument('--seconds', type=float, default=180)
    parser.add_argument('--kill-every', type=float, default=4)
    parser.add_argument('--seed', type=int, default=7)
    args = parser.parse_args(argv)
    return run(args.backend, args.seconds, args.kill_every, args.seed)


if __name__ == '__main__':
    sys.exit(main())
