#!/usr/bin/env python3
"""The production shape under faults: tools/ha's cluster (three Galera
nodes behind HAProxy, three RabbitMQ nodes with quorum queues, two
``blazar-ext-api --workers 2``, two managers) under a mixed load of
lease creates, updates and deletes, Placement allocation writes,
metadefs object writes and healing (one host at a time taken out of
service and put back, so the managers move the reservations it held),
while one piece after the other is SIGKILLed and
brought back: the Galera node HAProxy writes to, the RabbitMQ node
leading the managers' queue, a manager, an API.

Printed per fault: requests (those started from two seconds before the
kill until two seconds before the next), errors (answers other than 2xx,
403, 404, 409, or none), the error rate, the time from the kill to the
end of the last failed request (the service's recovery) and the time the
piece took to be back (synced, clustered, consuming, answering).

The load goes through HAProxy's frontend of the two APIs (``--direct``:
to the APIs themselves).

Lost, for this script: a lease answered 201 missing or answered 204
present, or present though no client was told of it (unless its create
was answered 5xx or not at all: a COMMIT lost with the Galera node that
ran it may have been applied; those are counted); a host booked twice;
a lease stuck or half made; an event not DONE after its time or whose
notifications carry two event ids (run twice); an acknowledged Placement
allocation or metadefs object not as acknowledged; a provider's usages
other than the sum of its allocation rows; a provider summary other than
its rows; Galera nodes that disagree.

    python tools/chaos/cluster_faults.py [--down 20] [--settle 15] \
        [--threads 6] [--faults galera,rabbit,manager,api] [--dir DIR]
"""

import argparse
import collections
import datetime
import json
import os
import random
import sys
import threading
import time
import uuid

import sqlalchemy as sa

import chaoslib
import manager_kill

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), 'ha'))
import cluster as ha  # noqa: E402

from blazar_ext.db.api.placement import provider_summary  # noqa: E402

PLACEMENT = {'OpenStack-API-Version': 'placement 1.12'}
NAMESPACE = 'OS::Chaos::Cluster'
FAULTS = ('galera', 'rabbit', 'manager', 'api')


