#!/usr/bin/env python3
"""Upstream Blazar 18.0.0's side of the side-by-side bench.

Runs in upstream's own venv (tools/blazar/setup-venv.sh), started by
tools/bench/side_by_side.py; it never edits upstream's files. Upstream
runs in process, with the stand-ins of tools/blazar/upstream_server.py
(its v1 Flask app, its manager called directly where the API would call
it over RPC, and small stand-ins for Keystone, Nova and Neutron).

    python upstream.py seed --database URL --hosts N --per-host R --listed L
    python upstream.py worker --database URL
    python upstream.py serve --database URL --port P

seed prints one JSON object on its last line; worker answers requests
read from stdin, one JSON line each (see worker()).
"""

import argparse
import contextlib
import datetime
import json
import os
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), 'blazar'))
import seed  # noqa: E402
import upstream_server  # noqa: E402

FMT = '%Y-%m-%d %H:%M'
ADMIN = {'X-User-Id': 'bench-admin', 'X-Project-Id': 'bench',
         'X-Roles': 'admin', 'X-Auth-Token': 'bench',
         'X-Service-Catalog': upstream_server.CATALOG}
LISTER = {'X-User-Id': 'lister', 'X-Project-Id': 'lister',
          'X-Roles': 'member,reader', 'X-Auth-Token': 'bench',
          'X-Service-Catalog': upstream_server.CATALOG}
configure = upstream_server.configure
migrate = upstream_server.migrate
install_stand_ins = upstream_server.install_stand_ins
make_app = upstream_server.make_app


# --- Seeding ----------------------------------------------------------------

def seed_database(database: str, hosts: int, per_host: int, listed: int,
                  base: datetime.datetime) -> dict:
    """The hosts, capabilities and reservations of seed.py in upstream's
    tables, in bulk; ``listed`` of the leases belong to project 'lister'."""
    import sqlalchemy as sa
    engine = sa.create_engine(database)
    meta = sa.MetaData()
    meta.reflect(engine)
    t = meta.tables
    now = datetime.datetime.utcnow()
    prop_ids = {name: str(uuid.uuid4()) for name in seed.CAPABILITY_NAMES}
    host_ids = {}
    counts = {'hosts': hosts, 'leases': 0}
    with engine.begin() as conn:
        conn.execute(t['resource_properties'].insert(), [
            {'id': pid, 'resource_type': 'physical:host',
             'property_name': name, 'private': False, 'created_at': now}
            for name, pid in prop_ids.items()])
        for start in range(1, hosts + 1, 2000):
            rows, values = [], []
            for i in range(start, min(hosts, start + 1999) + 1):
                host_ids[i] = str(uuid.uuid4())
                rows.append(dict(seed.host_columns(i), id=host_ids[i],
                                 availability_zone='nova',
                                 trust_id=str(uuid.uuid4()),
                                 reservable=True, created_at=now))
                for name, value in seed.capabilities(i).items():
                    values.append({'id': str(uuid.uuid4()),
                                   'computehost_id': host_ids[i],
                                   'property_id': prop_ids[name],
                                   'capability_value': value,
                                   'created_at': now})
            conn.execute(t['computehosts'].insert(), rows)
            conn.execute(t['computehost_extra_capabilities'].insert(), values)
        batch = {name: [] for name in ('leases', 'reservations',
                                       'computehost_reservations',
                                       'computehost_allocations', 'events')}

        def flush():
            for name, items in batch.items():
                if items:
                    conn.execute(t[name].insert(), items)
                    items.clear()

        n = 0
        for i in range(1, hosts + 1):
            for start, end in seed.reservation_windows(i, per_host, base):
                lease_id, res_id = str(uuid.uuid4()), str(uuid.uuid4())
                project = 'lister' if n < listed else 'bench'
                batch['leases'].append({
                    'id': lease_id, 'name': 'existing-%d' % n,
                    'user_id': project, 'project_id': project,
                    'start_date': start, 'end_date': end,
                    'trust_id': str(uuid.uuid4()), 'status': 'PENDING',
                    'degraded': False, 'created_at': now})
                batch['reservations'].append({
                    'id': res_id, 'lease_id': lease_id,
                    'resource_id': str(uuid.uuid4()),
                    'resource_type': 'physical:host', 'status': 'pending',
                    'missing_resources': False, 'resources_changed': False,
                    'created_at': now})
                batch['computehost_reservations'].append({
                    'id': res_id, 'reservation_id': res_id,
                    'aggregate_id': 1, 'count_range': '1-1',
                    'resource_properties': '', 'hypervisor_properties': '',
                    'before_end': 'default', 'created_at': now})
                batch['computehost_allocations'].append({
                    'id': str(uuid.uuid4()), 'compute_host_id': host_ids[i],
                    'reservation_id': res_id, 'created_at': now})
                for event, when in (('start_lease', start),
                                    ('end_lease', end)):
                    batch['events'].append({
                        'id': str(uuid.uuid4()), 'lease_id': lease_id,
                        'event_type': event, 'time': when,
                        'status': 'UNDONE', 'created_at': now})
                n += 1
            if len(batch['leases']) >= 5000:
                flush()
        flush()
        counts['leases'] = n
    engine.dispose()
    return counts


