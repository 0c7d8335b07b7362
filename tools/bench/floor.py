#!/usr/bin/env python3
"""Each small or hot request through the all-in-one, against its floor.

    python tools/bench/floor.py [--hosts 1000] [--reps 200] [--workdir DIR]
        [--only SUBSTRING]

The floor of a request is what any server must spend on it: the same SQL
statements blazar_ext runs for it, run directly with the sqlite3 module
on the same database file (one connection kept open, every row fetched),
then the same answer serialized (json.dumps of the same document) and
sent over a keep-alive HTTP/1.1 connection by a minimal socket server.
The bench:

1. seeds two SQLite files: "small" (10 hosts with the 20 capabilities of
   tools/bench/seed.py, one lease each, of project 'lister') and "big"
   (``--hosts`` hosts with capabilities and as many Placement providers
   with inventories and traits, as tools/bench/placement.py's flat
   scenario);
2. starts ``blazar-ext-all-in-one`` on each file;
3. records, in this process on the same file, the SQL each request runs
   (SQLAlchemy's before_cursor_execute) and the answer it gets;
4. starts the floor server on the same file with those recordings;
5. asks both the same request alternately, ``--reps`` times each, over
   one keep-alive connection each, and prints medians and the ratio.

Both servers are separate processes on the same machine, so a busy
machine slows both alike: read the ratios.
"""

import argparse
import datetime
import http.client
import json
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

import sqlalchemy as sa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import placement as placement_bench  # noqa: E402
import side_by_side  # noqa: E402

from blazar_ext import context as blazar_context  # noqa: E402
from blazar_ext.db.api.placement import resource_class  # noqa: E402
from blazar_ext.db.api.placement import trait  # noqa: E402

ADMIN = {'X-Auth-Token': 'admin'}
LISTER = side_by_side.LISTER
PLACEMENT = dict(ADMIN, **{'OpenStack-API-Version': 'placement 1.39'})

# (label, path, headers); '{lease}' is the first lease's id.
SMALL = [
    ('versions /', '/', ADMIN),
    ('versions /v1/', '/v1/', ADMIN),
    ('leases (10)', '/v1/leases', LISTER),
    ('lease show', '/v1/leases/{lease}', LISTER),
    ('hosts (10)', '/v1/os-hosts', ADMIN),
    ('host show', '/v1/os-hosts/1', ADMIN),
    ('placement root', '/placement/', PLACEMENT),
    ('providers (empty)', '/placement/resource_providers', PLACEMENT),
    ('custom traits', '/placement/traits?name=startswith:CUSTOM',
     PLACEMENT),
    ('namespaces limit=1', '/v2/metadefs/namespaces?limit=1', ADMIN),
    ('resource types', '/v2/metadefs/resource_types', ADMIN),
]
BIG = [
    ('hosts (N)', '/v1/os-hosts', ADMIN),
    ('properties detail', '/v1/os-hosts/properties?detail=true', ADMIN),
    ('providers required=CUSTOM_GPU',
     '/placement/resource_providers?required=CUSTOM_GPU', PLACEMENT),
    ('candidates limit=100',
     '/placement/allocation_candidates?resources=VCPU:1&limit=100',
     PLACEMENT),
    ('candidates unlimited',
     '/placement/allocation_candidates?resources=VCPU:1', PLACEMENT),
]


# -- the floor server --------------------------------------------------------

def serve_floor(database: str, plan_file: str, port: int) -> None:
    """Answer each planned path: its SQL on sqlite3, its document dumped."""
    with open(plan_file) as f:
        plan = json.load(f)
    conn = sqlite3.connect(database, check_same_thread=False)
    listener = socket.create_server(('127.0.0.1', port))
    print('ready', flush=True)
    while True:
        client, _ = listener.accept()
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with client:
            _answer_requests(client, conn, plan)


