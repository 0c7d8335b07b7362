#!/usr/bin/env python3
"""Webhooks while managers are SIGKILLed: every event delivered, none
twice.

Two blazar-ext-manager processes over RabbitMQ on MariaDB or PostgreSQL
deliver every lease event to a receiver in this process (a subscription
to all projects and all lease events). Meanwhile leases are created
(start now, end --lease-seconds later), renamed, some deleted, and a
host is taken out of service and brought back (healing moves and
degraded leases); a killer SIGKILLs a manager every few seconds and
starts it again. Then, once every lease has ended and nothing is left to
deliver, the outbox is compared with what the receiver got.

Lost: an outbox event the receiver never got, a delivery dead-lettered
or still open. Repeated: an event id received twice. Only a manager
killed between the receiver's answer and its record of it may cause
one (no HTTP sender can avoid that; the receiver's idempotency key, the
event id, absorbs it). So a repeat is explained by what happened, not
by when: the receiver notes which manager process sent each copy (the
process holding the POST's TCP connection), and every copy but the last
must come from a manager SIGKILLed before the next copy, sent by
another process, with one success only recorded in the database (the
last copy's). Any other repeat (a manager sending twice, two live
managers both sending, a success recorded and sent again) is a fault.

    /work/venv/bin/python tools/chaos/webhooks_kill.py \
        [--backend mysql|postgresql] [--seconds 180] [--kill-every 4]

``chaos()`` is also the short functional test's body
(blazar_ext/tests/functional/test_webhooks_chaos.py).
"""

import argparse
import collections
import dataclasses
import datetime
import http.server
import json
import os
import random
import signal
import sys
import threading
import time

import chaoslib

from blazar_ext.notifications import cloudevents
from blazar_ext.tests.functional import services

SECRET = 'chaos-secret-chaos-secret'


def _socket_inode(local_port: int, remote_port: int) -> str | None:
    """The inode of the loopback TCP socket from ``local_port`` to
    ``remote_port`` (Linux's /proc/net/tcp), if it is still open."""
    with open('/proc/net/tcp') as table:
        next(table)
        for line in table:
            fields = line.split()
            local, remote = fields[1], fields[2]
            if (int(local.rsplit(':', 1)[1], 16) == local_port and
                    int(remote.rsplit(':', 1)[1], 16) == remote_port):
                return fields[9]
    return None


def sender_pid(peer_port: int, server_port: int, pids) -> int | None:
    """Which of ``pids`` holds the client end of a connection to our
    ``server_port`` from ``peer_port``; None when none does (or it has
    closed)."""
    inode = _socket_inode(peer_port, server_port)
    if inode is None:
        return None
    target = 'socket:[%s]' % inode
    for pid in pids:
        try:
            fds = os.listdir('/proc/%d/fd' % pid)
        except OSError:  # gone
            continue
        for fd in fds:
            try:
                if os.readlink('/proc/%d/fd/%s' % (pid, fd)) == target:
                    return pid
            except OSError:  # closed meanwhile
                continue
    return None


class Receiver:
    """An HTTP receiver counting each event id and noting which of the
    processes ``senders()`` names (the managers' pids) sent each copy."""

    def __init__(self):
        self.counts = collections.Counter()
        self.types = collections.Counter()
        self.unsigned = 0
        self.copies = collections.defaultdict(list)  # id -> [(when, pid)]
        self.senders = list
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'
            sender = None  # the pid of the connection's client

            def do_POST(self):
                body = self.rfile.read(int(self.headers['Content-Length']))
                event = json.loads(body)
                signed = cloudevents.verify(
                    SECRET, self.headers.get(cloudevents.SIGNATURE_HEADER,
                                             ''), body, time.time())
                if self.sender is None:
                    # Before answering: the sender waits for the answer,
                    # so its socket is open. One connection, one process.
                    self.sender = sender_pid(self.client_address[1],
                                             receiver.port,
                                             receiver.senders())
                with receiver.lock:
                    receiver.unsigned += not signed
                    receiver.counts[event['id']] += 1
                    receiver.copies[event['id']].append(
                        (time.time(), self.sender))
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


def killer(deployment, stop, every: float, rnd, log, killed) -> None:
    """SIGKILL a manager now and then; ``log`` gets when, ``killed``
    maps its pid to when."""
    while not stop.wait(rnd.uniform(every / 2, every * 1.5)):
        managers = deployment.managers
        index = rnd.randrange(len(managers))
        log.append(time.time())
        killed[managers[index].process.pid] = log[-1]
        managers[index]._signal(signal.SIGKILL)
        managers[index].process.wait()
        time.sleep(rnd.uniform(0.2, 1.5))
        managers[index] = deployment.start_manager(managers[index].name)


