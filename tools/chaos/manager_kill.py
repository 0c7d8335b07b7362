#!/usr/bin/env python3
"""Managers killed with SIGKILL while they start and end leases, then
restarted.

Two blazar-ext-manager processes run the event loop every
``--interval`` seconds. Short leases (start now, end one or two minutes
later) make their start, before-end and end events come due in bursts.
A killer watches the database and SIGKILLs a manager the moment an event
is IN_PROGRESS or a lease STARTING or TERMINATING, and starts it again a
moment later. Notifications go to the managers' logs (the oslo.messaging
``log`` driver) so they can be counted.

Lost: an event not DONE at the end, a lease not TERMINATED (stuck in
STARTING or TERMINATING, or ERROR), a host still allocated, an event's
notification missing or carrying another event's ``event_id``.
Notifications are at least once: a manager killed between sending one and
marking its event DONE sends it again when the event is retried, with the
same ``event_id``; such repeats are counted, not lost (a consumer drops
them by ``event_id``).

    /work/venv/bin/python tools/chaos/manager_kill.py \
        [--backend mysql|postgresql] [--leases 40] [--kills 10]
"""

import argparse
import collections
import json
import os
import random
import signal
import sys
import threading
import time

import chaoslib

EVENTS = ('start_lease', 'before_end_lease', 'end_lease')


def notifications(deployment) -> collections.defaultdict:
    """(lease id, event type) -> [event_id of each lease.event.* logged]."""
    counts = collections.defaultdict(list)
    marker = 'oslo.messaging.notification.lease.event.'
    for name in os.listdir(deployment.dir):
        if not name.startswith('manager-') or not name.endswith('.log'):
            continue
        with open(os.path.join(deployment.dir, name), encoding='utf-8',
                  errors='replace') as f:
            for line in f:
                if marker not in line:
                    continue
                try:
                    message = json.loads(line[line.index('{"'):])
                except ValueError:
                    counts[('unparsable', line[:80])].append(None)
                    continue
                event = message['event_type'].rsplit('.', 1)[1]
                counts[(message['payload']['id'], event)].append(
                    message['payload'].get('event_id'))
    return counts


class Killer(threading.Thread):
    """SIGKILLs a manager while an event runs, restarts it after a pause."""

    def __init__(self, deployment, kills: int, seed: int):
        super().__init__(daemon=True)
        self.deployment = deployment
        self.kills_left = kills
        self.random = random.Random(seed)
        self.done = threading.Event()
        self.log = []  # (what was running, manager)
        self.seen = set()

    def busy(self) -> list:
        """(event, lease status) running now that no kill has hit yet
        (a claim left by a killed manager stays IN_PROGRESS a while)."""
        rows = self.deployment.query(
            "SELECT e.id, e.event_type, l.status FROM events e JOIN leases "
            "l ON l.id = e.lease_id WHERE e.status = 'IN_PROGRESS' OR "
            "(l.status IN ('STARTING', 'TERMINATING') AND "
            "e.status <> 'DONE')")
        fresh = [row for row in rows if row[0] not in self.seen]
        self.seen.update(row[0] for row in rows)
        return [row[1:] for row in fresh]

    def run(self) -> None:
        while self.kills_left and not self.done.is_set():
            try:
                running = self.busy()
            except Exception:
                running = []
            if not running:
                time.sleep(0.02)
                continue
            managers = self.deployment.managers
            # Now and then both at once: nobody left to take over.
            victims = (list(range(len(managers)))
                       if self.random.random() < 0.3
                       else [self.random.randrange(len(managers))])
            for index in victims:
                managers[index]._signal(signal.SIGKILL)
                managers[index].process.wait()
            self.kills_left -= 1
            self.log.append((sorted(set(map(tuple, running)))[:3],
                             [managers[i].name for i in victims]))
            time.sleep(self.random.uniform(0.5, 3))
            for index in victims:
                managers[index] = self.deployment.start_manager(
                    managers[index].name)
            try:
                self.deployment.wait_managers()
            except RuntimeError as exc:
                self.log.append(('restart failed', str(exc)[:200]))
            time.sleep(self.random.uniform(1, 5))


