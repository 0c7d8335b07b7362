#!/usr/bin/env python3
"""Host failures: random hosts fail and come back while leases are
created, updated and deleted, for a few minutes.

Two blazar-ext-api and two blazar-ext-manager processes over RabbitMQ;
the managers poll a small Nova of this script's own ([health] source =
nova, every second). Half the failures are Nova's compute service going
down (the managers notice), half the operator's ``PUT /v1/os-hosts/{id}
{"reservable": false}``; each comes back a little later the same way.

Lost, for this script: an overlapping allocation on one host; a live
reservation left on a host out of service without ``missing_resources``
(neither moved nor flagged); a flagged reservation whose lease is not
``degraded`` or a degraded lease with nothing flagged; a reservation
holding more hosts than its max (healed twice); an answer other than
2xx/403/404/409; a
lease left in a transitional status; a 201 lease missing or a 204 lease
still there; a process dead.

    /work/venv/bin/python tools/chaos/host_failures.py \
        [--backend mysql|postgresql|both] [--duration 180] [--threads 6] \
        [--hosts 12]
"""

import argparse
import collections
import datetime
import os
import random
import re
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import chaoslib  # noqa: E402

from blazar_ext.tests.functional import health_servers  # noqa: E402

HEALED = re.compile(r'Healed reservation (\S+) of lease \S+: \S+ (\S+) ->')


def lease_load(load, stop: threading.Event, threads: int,
               seed: int) -> None:
    pool = chaoslib.LeasePool(load)
    slots = [10 + 20 * n for n in range(12)]

    def worker(n):
        rnd = random.Random(seed * 1000 + n)
        i = 0
        while not stop.is_set():
            i += 1
            target = pool.pick(rnd)
            roll = rnd.random()
            if target is None or roll < 0.5:
                start = rnd.choice(slots)
                if rnd.random() < 0.3:
                    start, end = 'now', chaoslib.date(rnd.choice((2, 4)))
                else:
                    end = chaoslib.date(start + rnd.choice((20, 40, 60)))
                    start = chaoslib.date(start)
                low = rnd.randint(1, 2)
                pool.create('hf-%d-%d' % (n, i), start, end, low,
                            rnd.randint(low, 3))
            elif roll < 0.8:
                if rnd.random() < 0.5:
                    body = {'end_date': chaoslib.date(
                        slots[-1] + rnd.choice((20, 40)))}
                else:
                    low = rnd.randint(1, 2)
                    body = {'reservations': [
                        {'id': target[1], 'min': low,
                         'max': rnd.randint(low, 3)}]}
                pool.update(target, body)
            else:
                pool.delete(target)

    chaoslib.run_threads(threads, worker)


class Failures:
    """Fails and revives random hosts, through Nova or the operator."""

    def __init__(self, load, nova, hosts: dict, seed: int,
                 max_down: int):
        self.load = load
        self.nova = nova
        self.hosts = hosts  # name -> id
        self.random = random.Random(seed)
        self.max_down = max_down
        self.down = {}  # name -> 'nova' | 'operator'
        self.counts = collections.Counter()
        self.operator_seconds = []

    def _operator(self, name: str, reservable: bool) -> None:
        started = time.monotonic()
        status, _ = self.load.request(
            'PUT', '/v1/os-hosts/%s' % self.hosts[name],
            {'reservable': reservable})
        if not reservable and status == 200:
            # The answer comes once the host's reservations are healed.
            self.operator_seconds.append(time.monotonic() - started)

    def step(self) -> None:
        up = sorted(set(self.hosts) - set(self.down))
        if self.down and (len(self.down) >= self.max_down or
                          self.random.random() < 0.4):
            name = self.random.choice(sorted(self.down))
            how = self.down.pop(name)
            if how == 'nova':
                self.nova.state[name]['service_state'] = 'up'
            else:
                self._operator(name, True)
            self.counts['%s up' % how] += 1
        elif up:
            name = self.random.choice(up)
            how = self.random.choice(('nova', 'operator'))
            self.down[name] = how
            if how == 'nova':
                self.nova.state[name]['service_state'] = 'down'
            else:
                self._operator(name, False)
            self.counts['%s down' % how] += 1

    def run(self, stop: threading.Event, every: float) -> None:
        while not stop.wait(every):
            self.step()

    def fail_up_to_max(self) -> None:
        """End with hosts down, so the checks have something to check."""
        while len(self.down) < self.max_down:
            name = self.random.choice(sorted(set(self.hosts) -
                                             set(self.down)))
            self.down[name] = 'nova'
            self.nova.state[name]['service_state'] = 'down'
            self.counts['nova down'] += 1


def unhealed(deployment) -> list:
    """Live reservations on a host out of service, not flagged."""
    now = datetime.datetime.utcnow()
    rows = deployment.query(
        'SELECT r.id, l.id, h.hypervisor_hostname FROM '
        'computehost_allocations a JOIN computehosts h ON '
        'h.id = a.compute_host_id JOIN reservations r ON '
        'r.id = a.reservation_id JOIN leases l ON l.id = r.lease_id '
        "WHERE h.reservable = :false AND a.end_date > :now AND l.status IN "
        "('PENDING', 'ACTIVE') AND r.missing_resources = :false",
        now=now, false=False)
    return ['reservation %s of lease %s left on %s, out of service, '
            'without missing_resources' % row for row in rows]


