#!/usr/bin/env python3
"""How long blazar-ext-manage import-blazar takes on a large Blazar 18.

Builds an upstream Blazar 18 database with upstream's own migrations
(tools/blazar/setup-venv.sh; BLAZAR_EXT_UPSTREAM_VENV or .blazar-venv) on
MariaDB, fills it with plain SQL (HOSTS hosts x CAPS capabilities,
RESERVATIONS physical:host leases of one reservation, one allocation and
three events each), migrates an empty blazar_ext database, then times the
real command, end to end (process start included), and prints its wall
and CPU time and peak memory; --repeat runs it again on a fresh target.

    python tools/bench/import_blazar.py [--hosts 10000] [--caps 20]
        [--reservations 100000]
        [--source-url mysql+pymysql://root@127.0.0.1/blazar_bench_src]
        [--target-url sqlite:////tmp/blazar_bench_target.sqlite]
        [--reuse-source] [--repeat 1]

The target may be SQLite, MySQL/MariaDB or PostgreSQL (a database the URL's
user may drop and create, e.g. postgresql://root:secret@127.0.0.1/bench).
On a machine shared with other work, compare runs made side by side (for
an older tree: PYTHONPATH=/path/to/old/tree python tools/bench/...); the
CPU time is the command's own, the databases' not included.
"""

import argparse
import datetime
import os
import subprocess
import sys
import tempfile
import time
import uuid

import sqlalchemy as sa

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
BIN = os.path.dirname(sys.executable)
BATCH = 5000


def _venv() -> str:
    return os.environ.get('BLAZAR_EXT_UPSTREAM_VENV') or os.path.join(
        REPO, '.blazar-venv')


def _config(url: str) -> str:
    handle, path = tempfile.mkstemp(suffix='.conf')
    with os.fdopen(handle, 'w') as f:
        f.write('[database]\nconnection = %s\n' % url)
    return path


def _recreate_database(url: str) -> None:
    parsed = sa.make_url(url)
    server_db = 'postgres' if parsed.get_backend_name() == 'postgresql' else ''
    server = sa.create_engine(parsed.set(database=server_db),
                              isolation_level='AUTOCOMMIT')
    with server.connect() as conn:
        conn.execute(sa.text('DROP DATABASE IF EXISTS %s' % parsed.database))
        conn.execute(sa.text('CREATE DATABASE %s' % parsed.database))
    server.dispose()


def build_source(url: str, hosts: int, caps: int, reservations: int) -> None:
    _recreate_database(url)
    subprocess.run([os.path.join(_venv(), 'bin', 'blazar-db-manage'),
                    '--config-file', _config(url), 'upgrade', 'head'],
                   check=True, capture_output=True)
    engine = sa.create_engine(url)
    now = datetime.datetime.utcnow().replace(microsecond=0)
    host_ids = [str(uuid.uuid4()) for _ in range(hosts)]
    rows = {
        'computehosts': [{
            'id': host_id, 'hypervisor_hostname': 'compute-%05d' % i,
            'service_name': 'compute-%05d' % i, 'vcpus': 64,
            'cpu_info': '{}', 'hypervisor_type': 'QEMU',
            'hypervisor_version': 1, 'memory_mb': 262144, 'local_gb': 2000,
            'availability_zone': 'nova', 'trust_id': 't', 'reservable': 1}
            for i, host_id in enumerate(host_ids)],
        'resource_properties': [{
            'id': 'p%d' % c, 'resource_type': 'physical:host',
            'property_name': 'cap%02d' % c, 'private': int(c % 5 == 0)}
            for c in range(caps)],
        'computehost_extra_capabilities': [{
            'id': '%s-%d' % (host_id[:30], c), 'computehost_id': host_id,
            'property_id': 'p%d' % c, 'capability_value': str((i + c) % 97)}
            for i, host_id in enumerate(host_ids) for c in range(caps)],
        'leases': [], 'reservations': [], 'computehost_reservations': [],
        'computehost_allocations': [], 'events': []}
    for n in range(reservations):
        lease_id, res_id = str(uuid.uuid4()), str(uuid.uuid4())
        start = now + datetime.timedelta(hours=1 + n % 500)
        end = start + datetime.timedelta(hours=1)
        rows['leases'].append({
            'id': lease_id, 'name': 'lease-%d' % n, 'user_id': 'u',
            'project_id': 'p', 'start_date': start, 'end_date': end,
            'status': 'PENDING', 'degraded': 0})
        rows['reservations'].append({
            'id': res_id, 'lease_id': lease_id,
            'resource_id': 'd' + res_id[1:],
            'resource_type': 'physical:host', 'status': 'pending',
            'missing_resources': 0, 'resources_changed': 0})
        rows['computehost_reservations'].append({
            'id': 'd' + res_id[1:], 'reservation_id': res_id,
            'count_range': '1-1', 'before_end': 'default',
            'hypervisor_properties': '',
            'resource_properties': '[">=", "$cap%02d", "%d"]' % (
                n % caps, n % 7)})
        rows['computehost_allocations'].append({
            'id': 'a' + res_id[1:], 'compute_host_id': host_ids[n % hosts],
            'reservation_id': res_id})
        for kind, when in (('start_lease', start),
                           ('before_end_lease', end),
                           ('end_lease', end)):
            rows['events'].append({
                'id': str(uuid.uuid4()), 'lease_id': lease_id,
                'event_type': kind, 'time': when, 'status': 'UNDONE'})
    with engine.begin() as conn:
        for table, values in rows.items():
            statement = sa.text('INSERT INTO %s (%s) VALUES (%s)' % (
                table, ', '.join(values[0]),
                ', '.join(':' + k for k in values[0]))) if values else None
            for start in range(0, len(values), BATCH):
                conn.execute(statement, values[start:start + BATCH])
    engine.dispose()