def _answer_requests(client, conn, plan: dict) -> None:
    buffered = b''
    while True:
        while b'\r\n\r\n' not in buffered:
            chunk = client.recv(65536)
            if not chunk:
                return
            buffered += chunk
        head, buffered = buffered.split(b'\r\n\r\n', 1)
        path = head.split(b' ', 2)[1].decode()
        entry = plan[path]
        for statement, parameters in entry['sql']:
            conn.execute(statement, parameters).fetchall()
        document = entry['document']
        body = (json.dumps(document).encode() if document is not None
                else entry['raw'].encode())
        client.sendall(b'HTTP/1.1 %d X\r\nContent-Type: %s\r\n'
                       b'Content-Length: %d\r\n\r\n%s' % (
                           entry['status'], entry['type'].encode(),
                           len(body), body))


# -- recording what blazar_ext runs ------------------------------------------

class Recorder:
    """The SQL statements run while recording, from any engine."""

    def __init__(self):
        self.statements = None
        sa.event.listen(sa.engine.Engine, 'before_cursor_execute',
                        self._seen)

    def _seen(self, conn, cursor, statement, parameters, context,
              executemany):
        if self.statements is not None and not executemany:
            self.statements.append((statement, list(parameters or ())))


def record(url: str, requests: list, recorder: Recorder) -> dict:
    """path -> {sql, status, type, document|raw} for each request."""
    plan = {}
    with side_by_side.ext_app(url) as app:
        for _, path, headers in requests:
            side_by_side.call(app, 'GET', path, headers)  # warm caches
            recorder.statements = []
            req = side_by_side.webob.Request.blank(path, headers=headers)
            resp = req.get_response(app)
            statements, recorder.statements = recorder.statements, None
            # Transaction control is the floor's own business.
            sql = [(s, p) for s, p in statements
                   if not s.lstrip().upper().startswith(
                       ('BEGIN', 'COMMIT', 'ROLLBACK', 'SAVEPOINT',
                        'RELEASE'))]
            is_json = resp.content_type == 'application/json'
            plan[path] = {
                'sql': sql, 'status': resp.status_int,
                'type': resp.content_type or 'text/plain',
                'document': resp.json if is_json else None,
                'raw': None if is_json else resp.text}
    return plan


# -- seeding -----------------------------------------------------------------

def seed(url: str, hosts: int, per_host: int, providers: int) -> None:
    base = datetime.datetime.strptime(side_by_side.BASE, side_by_side.FMT)
    side_by_side.ext_seed_side(url, hosts, per_host, base)
    if providers:
        engine, restore = side_by_side.ext_configure(url)
        try:
            ctx = blazar_context.get_admin_context()
            trait.sync_standard_traits(ctx)
            resource_class.sync_standard_classes(ctx)
            trait.create_trait(ctx, 'CUSTOM_GPU')
        finally:
            restore()
            engine.dispose()
            side_by_side.CONF.reset()
        placement_bench.bulk_load(url, placement_bench.flat_data(providers))


def first_lease(url: str) -> str:
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        lease = conn.scalar(sa.text(
            "SELECT id FROM leases WHERE project_id = 'lister' "
            "ORDER BY name LIMIT 1"))
    engine.dispose()
    return lease


# -- the processes -----------------------------------------------------------