def end_date(seconds: float) -> str:
    end = (datetime.datetime.now(datetime.timezone.utc) +
           datetime.timedelta(seconds=seconds))
    return end.strftime('%Y-%m-%d %H:%M:%S')


def load(lease_load, stop, rnd, host_ids, lease_seconds: tuple) -> None:
    n = 0
    while not stop.is_set():
        n += 1
        lease = lease_load.create('wh-%d' % n, 'now',
                                  end_date(rnd.uniform(*lease_seconds)))
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


@dataclasses.dataclass
class Outcome:
    """What the receiver got against what the outbox holds."""

    seconds: float
    kills: list         # when each SIGKILL was sent
    outbox: dict        # event id -> type
    deliveries: list    # (event id, status)
    counts: dict        # event id -> POSTs received
    types: dict         # event type -> POSTs received
    unsigned: int       # POSTs whose signature did not verify
    copies: dict        # event id -> [(when it arrived, sender pid)]
    killed: dict        # manager pid -> when it was SIGKILLed
    recorded: dict      # event id -> successful attempts recorded
    requests: str

    @property
    def lost(self) -> list:
        lost = ['event %s (%s) never received' % (i, t)
                for i, t in self.outbox.items() if i not in self.counts]
        lost += ['delivery of %s ended %s' % (e, s)
                 for e, s in self.deliveries if s != 'DELIVERED']
        return lost + (['%d POSTs badly signed' % self.unsigned]
                       if self.unsigned else [])

    @property
    def repeated(self) -> dict:
        return {i: c for i, c in self.counts.items() if c > 1}

    def explained(self, event_id: str) -> bool:
        """Whether a SIGKILL explains each extra copy of the event: a
        manager killed after the receiver got it and before it recorded
        so repeats it (another manager takes the claim over). Each copy
        but the last came from a manager killed before the next copy
        arrived, from another process, and the database recorded one
        success only (the last copy's), none of the killed senders'."""
        if self.recorded.get(event_id, 0) != 1:
            return False
        copies = sorted(self.copies.get(event_id, ()))
        for (_when, sender), (arrived, resender) in zip(copies,
                                                        copies[1:]):
            killed = self.killed.get(sender)
            if (sender is None or sender == resender or killed is None or
                    killed > arrived):
                return False
        return True

    def repeats_by_sender(self) -> dict:
        """{manager pid: events repeated whose first copy it sent}."""
        counts: dict = {}
        for event_id in self.repeated:
            first = min(self.copies.get(event_id, ()), default=None)
            sender = None if first is None else first[1]
            counts[sender] = counts.get(sender, 0) + 1
        return counts

    def unexplained(self) -> dict:
        """Repeats no SIGKILL explains (see ``explained``): faults."""
        return {i: c for i, c in self.repeated.items()
                if not self.explained(i)}

    def _story(self, event_id: str) -> str:
        """An unexplained repeat's copies, kills and records, for the
        report; times in seconds after the first kill."""
        start = min(self.kills, default=0)
        copies = ', '.join('%.2f from %s' % (when - start, pid)
                           for when, pid in sorted(self.copies[event_id]))
        kills = ', '.join('%s at %.2f' % (pid, when - start)
                          for pid, when in sorted(self.killed.items(),
                                                  key=lambda kv: kv[1]))
        return ('event %s: copies %s; successes recorded: %d; kills: %s'
                % (event_id, copies, self.recorded.get(event_id, 0), kills))

    def thrown(self) -> list:
        repeated = self.repeated
        return ['%d SIGKILLs of a manager over %d s'
                % (len(self.kills), self.seconds),
                'outbox events: %d; deliveries: %d; received ids: %d; '
                'received POSTs: %d' % (len(self.outbox),
                                        len(self.deliveries),
                                        len(self.counts),
                                        sum(self.counts.values())),
                'by type: %s' % ', '.join(
                    '%s %d' % kv for kv in sorted(self.types.items())),
                'event ids received twice or more: %d %s; of them '
                'sent again after their sender was SIGKILLed: %d'
                % (len(repeated), sorted(repeated.items())[:5],
                   len(repeated) - len(self.unexplained())),
                'requests: %s' % self.requests] + [
                    self._story(i) for i in sorted(self.unexplained())[:5]]


EVENTS = ['lease.created', 'lease.updated', 'lease.deleted',
          'lease.started', 'lease.before_end', 'lease.ended',
          'lease.ending_soon', 'reservation.healed', 'lease.degraded']
CONFIG = ('[manager]\nevent_interval = 1\nevent_claim_timeout = 10\n'
          'minutes_before_end_lease = 0\n'
          '[notifications]\nallow_private_targets = true\n'
          'delivery_interval = 0.5\nclaim_timeout = 8\n'
          'delivery_timeout = 3\nretry_base = 0.5\nretry_max = 4\n'
          'max_attempts = 50\n')