# --- Measuring --------------------------------------------------------------

def call(app, method: str, path: str, headers: dict, body=None):
    from werkzeug.test import Client
    client = Client(app)
    # Upstream refuses any request without JSON content and accept types.
    kwargs = {'headers': dict(headers, Accept='application/json'),
              'content_type': 'application/json'}
    if body is not None:
        kwargs['data'] = json.dumps(body)
    resp = client.open(path, method=method,
                       environ_base={'REMOTE_ADDR': '127.0.0.1'}, **kwargs)
    data = resp.get_data()
    return resp.status_code, data


def operation(app, kind: str, base: datetime.datetime, tag: str):
    """The request ``kind`` names, as a function of the repetition
    number: (status, body)."""
    headers = {'admin': ADMIN, 'lister': LISTER}

    def one(n):
        method, path, who, body = seed.request(kind, n, base, tag)
        return call(app, method, path, headers[who], body)
    return one


def worker(args) -> None:
    """Answer one request per line of stdin ({"op", "n", "tag"}) with one
    line of JSON ({"seconds", "status", "error"}), after a first line
    'ready': the parent times each request against blazar_ext's in turn
    and ends this process when one outlasts its cap."""
    answers = os.fdopen(os.dup(sys.stdout.fileno()), 'w')
    # Upstream prints in its query loop; only the answers go out.
    with open(os.devnull, 'w') as quiet, \
            contextlib.redirect_stdout(quiet):
        configure(args.database)
        install_stand_ins()
        app = make_app()
        base = datetime.datetime.strptime(args.base, FMT)
        answers.write('ready\n')
        answers.flush()
        for line in sys.stdin:
            asked = json.loads(line)
            fn = operation(app, asked['op'], base, asked.get('tag', ''))
            t = time.perf_counter()
            status, data = fn(asked['n'])
            answers.write(json.dumps({
                'seconds': time.perf_counter() - t, 'status': status,
                'error': data[:500].decode('utf-8', 'replace')
                if status >= 400 else None}) + '\n')
            answers.flush()


def serve(args) -> None:
    """Upstream's v1 app in one threaded process (upstream_server)."""
    upstream_server.serve(args.database, args.port)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('action', choices=('seed', 'worker', 'serve'))
    parser.add_argument('--database', required=True)
    parser.add_argument('--hosts', type=int, default=1000)
    parser.add_argument('--per-host', type=int, default=10)
    parser.add_argument('--listed', type=int, default=1000)
    parser.add_argument('--base', default='2031-01-01 00:00')
    parser.add_argument('--port', type=int, default=0)
    args = parser.parse_args()
    if args.action == 'seed':
        migrate(configure(args.database), args.database)
        t = time.perf_counter()
        counts = seed_database(args.database, args.hosts, args.per_host,
                               args.listed,
                               datetime.datetime.strptime(args.base, FMT))
        counts['seconds'] = time.perf_counter() - t
        print(json.dumps(counts))
    elif args.action == 'worker':
        worker(args)
    else:
        serve(args)
    return 0


if __name__ == '__main__':
    sys.exit(main())