def start_all_in_one(url: str, workdir: str) -> tuple:
    port = side_by_side.free_port()
    config = os.path.join(workdir, 'aio-%d.conf' % port)
    with open(config, 'w') as f:
        f.write('[DEFAULT]\nstate_path = %s\n[database]\nconnection = %s\n'
                '[api]\nport = %d\n' % (workdir, url, port))
    process = subprocess.Popen(
        [os.path.join(os.path.dirname(sys.executable),
                      'blazar-ext-all-in-one'), '--config-file', config],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    side_by_side.wait_answering('http://127.0.0.1:%d/' % port, process)
    return process, port


def start_floor(database: str, plan: dict, workdir: str) -> tuple:
    port = side_by_side.free_port()
    plan_file = os.path.join(workdir, 'plan-%d.json' % port)
    with open(plan_file, 'w') as f:
        json.dump(plan, f)
    process = subprocess.Popen(
        [sys.executable, os.path.abspath(__file__), '--serve-floor',
         database, plan_file, str(port)], stdout=subprocess.PIPE)
    process.stdout.readline()
    return process, port


def timed(conn: http.client.HTTPConnection, path: str,
          headers: dict) -> tuple:
    t = time.perf_counter()
    conn.request('GET', path, headers=headers)
    resp = conn.getresponse()
    body = resp.read()
    return time.perf_counter() - t, resp.status, len(body)


def compare(api_port: int, floor_port: int, requests: list,
            reps: int) -> list:
    api = http.client.HTTPConnection('127.0.0.1', api_port)
    floor = http.client.HTTPConnection('127.0.0.1', floor_port)
    rows = []
    for label, path, headers in requests:
        times = {'api': [], 'floor': []}
        sizes = {}
        for i in range(reps + 10):
            for side, conn in (('api', api), ('floor', floor)):
                seconds, status, size = timed(conn, path, headers)
                sizes[side] = (status, size)
                if i >= 10:  # warm-up
                    times[side].append(seconds)
        api_ms = statistics.median(times['api']) * 1000
        floor_ms = statistics.median(times['floor']) * 1000
        rows.append((label, api_ms, floor_ms, sizes['api'], sizes['floor']))
    api.close()
    floor.close()
    return rows


def run(name: str, url: str, database: str, requests: list, args,
        recorder: Recorder) -> list:
    aio, api_port = start_all_in_one(url, args.workdir)
    try:
        if any('{lease}' in path for _, path, _ in requests):
            lease = first_lease(url)
            requests = [(label, path.replace('{lease}', lease), headers)
                        for label, path, headers in requests]
        plan = record(url, requests, recorder)
        floor, floor_port = start_floor(database, plan, args.workdir)
        try:
            return compare(api_port, floor_port, requests, args.reps)
        finally:
            side_by_side.stop(floor)
    finally:
        side_by_side.stop(aio)


def main() -> int:
    if len(sys.argv) == 5 and sys.argv[1] == '--serve-floor':
        serve_floor(*sys.argv[2:4], int(sys.argv[4]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--hosts', type=int, default=1000)
    parser.add_argument('--reps', type=int, default=200)
    parser.add_argument('--workdir')
    parser.add_argument('--only', default='',
                        help='only the requests whose label contains this')
    args = parser.parse_args()
    args.workdir = args.workdir or tempfile.mkdtemp(prefix='floor-')
    recorder = Recorder()
    print('workdir %s; %d repetitions each, alternating; SQLite; '
          'blazar-ext-all-in-one against its floor'
          % (args.workdir, args.reps))
    print('%-32s %10s %10s %7s  %s' % ('request', 'api ms', 'floor ms',
                                       'ratio', 'status/bytes'))
    for name, hosts, per_host, providers, requests in (
            ('small', 10, 1, 0, SMALL),
            ('big', args.hosts, 0, args.hosts, BIG)):
        requests = [r for r in requests if args.only in r[0]]
        if not requests:
            continue
        database = os.path.join(args.workdir, '%s.sqlite' % name)
        url = 'sqlite:///%s' % database
        seed(url, hosts, per_host, providers)
        for label, api_ms, floor_ms, api_size, floor_size in run(
                name, url, database, requests, args, recorder):
            if name == 'big':
                label = label.replace('N', str(args.hosts))
            print('%-32s %10.2f %10.2f %6.2fx  %s%s' % (
                label, api_ms, floor_ms, api_ms / floor_ms, api_size,
                '' if api_size[0] == floor_size[0] else ' != %s' % (
                    floor_size,)), flush=True)
    print('load average %.2f' % os.getloadavg()[0])
    return 0


if __name__ == '__main__':
    sys.exit(main())