def _setup(lease_load, receiver) -> list:
    """Twelve hosts and the receiver's subscription; the hosts' ids."""
    hosts = []
    for n in range(12):
        status, body = lease_load.request(
            'POST', '/v1/os-hosts', {'name': 'wh-host-%d' % n})
        assert status == 201, status
        hosts.append(body['host']['id'])
    status, body = lease_load.request('POST', '/v1/subscriptions', {
        'url': 'http://127.0.0.1:%d/hook' % receiver.port,
        'events': EVENTS, 'lead_times': [60], 'secret': SECRET,
        'all_projects': True})
    assert status == 201, (status, body)
    return hosts


def _settled(deployment) -> bool:
    return not deployment.query(
        "SELECT id FROM events WHERE status <> 'DONE'") and not \
        deployment.query("SELECT id FROM webhook_deliveries WHERE status "
                         "IN ('PENDING', 'IN_PROGRESS')")


def chaos(backend: str, seconds: float, every: float, seed: int,
          lease_seconds: tuple = (60, 120),
          settle_timeout: float = 400, rpc_timeout: int = 30) -> Outcome:
    """Load and kills for ``seconds``, then wait (``settle_timeout`` at
    most) for every lease event to run and every delivery to end."""
    receiver = Receiver()
    rnd = random.Random(seed)
    with chaoslib.Deployment(backend, managers=2, apis=1,
                             extra_config=CONFIG,
                             rpc_timeout=rpc_timeout) as deployment:
        lease_load = chaoslib.Load(deployment.endpoints, seed=seed)
        hosts = _setup(lease_load, receiver)
        receiver.senders = lambda: [m.process.pid
                                    for m in list(deployment.managers)]
        stop = threading.Event()
        kills, killed = [], {}
        threads = [threading.Thread(target=killer, args=(
            deployment, stop, every, random.Random(seed + 1), kills,
            killed)),
            threading.Thread(target=load, args=(
                lease_load, stop, rnd, hosts, lease_seconds))]
        for thread in threads:
            thread.start()
        time.sleep(seconds)
        stop.set()
        for thread in threads:
            thread.join()
        print('load and kills stopped after %d s; %d kills; waiting for the '
              'leases to end and the outbox to drain' % (seconds, len(kills)))
        deployment.wait_managers()
        deadline = time.monotonic() + settle_timeout
        while not _settled(deployment) and time.monotonic() < deadline:
            time.sleep(1)
        time.sleep(2)  # a POST answered, its record not yet read
        outbox = {row[0]: row[1] for row in deployment.query(
            'SELECT id, event_type FROM outbox')}
        deliveries = deployment.query(
            'SELECT event_id, status FROM webhook_deliveries')
        recorded = dict(deployment.query(
            'SELECT d.event_id, COUNT(*) FROM webhook_delivery_attempts a '
            'JOIN webhook_deliveries d ON d.id = a.delivery_id '
            'WHERE a.status_code BETWEEN 200 AND 299 GROUP BY d.event_id'))
        receiver.server.shutdown()
        receiver.server.server_close()
        with receiver.lock:
            return Outcome(seconds, kills, outbox, deliveries,
                           dict(receiver.counts), dict(receiver.types),
                           receiver.unsigned, dict(receiver.copies),
                           dict(killed), recorded, lease_load.summary())


def run(backend: str, seconds: float, every: float, seed: int,
        lease_seconds: tuple = (60, 120)) -> int:
    reason = chaoslib.skip_reason(backend)
    if reason:
        print('SKIP %s: %s' % (backend, reason))
        return 2
    outcome = chaos(backend, seconds, every, seed, lease_seconds)
    lost = outcome.lost + ['event %s received %d times, not each time '
                           'sent again after a SIGKILL' % kv
                           for kv in outcome.unexplained().items()]
    return chaoslib.report('webhooks under manager SIGKILL (%s)' % backend,
                           outcome.thrown(), lost)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--backend', default='mysql',
                        choices=('mysql', 'postgresql'))
    parser.add_argument('--seconds', type=float, default=180)
    parser.add_argument('--kill-every', type=float, default=4)
    parser.add_argument('--seed', type=int, default=7)
    parser.add_argument('--lease-seconds', type=float, nargs=2,
                        default=(60, 120), metavar=('LOW', 'HIGH'),
                        help='lease lengths, drawn between LOW and HIGH')
    args = parser.parse_args(argv)
    return run(args.backend, args.seconds, args.kill_every, args.seed,
               tuple(args.lease_seconds))


if __name__ == '__main__':
    sys.exit(main())