def build_target(url: str) -> None:
    if url.startswith('sqlite:///'):
        path = url[len('sqlite:///'):]
        if os.path.exists(path):
            os.unlink(path)
    else:
        _recreate_database(url)
    subprocess.run([os.path.join(BIN, 'blazar-ext-db-manage'),
                    '--config-file', _config(url), 'upgrade'],
                   check=True, capture_output=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--hosts', type=int, default=10000)
    parser.add_argument('--caps', type=int, default=20)
    parser.add_argument('--reservations', type=int, default=100000)
    parser.add_argument(
        '--source-url',
        default='mysql+pymysql://root@127.0.0.1/blazar_bench_src')
    parser.add_argument(
        '--target-url',
        default='sqlite:///%s' % os.path.join(tempfile.gettempdir(),
                                              'blazar_bench_target.sqlite'))
    parser.add_argument('--reuse-source', action='store_true',
                        help='Import the source a previous run built.')
    parser.add_argument('--repeat', type=int, default=1,
                        help='Import this many times, each into a fresh '
                             'target.')
    args = parser.parse_args()
    if not args.reuse_source:
        print('Building the source: %d hosts x %d capabilities, %d '
              'reservations ...' % (args.hosts, args.caps,
                                    args.reservations))
        build_source(args.source_url, args.hosts, args.caps,
                     args.reservations)
    command = [os.path.join(BIN, 'blazar-ext-manage'), '--config-file',
               _config(args.target_url), 'import-blazar',
               '--source-connection', args.source_url]
    for run in range(args.repeat):
        build_target(args.target_url)
        code = _timed(command, args.target_url, quiet=run > 0)
        if code:
            return code
    return 0


def _timed(command: list, target_url: str, quiet: bool) -> int:
    with tempfile.TemporaryFile('w+') as out, \
            tempfile.TemporaryFile('w+') as err:
        began = time.monotonic()
        proc = subprocess.Popen(command, stdout=out, stderr=err)
        # wait4 rather than wait: this child's own CPU time and peak memory.
        _pid, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.monotonic() - began
        code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if not quiet or code:
        print('\n'.join(line for line in stdout.splitlines()
                        if not line.startswith('    ')))
    if code:
        print(stderr[-3000:], file=sys.stderr)
        return code
    # On a shared machine the wall time counts other processes' turns;
    # the CPU time is the command's own (the databases' not included).
    print('import-blazar: %.1f s wall, %.1f s CPU (%.1f user, %.1f sys), '
          '%d MiB peak (target %s)' % (
              elapsed, usage.ru_utime + usage.ru_stime, usage.ru_utime,
              usage.ru_stime, usage.ru_maxrss // 1024,
              sa.make_url(target_url).get_backend_name()), flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
