#!/usr/bin/env python3
"""Each small or hot request through the all-in-one, against its floor.

    python tools/bench/floor.py [--hosts 1000] [--reps 200] [--workdir DIR]
        [--only SUBSTRING] [--create-hosts 1000,10000] [--create-reps 20]

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
   scenario); a file an earlier run left in ``--workdir`` is used again
   as it is (a second seed of it would fail), so that runs alternating
   two trees (``PYTHONPATH``) share one seed;
2. starts ``blazar-ext-all-in-one`` on each file;
3. records, in this process on the same file, the SQL each request runs
   (SQLAlchemy's before_cursor_execute) and the answer it gets;
4. starts the floor server on the same file with those recordings, and
   the same floor as a WSGI application under blazar_ext's own server
   (blazar_ext.wsgi.server: cheroot, 16 threads), the "server floor":
   what serving a request costs before any of the application's work;
5. asks the three the same request in turns (``--block`` requests each,
   1 by default), ``--reps`` times each, over one keep-alive connection
   each, and prints medians, the ratio to the floor and the ratio to the
   server floor.

Lease create (POST /v1/leases with tools/bench/seed.py's equality and
numeric conditions) is measured the same way on a third file per size of
``--create-hosts`` (the hosts of seed.py with ten reservations each, as
tools/bench/side_by_side.py seeds), ``--create-reps`` times: each of the
API's creates is a new lease in a new window; the floor replays the
recorded statements (its many-row inserts as executemany) in one
transaction and commits it, the ids the request created replaced by new
ones each time so that its inserts stay valid.

The servers are separate processes on the same machine, so a busy
machine slows them alike: read the ratios. Creates are not asked of the
server floor.
"""

import argparse
import datetime
import http.client
import json
import os
import re
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import sqlalchemy as sa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import placement as placement_bench  # noqa: E402
import seed as bench_seed  # noqa: E402
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
# Lease creates: the path is a seed.CREATES key (see http_request()).
CREATE = [
    ('lease create == (N)', 'create_eq', ADMIN),
    ('lease create >= (N)', 'create_num', ADMIN),
]
BASE = datetime.datetime.strptime(side_by_side.BASE, side_by_side.FMT)
UUID = re.compile(r'^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?'
                  r'[0-9a-f]{12}$')


def http_request(path: str, n: int, tag: str) -> tuple:
    """(method, path, body) of the n-th request of ``path``: a GET, or
    for a seed.CREATES key the n-th lease create."""
    if path not in bench_seed.CREATES:
        return 'GET', path, None
    return 'POST', '/v1/leases', json.dumps(
        bench_seed.lease_request(path, n, BASE, tag)).encode()


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
        headers = _headers(head)
        length = int(headers.get('content-length', 0))
        while len(buffered) < length:
            buffered += client.recv(65536)
        buffered = buffered[length:]
        entry = plan[headers.get('x-floor-key')
                     or head.split(b' ', 2)[1].decode()]
        _run_sql(conn, entry)
        document = entry['document']
        body = (json.dumps(document).encode() if document is not None
                else entry['raw'].encode())
        client.sendall(b'HTTP/1.1 %d X\r\nContent-Type: %s\r\n'
                       b'Content-Length: %d\r\n\r\n%s' % (
                           entry['status'], entry['type'].encode(),
                           len(body), body))


def serve_floor_wsgi(database: str, plan_file: str, port: int) -> None:
    """The floor as a WSGI application under blazar_ext's own server
    (blazar_ext.wsgi.server: cheroot, 16 threads, one process): what the
    server costs a request before any of the application's work."""
    from blazar_ext.wsgi import server

    with open(plan_file) as f:
        plan = json.load(f)
    conn = sqlite3.connect(database, check_same_thread=False)
    lock = threading.Lock()

    def app(environ, start_response):
        length = int(environ.get('CONTENT_LENGTH') or 0)
        if length:
            environ['wsgi.input'].read(length)
        entry = plan[environ['HTTP_X_FLOOR_KEY']]
        with lock:
            _run_sql(conn, entry)
        document = entry['document']
        body = (json.dumps(document).encode() if document is not None
                else entry['raw'].encode())
        start_response('%d X' % entry['status'],
                       [('Content-Type', entry['type']),
                        ('Content-Length', str(len(body)))])
        return [body]

    server.serve(lambda: app, '127.0.0.1', port, workers=1,
                 name='floor-wsgi',
                 parent_ready=lambda: print('ready', flush=True))


def _headers(head: bytes) -> dict:
    lines = head.decode('latin-1').split('\r\n')[1:]
    return dict((name.strip().lower(), value.strip()) for name, value in
                (line.split(':', 1) for line in lines if ':' in line))


def _run_sql(conn, entry: dict) -> None:
    """The request's statements; a write's in one committed transaction,
    with new ids in place of the ones the recorded request created."""
    fresh = {old: str(uuid.uuid4()).replace('-', '') if '-' not in old
             else str(uuid.uuid4()) for old in entry.get('created', ())}
    for statement, parameters, many in entry['sql']:
        if fresh:
            parameters = _renamed(parameters, fresh, many)
        if many:
            conn.executemany(statement, parameters)
        else:
            conn.execute(statement, parameters).fetchall()
    if entry.get('created'):
        conn.commit()