def run(backend: str, leases: int, kills: int, interval: float,
        claim_timeout: int, seed: int) -> int:
    reason = chaoslib.skip_reason(backend)
    if reason:
        print('SKIP %s: %s' % (backend, reason))
        return 2
    extra = ('[manager]\nevent_interval = %s\nevent_claim_timeout = %d\n'
             'minutes_before_end_lease = 0\n'
             '[oslo_messaging_notifications]\ndriver = log\n'
             % (interval, claim_timeout))
    with chaoslib.Deployment(backend, managers=2, apis=1,
                             extra_config=extra) as deployment:
        load = chaoslib.Load(deployment.endpoints, seed=seed)
        for n in range(leases):
            status, _ = load.request('POST', '/v1/os-hosts',
                                     {'name': 'kill-host-%d' % n})
            assert status == 201, status
        killer = Killer(deployment, kills, seed)
        killer.start()
        rnd = random.Random(seed)
        # In waves, so events come due while managers die and return.
        created = []
        for n in range(leases):
            lease = load.create('kill-%d' % n, 'now',
                                chaoslib.date(rnd.choice((1, 2))))
            if lease:
                created.append(lease['id'])
            time.sleep(rnd.uniform(0, 1.5))
        last_end = max(row[0] for row in deployment.query(
            'SELECT MAX(end_date) FROM leases'))
        print('created %d leases; last end %s UTC; waiting for it and the '
              'claim timeout' % (len(created), last_end))

        def settled():
            return not deployment.query(
                "SELECT id FROM events WHERE status <> 'DONE'")
        deadline = time.monotonic() + 300
        while not settled() and time.monotonic() < deadline:
            time.sleep(1)
        killer.done.set()
        killer.join(30)
        # A last look for events run twice after the end.
        time.sleep(2 * interval + 1)

        events = deployment.query(
            'SELECT e.lease_id, e.event_type, e.status, e.id FROM events e')
        statuses = chaoslib.lease_statuses(deployment)
        sent = notifications(deployment)
        # A create in flight on a manager that dies is answered 503 after
        # [manager] rpc_timeout: the API did not hang. It may or may not
        # have been made; it must not be half made.
        unanswered = [b for b in load.bad if b[2] == 503]
        load.bad = [b for b in load.bad if b[2] != 503]
        lost = chaoslib.bad_answers(load) + chaoslib.half_made_leases(
            deployment)
        in_db = {row[0] for row in deployment.query('SELECT id FROM leases')}
        made_anyway = in_db - load.created
        for lease_id, event_type, status, _id in events:
            if status != 'DONE':
                lost.append('lease %s %s ended %s' % (lease_id, event_type,
                                                      status))
        for lease_id, status in deployment.query(
                "SELECT id, status FROM leases WHERE status <> "
                "'TERMINATED'"):
            lost.append('lease %s is %s, not TERMINATED'
                        % (lease_id, status))
        held = deployment.query(
            'SELECT COUNT(*) FROM computehost_allocations')[0][0]
        if held:
            lost.append('%d host allocations left after every lease ended'
                        % held)
        event_ids = {(lease_id, event_type): event_id
                     for lease_id, event_type, _s, event_id in events}
        repeated = 0
        for lease_id in sorted(in_db):
            for event_type in EVENTS:
                ids = sent.pop((lease_id, event_type), [])
                if not ids:
                    lost.append('lease %s: no lease.event.%s notification'
                                % (lease_id, event_type))
                elif set(ids) != {event_ids.get((lease_id, event_type))}:
                    lost.append('lease %s: lease.event.%s notifications '
                                'carry event_id %s' % (lease_id, event_type,
                                                       sorted(set(ids))))
                repeated += len(ids) - 1
        for key, ids in sent.items():
            lost.append('unexpected notification %s x%d' % (key, len(ids)))
        kill_lines = ['kill %d: %s while %s'
                      % (n + 1, ', '.join(victims), running)
                      for n, (running, victims) in enumerate(killer.log)]
        return chaoslib.report(
            'Managers SIGKILLed mid-event on %s: %d leases (%d events), '
            '[manager] event_interval %ss, event_claim_timeout %ss'
            % (backend, len(created), len(events), interval,
               claim_timeout),
            ['%d SIGKILLs (of %d planned)' % (len(killer.log), kills)] +
            kill_lines +
            ['creates answered 503 (manager killed mid-call): %d, of '
             'which made anyway: %d' % (len(unanswered), len(made_anyway)),
             'leases afterwards: %s' % statuses,
             'events: %s' % dict(collections.Counter(
                 s for _, _, s, _ in events)),
             'notifications repeated after a kill (same event_id, at least '
             'once): %d' % repeated], lost)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--backend', default='mysql',
                        choices=('mysql', 'postgresql'))
    parser.add_argument('--leases', type=int, default=40)
    parser.add_argument('--kills', type=int, default=10)
    parser.add_argument('--interval', type=float, default=0.5)
    parser.add_argument('--claim-timeout', type=int, default=5)
    parser.add_argument('--seed', type=int, default=1)
    args = parser.parse_args()
    return run(args.backend, args.leases, args.kills, args.interval,
               args.claim_timeout, args.seed)


if __name__ == '__main__':
    sys.exit(main())