class FamilyLoad(chaoslib.Load):
    """chaoslib.Load that also logs each request's family (leases,
    placement, metadefs) with its start, status and duration."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.family_log = []
        # Lease names of creates answered 5xx or not at all: made or not,
        # nobody knows (a COMMIT lost with the Galera node that ran it).
        self.unknown_names = set()

    def _session(self):
        session = super()._session()
        session.headers.update(PLACEMENT)
        return session

    def request(self, method, path, body=None, endpoint=None):
        started = time.monotonic()
        status, data = super().request(method, path, body, endpoint)
        family = ('placement' if path.startswith('/placement') else
                  'metadefs' if path.startswith('/v2') else 'leases')
        with self.lock:
            self.family_log.append((started, time.monotonic(), family,
                                    method, status))
            if (path == '/v1/leases' and method == 'POST' and
                    (status is None or status >= 500)):
                self.unknown_names.add(body['name'])
        return status, data


class Ledger:
    """What each acknowledged write left, per key: the states the key may
    be in (one after an answer, two after a request left unanswered)."""

    def __init__(self):
        self.states = {}
        self.lock = threading.Lock()

    def record(self, key, state, status, ok: tuple) -> None:
        with self.lock:
            before = self.states.get(key, [None])
            if status in ok:
                self.states[key] = [state]
            elif status is None or status >= 500:
                self.states[key] = before + [state]


class Mix:
    """The mixed load: each thread owns its Placement consumers and
    metadefs objects (so their ledger is exact) and shares the leases."""

    def __init__(self, load: FamilyLoad, providers: list, hosts: int,
                 seed: int):
        self.load = load
        self.leases = chaoslib.LeasePool(load)
        self.providers = providers
        self.hosts = hosts
        self.seed = seed
        self.allocations = Ledger()
        self.objects = Ledger()
        self.live = set()  # leases started now: only their end may move
        self.stop = threading.Event()
        self.count = 0
        self.out_of_service = 0  # hosts taken out and put back

    def healer(self) -> None:
        """One host at a time out of service for a few seconds, then back:
        the managers heal the reservations it held, during the faults."""
        rnd = random.Random(self.seed)
        while not self.stop.wait(rnd.uniform(2, 4)):
            status, body = self.load.request('GET', '/v1/os-hosts')
            if status != 200 or not body.get('hosts'):
                continue
            path = '/v1/os-hosts/%s' % rnd.choice(body['hosts'])['id']
            if self.set_reservable(path, False, attempts=1):
                self.stop.wait(rnd.uniform(3, 6))
                self.set_reservable(path, True)
                self.out_of_service += 1

    def set_reservable(self, path: str, reservable: bool,
                       attempts: int = 60) -> bool:
        """PUT reservable on a host; a fault's 5xx is tried again."""
        body = {'reservable': reservable}
        if not reservable:
            body['reservable_reason'] = 'chaos'
        for _ in range(attempts):
            status, _ = self.load.request('PUT', path, body)
            if status == 200:
                return True
            time.sleep(1)
        return False

    def restore(self) -> list:
        """Every host back in service; the hosts that would not come
        back (lost: an operator's change not applied)."""
        status, body = self.load.request('GET', '/v1/os-hosts')
        assert status == 200, status
        return ['host %s stays out of service' % host['id']
                for host in body['hosts']
                if not self.set_reservable('/v1/os-hosts/%s' % host['id'],
                                           True)]

    def worker(self, n: int) -> None:
        rnd = random.Random(self.seed * 1000 + n)
        consumers = [str(uuid.UUID(int=rnd.getrandbits(128)))
                     for _ in range(8)]
        objects = ['obj-%d-%d' % (n, i) for i in range(8)]
        while not self.stop.is_set():
            roll = rnd.random()
            if roll < 0.5:
                self.lease_op(rnd, n)
            elif roll < 0.8:
                self.allocation_op(rnd, rnd.choice(consumers))
            else:
                self.object_op(rnd, rnd.choice(objects))
            # Modest: the machine is shared.
            time.sleep(rnd.uniform(0.05, 0.2))

    def lease_op(self, rnd, n: int) -> None:
        self.count += 1
        target = self.leases.pick(rnd)
        roll = rnd.random()
        if target is None or roll < 0.5:
            live = rnd.random() < 0.3
            if live:
                # Its events run during the faults.
                start, end = 'now', chaoslib.date(rnd.choice((2, 3)))
            else:
                slot = 60 + 30 * rnd.randrange(8)
                start, end = chaoslib.date(slot), chaoslib.date(slot + 60)
            lease = self.leases.create('cl-%d-%d' % (n, self.count), start,
                                       end, 1, rnd.randint(1, 2))
            if lease and live:
                self.live.add(lease['id'])
        elif roll < 0.8:
            slot = 60 + 30 * rnd.randrange(8)
            body = {'end_date': chaoslib.date(slot + 60)}
            if target[0] not in self.live:
                body['start_date'] = chaoslib.date(slot)
            self.leases.update(target, body)
        else:
            self.leases.delete(target)

    def allocation_op(self, rnd, consumer: str) -> None:
        path = '/placement/allocations/%s' % consumer
        if rnd.random() < 0.7:
            rp = rnd.choice(self.providers)
            amount = rnd.randint(1, 4)
            status, _ = self.load.request('PUT', path, {
                'allocations': {rp: {'resources': {'VCPU': amount}}},
                'project_id': 'chaos', 'user_id': 'chaos'})
            self.allocations.record(consumer, {rp: amount}, status, (204,))
        else:
            status, _ = self.load.request('DELETE', path)
            self.allocations.record(consumer, {}, status, (204, 404))

    def object_op(self, rnd, name: str) -> None:
        base = '/v2/metadefs/namespaces/%s/objects' % NAMESPACE
        if rnd.random() < 0.7:
            status, _ = self.load.request('POST', base, {
                'name': name, 'description': 'written under faults'})
            if status == 409:  # already there: present all the same
                status = 201
            self.objects.record(name, True, status, (201,))
        else:
            status, _ = self.load.request('DELETE', '%s/%s' % (base, name))
            self.objects.record(name, False, status, (204, 404))


class View:
    """What chaoslib's checks read: query() on the cluster's database."""

    def __init__(self, url: str):
        self.engine = sa.create_engine(url, poolclass=sa.pool.NullPool)

    def query(self, sql: str, **params) -> list:
        with self.engine.connect() as conn:
            return [tuple(r) for r in conn.execute(sa.text(sql), params)]