def _renamed(parameters, fresh: dict, many: bool):
    if many:
        return [_renamed(row, fresh, False) for row in parameters]
    if isinstance(parameters, dict):
        return {key: fresh.get(value, value) if isinstance(value, str)
                else value for key, value in parameters.items()}
    return [fresh.get(value, value) if isinstance(value, str) else value
            for value in parameters]


# -- recording what blazar_ext runs ------------------------------------------

class Recorder:
    """The SQL statements run while recording, from any engine, by the
    recording thread (the request's: the manager's background loops run
    their own)."""

    def __init__(self):
        self.statements = None
        self.thread = threading.get_ident()
        sa.event.listen(sa.engine.Engine, 'before_cursor_execute',
                        self._seen)

    def _seen(self, conn, cursor, statement, parameters, context,
              executemany):
        if self.statements is None or threading.get_ident() != self.thread:
            return
        if executemany:
            parameters = [_plain(row) for row in parameters]
        else:
            parameters = _plain(parameters or ())
        self.statements.append((statement, parameters, executemany))


def _plain(parameters):
    return dict(parameters) if isinstance(parameters, dict) else [
        _json_safe(value) for value in parameters]


def _json_safe(value):
    return str(value) if isinstance(value, (datetime.datetime,
                                            datetime.date)) else value


def _values(parameters, many: bool) -> list:
    rows = parameters if many else [parameters]
    return [value for row in rows for value in (
        row.values() if isinstance(row, dict) else row)]


def created_ids(sql: list) -> list:
    """The ids a write created: id-shaped values of its inserts that no
    earlier read or change named (those are rows it found)."""
    seen, created = set(), []
    for statement, parameters, many in sql:
        ids = {v for v in _values(parameters, many)
               if isinstance(v, str) and UUID.match(v)}
        if statement.lstrip().upper().startswith('INSERT'):
            created.extend(sorted(ids - seen - set(created)))
        seen |= ids
    return created


def record(url: str, requests: list, recorder: Recorder) -> dict:
    """key -> {sql, status, type, document|raw[, created]} for each
    request (the key: its path, or its seed.CREATES key)."""
    plan = {}
    with side_by_side.ext_app(url) as app:
        for _, path, headers in requests:
            for tag in ('warm', 'record'):  # the first warms caches
                recorder.statements = []
                method, url_path, body = http_request(path, 0, tag)
                req = side_by_side.webob.Request.blank(
                    url_path, method=method, headers=headers)
                if body is not None:
                    req.body, req.content_type = body, 'application/json'
                resp = req.get_response(app)
                statements, recorder.statements = recorder.statements, None
            # Transaction control is the floor's own business.
            sql = [(s, p, m) for s, p, m in statements
                   if not s.lstrip().upper().startswith(
                       ('BEGIN', 'COMMIT', 'ROLLBACK', 'SAVEPOINT',
                        'RELEASE'))]
            is_json = resp.content_type == 'application/json'
            plan[path] = {
                'sql': sql, 'status': resp.status_int,
                'type': resp.content_type or 'text/plain',
                'document': resp.json if is_json else None,
                'raw': None if is_json else resp.text,
                'created': created_ids(sql) if method == 'POST' else []}
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


def start_floor(database: str, plan: dict, workdir: str,
                mode: str = '--serve-floor') -> tuple:
    """The floor server (``mode`` --serve-floor: a socket server;
    --serve-floor-wsgi: under blazar_ext's server); (process, port)."""
    port = side_by_side.free_port()
    plan_file = os.path.join(workdir, 'plan-%d.json' % port)
    with open(plan_file, 'w') as f:
        json.dump(plan, f)
    process = subprocess.Popen(
        [sys.executable, os.path.abspath(__file__), mode,
         database, plan_file, str(port)], stdout=subprocess.PIPE)
    process.stdout.readline()
    _wait_listening(port)
    return process, port