def flags_consistent(deployment) -> list:
    lost = []
    for lease_id, degraded, missing in deployment.query(
            'SELECT l.id, l.degraded, (SELECT COUNT(*) FROM reservations r '
            'WHERE r.lease_id = l.id AND r.missing_resources = :true) '
            "FROM leases l WHERE l.status IN ('PENDING', 'ACTIVE')",
            true=True):
        if bool(degraded) != bool(missing):
            lost.append('lease %s: degraded %s but %d reservation(s) '
                        'missing resources' % (lease_id, bool(degraded),
                                               missing))
    return lost


def run(backend: str, duration: float, threads: int, hosts: int,
        seed: int, every: float) -> int:
    reason = chaoslib.skip_reason(backend)
    if reason:
        print('SKIP %s: %s' % (backend, reason))
        return 2
    with health_servers.FakeNova() as nova, chaoslib.Deployment(
            backend, managers=2, apis=2, rpc_timeout=60, extra_config=(
                '[manager]\nevent_interval = 0.5\n'
                'minutes_before_end_lease = 0\n'
                '[health]\nsource = nova\ninterval = 1\n'
                '[nova]\nauth_type = none\nendpoint_override = %s\n'
                % nova.endpoint)) as deployment:
        load = chaoslib.Load(deployment.endpoints, seed=seed)
        ids = {}
        for n in range(hosts):
            name = 'chaos-host-%d' % n
            nova.add(name)
            status, body = load.request('POST', '/v1/os-hosts',
                                        {'name': name})
            assert status == 201, status
            ids[name] = body['host']['id']
        stop = threading.Event()
        failures = Failures(load, nova, ids, seed, max(1, hosts // 4))
        chaos = threading.Thread(target=failures.run, args=(stop, every))
        chaos.start()
        loader = threading.Thread(target=lease_load,
                                  args=(load, stop, threads, seed))
        loader.start()
        time.sleep(duration)
        stop.set()
        chaos.join()
        loader.join()
        failures.fail_up_to_max()
        # Hosts down stay down; let the managers notice and sweep.
        time.sleep(8)
        heals = collections.Counter()
        for manager in deployment.managers:
            heals.update(HEALED.findall(manager.log()))
        # A reservation may leave one host again after the host failed,
        # came back and took it again; a double heal would show as more
        # hosts than max (half_made_leases).
        again = sum(1 for count in heals.values() if count > 1)
        out = deployment.query(
            'SELECT hypervisor_hostname, reservable_reason FROM '
            'computehosts WHERE reservable = :false', false=False)
        degraded = deployment.query(
            'SELECT COUNT(*) FROM leases WHERE degraded = :true',
            true=True)[0][0]
        changed = deployment.query(
            'SELECT COUNT(*) FROM reservations WHERE resources_changed = '
            ':true', true=True)[0][0]
        lost = (chaoslib.bad_answers(load) +
                chaoslib.service_state(deployment, load) +
                unhealed(deployment) + flags_consistent(deployment))
        seconds = failures.operator_seconds
        return chaoslib.report(
            'Host failures on %s: 2 APIs, 2 managers polling Nova every '
            '1 s, %d hosts, %d s of lease load from %d threads, a failure '
            'or revival every %.1f s' % (backend, hosts, duration, threads,
                                         every),
            [load.summary(),
             'failures and revivals: %s' % dict(failures.counts),
             'heals: %d (of %d reservations; %d healed off the same host '
             'in two of its failures); reservations with '
             'resources_changed: %d; degraded leases at the end: %d'
             % (sum(heals.values()), len({k[0] for k in heals}), again,
                changed, degraded),
             'out of service at the end: %s' % (out or 'none'),
             'operator PUT reservable=false, healing included: median '
             '%.0f ms, max %.0f ms over %d' % (
                 1000 * statistics.median(seconds) if seconds else 0,
                 1000 * max(seconds) if seconds else 0, len(seconds)),
             'leases afterwards: %s' % chaoslib.lease_statuses(deployment)],
            lost)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--backend', default='both',
                        choices=('mysql', 'postgresql', 'both'))
    parser.add_argument('--duration', type=float, default=180)
    parser.add_argument('--threads', type=int, default=6)
    parser.add_argument('--hosts', type=int, default=12)
    parser.add_argument('--every', type=float, default=2.0,
                        help='seconds between two failures or revivals')
    parser.add_argument('--seed', type=int, default=1)
    args = parser.parse_args()
    backends = (['mysql', 'postgresql'] if args.backend == 'both'
                else [args.backend])
    results = [run(b, args.duration, args.threads, args.hosts, args.seed,
                   args.every) for b in backends]
    return 1 if 1 in results else (2 if all(r == 2 for r in results) else 0)


if __name__ == '__main__':
    sys.exit(main())