def seed(load: FamilyLoad, hosts: int, providers: int) -> list:
    for n in range(hosts):
        status, _ = load.request('POST', '/v1/os-hosts',
                                 {'name': 'cl-host-%d' % n})
        assert status == 201, status
    uuids = []
    for n in range(providers):
        status, rp = load.request('POST', '/placement/resource_providers',
                                  {'name': 'cl-rp-%d' % n})
        assert status in (200, 201), status
        if rp is None:  # 1.12 answers 201 with no body
            status, rp = load.request(
                'GET', '/placement/resource_providers?name=cl-rp-%d' % n)
            rp = rp['resource_providers'][0]
        status, _ = load.request(
            'PUT', '/placement/resource_providers/%s/inventories'
            % rp['uuid'], {'resource_provider_generation': rp['generation'],
                           'inventories': {'VCPU': {'total': 10000}}})
        assert status == 200, status
        uuids.append(rp['uuid'])
    status, _ = load.request('POST', '/v2/metadefs/namespaces',
                             {'namespace': NAMESPACE,
                              'visibility': 'public'})
    assert status == 201, status
    return uuids


def fault(cluster: ha.Cluster, kind: str) -> tuple:
    """Kill the piece of ``kind`` that hurts most; (piece, bring back)."""
    if kind == 'galera':
        piece = 'galera-%d' % (cluster.galera_writer() + 1)
    elif kind == 'rabbit':
        piece = 'rabbit-%d' % (rabbit_leader(cluster) + 1)
    else:
        piece = '%s-1' % kind
    cluster.kill(piece)
    return piece, lambda: cluster.start(piece)


def rabbit_leader(cluster: ha.Cluster) -> int:
    """The index of the node leading the managers' quorum queue."""
    nodes = cluster.state['rabbit']
    result = cluster.rabbitmqctl(nodes[0], 'list_queues', 'name', 'leader',
                                 '--formatter', 'json', check=False)
    try:
        for queue in json.loads(result.stdout or '[]'):
            if queue.get('name') == cluster.state['topic']:
                return [n['node'] for n in nodes].index(queue['leader'])
    except ValueError:
        pass
    return 0


# A request started this long before a kill counts for it: it was most
# likely in flight (the p99 latency outside faults is about a second).
IN_FLIGHT = 2.0


def window_figures(load: FamilyLoad, began: float, ended: float,
                   killed: float) -> dict:
    """The requests started from ``began`` until ``ended``; recovery is
    from ``killed`` to the end of the last that failed."""
    rows = [r for r in load.family_log if began <= r[0] < ended]
    failed = [r for r in rows if r[4] not in chaoslib.ACCEPTABLE]
    by_family = collections.Counter(r[2] for r in failed)
    return {'requests': len(rows), 'errors': len(failed),
            'rate': len(failed) / len(rows) if rows else 0.0,
            'recovery': max([r[1] - killed for r in failed] + [0.0]),
            'by_family': dict(by_family)}


def check_placement(view: View, load: FamilyLoad, mix: Mix) -> list:
    lost = []
    for consumer, states in sorted(mix.allocations.states.items()):
        status, data = load.request('GET',
                                    '/placement/allocations/%s' % consumer)
        actual = {rp: a['resources'].get('VCPU', 0)
                  for rp, a in (data or {}).get('allocations', {}).items()}
        if status != 200 or actual not in [s or {} for s in states]:
            lost.append('consumer %s holds %s; acknowledged %s'
                        % (consumer, actual, states))
    rows = dict(view.query(
        'SELECT rp.uuid, COALESCE(SUM(a.used), 0) FROM resource_providers '
        'rp LEFT JOIN allocations a ON a.resource_provider_id = rp.id '
        "WHERE rp.name LIKE 'cl-rp-%' GROUP BY rp.uuid"))
    for rp, used in sorted(rows.items()):
        status, data = load.request(
            'GET', '/placement/resource_providers/%s/usages' % rp)
        usage = (data or {}).get('usages', {}).get('VCPU', 0)
        if usage != int(used):
            lost.append('provider %s: usages say %s VCPU, allocation rows '
                        '%s' % (rp, usage, used))
    with view.engine.connect() as conn:
        for row in provider_summary.mismatches(conn):
            lost.append('provider summary %s differs from its rows: %s '
                        'vs %s' % row)
    return lost