def _wait_listening(port: int, timeout: float = 30) -> None:
    """Until ``port`` accepts connections (blazar_ext's server says it is
    ready before it binds)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(('127.0.0.1', port), 1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def timed(conn: http.client.HTTPConnection, path: str, headers: dict,
          n: int = 0, tag: str = 'bench') -> tuple:
    method, url_path, body = http_request(path, n, tag)
    headers = dict(headers, **{'X-Floor-Key': path})
    if body is not None:
        headers['Content-Type'] = 'application/json'
    t = time.perf_counter()
    conn.request(method, url_path, body=body, headers=headers)
    resp = conn.getresponse()
    body = resp.read()
    return time.perf_counter() - t, resp.status, len(body)


def compare(ports: dict, requests: list, reps: int, warm: int = 10,
            block: int = 1) -> list:
    """(label, {side: median ms}, {side: (status, size)}) per request:
    ``reps`` requests to each side of ``ports`` ({side: port}) after
    ``warm``, the sides taking turns of ``block`` requests (1: one
    request each in turn)."""
    conns = {side: http.client.HTTPConnection('127.0.0.1', port)
             for side, port in ports.items()}
    rows = []
    tag = uuid.uuid4().hex[:6]
    for label, path, headers in requests:
        times: dict = {side: [] for side in conns}
        sizes = {}
        for turn in range(0, reps + warm, block):
            for side, conn in conns.items():
                for i in range(turn, min(turn + block, reps + warm)):
                    seconds, status, size = timed(conn, path, headers, i,
                                                  tag)
                    sizes[side] = (status, size)
                    if i >= warm:
                        times[side].append(seconds)
        rows.append((label, {side: statistics.median(t) * 1000
                             for side, t in times.items()}, sizes))
    for conn in conns.values():
        conn.close()
    return rows


def run(name: str, url: str, database: str, requests: list, args,
        recorder: Recorder) -> list:
    aio, api_port = start_all_in_one(url, args.workdir)
    floors = []
    try:
        if any('{lease}' in path for _, path, _ in requests):
            lease = first_lease(url)
            requests = [(label, path.replace('{lease}', lease), headers)
                        for label, path, headers in requests]
        plan = record(url, requests, recorder)
        creates = name.startswith('create')
        # Each create writes: a second floor's writes would pile up on
        # the same file, so creates have no server floor.
        sides = [('floor', '--serve-floor')] + (
            [] if creates else [('server', '--serve-floor-wsgi')])
        ports = {'api': api_port}
        for side, mode in sides:
            process, ports[side] = start_floor(database, plan,
                                               args.workdir, mode)
            floors.append(process)
        if creates:
            return compare(ports, requests, args.create_reps, warm=2,
                           block=args.block)
        return compare(ports, requests, args.reps, block=args.block)
    finally:
        for process in floors:
            side_by_side.stop(process)
        side_by_side.stop(aio)


def print_row(label: str, ms: dict, sizes: dict) -> None:
    """One request's medians: the API, the floor under blazar_ext's
    server (if measured), the floor; api/floor and api/server."""
    server = ms.get('server')
    print('%-32s %8.2f %9s %8.2f %6.2fx %7s  %s%s' % (
        label, ms['api'], '-' if server is None else '%.2f' % server,
        ms['floor'], ms['api'] / ms['floor'],
        '-' if server is None else '%.2fx' % (ms['api'] / server),
        sizes['api'], '' if sizes['api'][0] == sizes['floor'][0]
        else ' != %s' % (sizes['floor'],)), flush=True)


def main() -> int:
    if len(sys.argv) == 5 and sys.argv[1] == '--serve-floor':
        serve_floor(*sys.argv[2:4], int(sys.argv[4]))
        return 0
    if len(sys.argv) == 5 and sys.argv[1] == '--serve-floor-wsgi':
        serve_floor_wsgi(*sys.argv[2:4], int(sys.argv[4]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--hosts', type=int, default=1000)
    parser.add_argument('--reps', type=int, default=200)
    parser.add_argument('--workdir')
    parser.add_argument('--only', default='',
                        help='only the requests whose label contains this')
    parser.add_argument('--create-hosts', default='1000,10000',
                        help='sizes for lease create ("" for none)')
    parser.add_argument('--create-reps', type=int, default=20)
    parser.add_argument('--block', type=int, default=1,
                        help='requests per turn of each side (1: the two '
                        'alternate request by request; more: each side '
                        'runs that many back to back, warm, before the '
                        'other)')
    args = parser.parse_args()
    args.workdir = args.workdir or tempfile.mkdtemp(prefix='floor-')
    os.makedirs(args.workdir, exist_ok=True)
    recorder = Recorder()
    print('workdir %s; %d repetitions each, alternating in turns of %d; '
          'SQLite; blazar-ext-all-in-one against its floor'
          % (args.workdir, args.reps, args.block))
    print('%-32s %8s %9s %8s %7s %7s  %s' % (
        'request', 'api ms', 'server ms', 'floor ms', 'ratio', 'api/srv',
        'status/bytes'))
    creates = [('create-%s' % size, int(size), 10, 0, CREATE)
               for size in args.create_hosts.split(',') if size]
    for name, hosts, per_host, providers, requests in [
            ('small', 10, 1, 0, SMALL),
            ('big', args.hosts, 0, args.hosts, BIG)] + creates:
        requests = [r for r in requests if args.only in r[0]]
        if not requests:
            continue
        database = os.path.join(args.workdir, '%s.sqlite' % name)
        url = 'sqlite:///%s' % database
        if not os.path.exists(database):
            # A file of an earlier run with this --workdir is used again
            # as it is (with the leases that run created).
            seed(url, hosts, per_host, providers)
        for label, ms, sizes in run(name, url, database, requests, args,
                                    recorder):
            if name != 'small':
                label = label.replace('N', str(hosts))
            print_row(label, ms, sizes)
    print('load average %.2f' % os.getloadavg()[0])
    return 0


if __name__ == '__main__':
    sys.exit(main())