def check_objects(view: View, mix: Mix) -> list:
    present = {row[0] for row in view.query(
        'SELECT o.name FROM metadef_objects o JOIN metadef_namespaces n '
        'ON n.id = o.namespace_id WHERE n.namespace = :ns', ns=NAMESPACE)}
    return ['metadefs object %s is %s; acknowledged %s' % (
        name, 'present' if name in present else 'absent', states)
        for name, states in sorted(mix.objects.states.items())
        if (name in present) not in [bool(s) for s in states]]


def check_events(view: View, cluster: ha.Cluster) -> list:
    lost = []
    late = view.query(
        "SELECT lease_id, event_type, status FROM events WHERE "
        "status <> 'DONE' AND time <= :t",
        t=datetime.datetime.utcnow() - datetime.timedelta(seconds=30))
    lost += ['event %s of lease %s is %s long after its time' % (e, lease, s)
             for lease, e, s in late]
    for (lease, event), ids in manager_kill.notifications(cluster).items():
        if len(set(ids)) > 1:
            lost.append('lease %s %s ran twice (event ids %s)'
                        % (lease, event, sorted(set(map(str, ids)))))
    return lost


def lease_accounting(view: View, load: FamilyLoad) -> tuple:
    """chaoslib's accounting, where a lease no client got a 201 for is
    lost unless its create was answered 5xx or not at all (then it is
    counted as made anyway); (lost, made anyway)."""
    names = dict(view.query('SELECT id, name FROM leases'))
    anyway = {lease_id for lease_id, name in names.items()
              if lease_id not in load.created and
              name in load.unknown_names}
    lost = [line for line in chaoslib.lease_accounting(view, load)
            if not any(line == 'lease %s exists but no client got a 201 '
                       'for it' % lease_id for lease_id in anyway)]
    return lost, len(anyway)


def check_galera(cluster: ha.Cluster) -> list:
    """Every node holds the same rows of the tables written."""
    seen = {}
    for i, node in enumerate(cluster.state['galera']):
        seen[node['name']] = cluster.galera_sql(i, (
            'SELECT (SELECT COUNT(*) FROM blazar.leases), '
            '(SELECT COUNT(*) FROM blazar.computehost_allocations), '
            '(SELECT COUNT(*) FROM blazar.allocations), '
            '(SELECT COUNT(*) FROM blazar.metadef_objects)')).strip()
    if len(set(seen.values())) > 1:
        return ['Galera nodes disagree: %s' % seen]
    return []


def wait_events(view: View, drain: float) -> None:
    """Until every event due now or within ``drain`` seconds is DONE (the
    leases started during the faults end then), or a minute and a half
    past that."""
    horizon = datetime.datetime.utcnow() + datetime.timedelta(seconds=drain)
    deadline = time.monotonic() + drain + 90
    while time.monotonic() < deadline:
        if not view.query("SELECT id FROM events WHERE status <> 'DONE' "
                          "AND time <= :t", t=horizon):
            return
        time.sleep(2)


def run(args) -> int:
    extra = '[oslo_messaging_notifications]\ndriver = log\n'
    cluster = ha.Cluster(args.dir, args.venv, extra_config=extra)
    try:
        began = time.monotonic()
        cluster.up()
        up_seconds = time.monotonic() - began
        return exercise(cluster, args, up_seconds)
    finally:
        cluster.down(keep=args.keep)


def exercise(cluster: ha.Cluster, args, up_seconds: float) -> int:
    endpoints = (cluster.endpoints() if args.direct
                 else [cluster.api_url()])
    load = FamilyLoad(endpoints, seed=args.seed,
                      request_timeout=90)
    providers = seed(load, args.hosts, args.providers)
    mix = Mix(load, providers, args.hosts, args.seed)
    threads = [threading.Thread(target=mix.worker, args=(n,), daemon=True)
               for n in range(args.threads)]
    threads.append(threading.Thread(target=mix.healer, daemon=True))
    started = time.monotonic()
    for thread in threads:
        thread.start()
    time.sleep(args.settle)
    windows = [('none (baseline)', '-', started, time.monotonic(), 0.0)]
    for kind in args.faults:
        began = time.monotonic()
        piece, back = fault(cluster, kind)
        time.sleep(args.down)
        restart = time.monotonic()
        back()
        back_seconds = time.monotonic() - restart
        if kind == 'manager':
            ha.wait_for(lambda: cluster.rpc_consumers() >= ha.MANAGERS,
                        120, 'managers consuming')
            back_seconds = time.monotonic() - restart
        time.sleep(args.settle)
        windows.append((kind, piece, began, time.monotonic(), back_seconds))
    mix.stop.set()
    for thread in threads:
        thread.join(120)
    # Each window runs from its kill (less IN_FLIGHT) to the next's.
    starts = [started] + [w[2] - IN_FLIGHT for w in windows[1:]]
    ends = starts[1:] + [time.monotonic()]
    rows = [(kind, piece, window_figures(load, begin, end, killed), back)
            for (kind, piece, killed, _e, back), begin, end
            in zip(windows, starts, ends)]
    duration = time.monotonic() - started
    view = View(cluster.database_url())
    not_back = mix.restore()
    wait_events(view, args.drain)
    time.sleep(3)
    accounting = lease_accounting(view, load)
    # Answers 5xx or none are the faults' price, reported per fault
    # below; lost is what the data shows afterwards.
    lost = (chaoslib.overlapping_allocations(view) +
            chaoslib.transitional_leases(view) +
            chaoslib.half_made_leases(view) +
            accounting[0] +
            check_events(view, cluster) + check_placement(view, load, mix) +
            check_objects(view, mix) + check_galera(cluster) + not_back)
    table = ['%-16s %-10s %8s %7s %7s %10s %8s  %s' % (
        'fault', 'piece', 'requests', 'errors', 'rate', 'recovery',
        'back in', 'errors by family')]
    for kind, piece, fig, back in rows:
        table.append('%-16s %-10s %8d %7d %6.1f%% %9.1fs %7.1fs  %s' % (
            kind, piece, fig['requests'], fig['errors'], 100 * fig['rate'],
            fig['recovery'], back, fig['by_family'] or '-'))
    total = len(load.family_log)
    errors = sum(1 for r in load.family_log
                 if r[4] not in chaoslib.ACCEPTABLE)
    events = dict(view.query('SELECT status, COUNT(*) FROM events '
                             'GROUP BY status'))
    return chaoslib.report(
        'Cluster faults: 3 Galera nodes behind HAProxy, 3 RabbitMQ nodes '
        '(quorum queues), 2 APIs (--workers 2), 2 managers; %d threads, '
        'each fault held %ds then %ds to settle' % (
            args.threads, args.down, args.settle),
        ['cluster up in %.0fs; load ran %.0fs: %d requests, %d errors'
         % (up_seconds, duration, total, errors), load.summary()] + table +
        ['leases afterwards: %s; events: %s' % (
            chaoslib.lease_statuses(view), events),
         'placement consumers tracked: %d; metadefs objects tracked: %d'
         % (len(mix.allocations.states), len(mix.objects.states)),
         'healing: %d hosts taken out of service and back; %d '
         'reservation.healed events' % (
             mix.out_of_service, view.query(
                 "SELECT COUNT(*) FROM outbox WHERE event_type = "
                 "'reservation.healed'")[0][0]),
         'lease creates answered 5xx or not at all: %d, of which made '
         'anyway: %d' % (
             len(load.unknown_names), accounting[1]),
         'first errors: %s' % (chaoslib.bad_answers(load, limit=5)
                               or 'none')],
        lost)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--dir', default='/tmp/blazar-ha-chaos-%d'
                        % os.getpid())
    parser.add_argument('--venv', help='virtualenv with blazar_ext '
                        '(default: the one running this script)',
                        default=sys.prefix)
    parser.add_argument('--faults', default=','.join(FAULTS),
                        type=lambda s: s.split(','))
    parser.add_argument('--down', type=int, default=20,
                        help='seconds a killed piece stays down')
    parser.add_argument('--settle', type=int, default=15,
                        help='seconds of load before the first fault and '
                             'after each piece is back')
    parser.add_argument('--drain', type=int, default=200,
                        help='seconds after the load to wait for the '
                             'events coming due (the live leases end)')
    parser.add_argument('--threads', type=int, default=6)
    parser.add_argument('--hosts', type=int, default=6)
    parser.add_argument('--providers', type=int, default=4)
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--direct', action='store_true',
                        help='load the two APIs directly, not through '
                             'HAProxy (a killed API then refuses its share)')
    parser.add_argument('--keep', action='store_true',
                        help='keep the cluster directory (logs, data)')
    args = parser.parse_args()
    if os.geteuid() != 0:
        print('SKIP: tools/ha needs root')
        return 2
    return run(args)


if __name__ == '__main__':
    sys.exit(main())
