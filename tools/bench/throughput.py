#!/usr/bin/env python3
"""Throughput with workers, with wrk, against upstream in the same run.

    python tools/bench/throughput.py [--seconds 10] [--connections 8,64]
        [--workers 2] [--providers 1000] [--rounds 2] [--workdir DIR]
        [--baseline TREE] [--all-in-one]

Three servers on SQLite files, each started afresh by this script:

* ``blazar-ext-api --workers N`` on a file with 10 hosts and one lease per
  host for project 'lister' (tools/bench/side_by_side.py's seeding) and
  ``--providers`` Placement providers (tools/bench/placement.py's flat
  scenario, a tenth of them with CUSTOM_GPU);
* upstream Blazar 18.0.0's v1 API on the same hosts and leases, in one
  process as its ``blazar-api`` runs (tools/bench/upstream.py serve;
  $BLAZAR_EXT_UPSTREAM_VENV, else .blazar-venv, made by
  tools/blazar/setup-venv.sh);
* upstream Placement 16.0.0 under gunicorn with N sync workers, on the
  same providers ($BLAZAR_EXT_PLACEMENT_VENV, else .placement-venv, made
  by tools/placement/setup-venv.sh; gunicorn is added to it).

For ``GET /v1/leases`` as 'lister' (10 leases) and ``GET
/placement/resource_providers?required=CUSTOM_GPU``, wrk (``apt-get
install wrk``) runs ``--seconds`` per side and connection count, in
``--rounds`` alternating turns (ours, theirs, ours, ...) so both see the
same load; it prints requests per second, the median and p99 latency,
any non-2xx answers, the server's CPU time per request (the process
and its children, from /proc: steadier than req/s on a shared machine)
and the ratio.

``--baseline TREE`` (a source tree of an earlier blazar_ext, e.g. made
by ``git archive main | tar -x -C TREE``) starts a second
``blazar-ext-api --workers N`` with that tree first on PYTHONPATH, on a
copy of the same file, and adds it to the alternation (ours, before,
theirs, ...): a before/after in the same sitting.

``--all-in-one`` also runs ``blazar-ext-all-in-one`` (one process, its
manager inside) on a file with the same 10 hosts and leases, and wrk on
one small request of each family: a lease shown as 'lister' (v1), the
custom traits (Placement) and one metadefs namespace; with
``--baseline``, the earlier tree's all-in-one alternates with it.
"""

import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile

import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import placement as placement_bench  # noqa: E402
import side_by_side  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
PLACEMENT_HEADERS = {'X-Auth-Token': 'admin',
                     'OpenStack-API-Version': 'placement 1.39'}
UPSTREAM_LISTER = {'X-User-Id': 'lister', 'X-Project-Id': 'lister',
                   'X-Roles': 'member,reader', 'X-Auth-Token': 'bench',
                   'Accept': 'application/json',
                   'X-Service-Catalog': '[]'}
PROVIDERS_PATH = '/resource_providers?required=CUSTOM_GPU'


def tree_cpu(pid: int) -> float:
    """CPU seconds (user and system) of process ``pid`` and its children
    so far, from /proc."""
    ticks = os.sysconf('SC_CLK_TCK')
    total = 0.0
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % entry) as f:
                fields = f.read().rsplit(')', 1)[1].split()
        except OSError:
            continue
        # After the name: state, ppid, ... utime and stime are 12th, 13th.
        if int(entry) == pid or int(fields[1]) == pid:
            total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def wrk(url: str, headers: dict, connections: int, seconds: float,
        pid: int) -> dict:
    """One wrk run: {'rps', 'p50', 'p99' (ms), 'errors', 'cpu' (server
    CPU ms per request, process ``pid`` and its children)}."""
    argv = ['wrk', '-t', str(min(2, connections)), '-c', str(connections),
            '-d', '%ds' % seconds, '--latency']
    for name, value in headers.items():
        argv += ['-H', '%s: %s' % (name, value)]
    cpu = tree_cpu(pid)
    out = subprocess.run(argv + [url], capture_output=True, text=True,
                         check=True).stdout
    cpu = tree_cpu(pid) - cpu
    errors = re.search(r'Non-2xx or 3xx responses: (\d+)', out)
    done = int(re.search(r'(\d+) requests in', out).group(1))
    return {'rps': float(re.search(r'Requests/sec:\s+([\d.]+)',
                                   out).group(1)),
            'cpu': 1000.0 * cpu / max(done, 1),
            'p50': _ms(re.search(r'\s50%\s+(\S+)', out).group(1)),
            'p99': _ms(re.search(r'\s99%\s+(\S+)', out).group(1)),
            'errors': int(errors.group(1)) if errors else 0}


def _ms(text: str) -> float:
    value, unit = re.match(r'([\d.]+)(\w+)', text).groups()
    return float(value) * {'us': 0.001, 'ms': 1.0, 's': 1000.0}[unit]


def placement_venv() -> str:
    """Upstream Placement's venv, with gunicorn."""
    venv = placement_bench.placement_venv(None)
    python = os.path.join(venv, 'bin', 'python')
    if subprocess.run([python, '-c', 'import gunicorn'],
                      capture_output=True).returncode:
        subprocess.run([os.path.join(venv, 'bin', 'pip'), 'install', '-q',
                        'gunicorn'], check=True)
    return venv


def start_upstream_placement(workdir: str, venv: str, workers: int,
                             providers: int) -> tuple:
    """Placement's schema and data made by one run of its own server
    (tools/placement/serve.py), then gunicorn: (process, base URL)."""
    url = 'sqlite:///%s' % os.path.join(workdir, 'placement.sqlite')
    first = placement_bench.start_upstream(workdir, url, venv)
    try:
        requests.put(first.base + '/traits/CUSTOM_GPU',
                     headers=PLACEMENT_HEADERS).raise_for_status()
        placement_bench.bulk_load(url, placement_bench.flat_data(
            providers))
    finally:
        first.stop()
    with open(os.path.join(workdir, 'placement.conf'), 'w') as f:
        f.write('[api]\nauth_strategy = noauth2\n'
                '[placement_database]\nconnection = %s\n' % url)
    port = side_by_side.free_port()
    env = dict(os.environ, OS_PLACEMENT_CONFIG_DIR=workdir)
    log = open(os.path.join(workdir, 'gunicorn.log'), 'w')
    process = subprocess.Popen(
        [os.path.join(venv, 'bin', 'gunicorn'), '--workers', str(workers),
         '--bind', '127.0.0.1:%d' % port, 'placement.wsgi.api:application'],
        env=env, stdout=log, stderr=subprocess.STDOUT, cwd=workdir)
    base = 'http://127.0.0.1:%d' % port
    side_by_side.wait_answering(base + '/', process)
    return process, base


def start_ext(workdir: str, workers: int, providers: int) -> tuple:
    """blazar-ext-api --workers on a seeded file: (process, base URL)."""
    url = 'sqlite:///%s' % os.path.join(workdir, 'ext.sqlite')
    side_by_side.ext_seed_side(url, 10, 1, datetime.datetime(2031, 1, 1))
    process, base = side_by_side.start_ext_api(url, workers, workdir)
    requests.put(base + '/placement/traits/CUSTOM_GPU',
                 headers=PLACEMENT_HEADERS).raise_for_status()
    placement_bench.bulk_load(url, placement_bench.flat_data(providers))
    return process, base


def tree_env(tree: str) -> dict:
    """This environment with ``tree``'s blazar_ext imported first."""
    path = os.environ.get('PYTHONPATH')
    return dict(os.environ, PYTHONPATH=os.path.abspath(tree) + (
        os.pathsep + path if path else ''))


def start_baseline(workdir: str, source: str, workers: int,
                   tree: str) -> tuple:
    """blazar-ext-api --workers from ``tree`` on a copy of the file
    ``source``: (process, base URL)."""
    target = os.path.join(workdir, 'ext.sqlite')
    shutil.copyfile(source, target)
    return side_by_side.start_ext_api('sqlite:///%s' % target, workers,
                                      workdir, env=tree_env(tree))


def seed_all_in_one(workdir: str) -> str:
    """A file with the 10 hosts and leases, migrated: its path."""
    path = os.path.join(workdir, 'aio.sqlite')
    side_by_side.ext_seed_side('sqlite:///%s' % path, 10, 1,
                               datetime.datetime(2031, 1, 1))
    return path


def start_all_in_one(workdir: str, source: str,
                     env: dict | None = None) -> tuple:
    """blazar-ext-all-in-one on a copy of the file ``source``: (process,
    base URL)."""
    os.makedirs(workdir, exist_ok=True)
    target = os.path.join(workdir, 'aio.sqlite')
    shutil.copyfile(source, target)
    port = side_by_side.free_port()
    config = os.path.join(workdir, 'aio.conf')
    with open(config, 'w') as f:
        f.write('[DEFAULT]\nstate_path = %s\n[database]\nconnection = '
                'sqlite:///%s\n[api]\nhost = 127.0.0.1\nport = %d\n'
                '[manager]\nevent_interval = 3600\n'
                % (workdir, target, port))
    process = subprocess.Popen(
        [os.path.join(os.path.dirname(sys.executable),
                      'blazar-ext-all-in-one'), '--config-file', config],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = 'http://127.0.0.1:%d' % port
    side_by_side.wait_answering(base + '/', process)
    return process, base


def all_in_one_requests(base: str) -> list:
    """(label, URL, headers) of one small request per family."""
    leases = requests.get(base + '/v1/leases', headers=side_by_side.LISTER)
    leases.raise_for_status()
    lease = leases.json()['leases'][0]['id']
    return [
        ('v1: GET /v1/leases/{id} (lister)',
         base + '/v1/leases/' + lease, side_by_side.LISTER),
        ('placement: GET /placement/traits?name=startswith:CUSTOM',
         base + '/placement/traits?name=startswith:CUSTOM',
         PLACEMENT_HEADERS),
        ('metadefs: GET /v2/metadefs/namespaces?limit=1',
         base + '/v2/metadefs/namespaces?limit=1', {'X-Auth-Token': 'admin'}),
    ]


def start_upstream_blazar(workdir: str) -> tuple:
    url = 'sqlite:///%s' % os.path.join(workdir, 'blazar.sqlite')
    side_by_side.upstream('seed', url, '--hosts', 10, '--per-host', 1,
                          '--listed', 10)
    return side_by_side.start_upstream_api(url)


def compare(sides: list, connections: int, seconds: float,
            rounds: int) -> list:
    """Alternating wrk turns over ``sides`` ((url, headers, server pid)
    each); each side's totals over the rounds."""
    runs = [[] for _ in sides]
    for _ in range(rounds):
        for side, (url, headers, pid) in enumerate(sides):
            runs[side].append(wrk(url, headers, connections,
                                  seconds / rounds, pid))
    return [
        {'rps': sum(r['rps'] for r in side) / rounds,
         'cpu': sum(r['cpu'] for r in side) / rounds,
         'p50': max(r['p50'] for r in side),
         'p99': max(r['p99'] for r in side),
         'errors': sum(r['errors'] for r in side)} for side in runs]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--seconds', type=float, default=10)
    parser.add_argument('--connections', default='8,64')
    parser.add_argument('--workers', type=int, default=2)
    parser.add_argument('--providers', type=int, default=1000)
    parser.add_argument('--rounds', type=int, default=2)
    parser.add_argument('--workdir')
    parser.add_argument('--baseline', metavar='TREE')
    parser.add_argument('--all-in-one', action='store_true')
    args = parser.parse_args()
    if not shutil.which('wrk'):
        parser.error('wrk is not installed (apt-get install wrk)')
    workdir = args.workdir or tempfile.mkdtemp(prefix='throughput-')
    connections = [int(c) for c in args.connections.split(',')]
    processes = []
    try:
        ext, ext_base = start_ext(_mkdir(workdir, 'ext'), args.workers,
                                  args.providers)
        processes.append(ext)
        before_base = None
        if args.baseline:
            before, before_base = start_baseline(
                _mkdir(workdir, 'before'),
                os.path.join(workdir, 'ext', 'ext.sqlite'), args.workers,
                args.baseline)
            processes.append(before)
        blazar, blazar_base = start_upstream_blazar(
            _mkdir(workdir, 'blazar'))
        processes.append(blazar)
        placement, placement_base = start_upstream_placement(
            _mkdir(workdir, 'placement'), placement_venv(), args.workers,
            args.providers)
        processes.append(placement)
        print('blazar-ext-api --workers %d%s; upstream Blazar in one '
              'process; Placement under gunicorn --workers %d; %d '
              'providers; load %.2f %.2f %.2f'
              % ((args.workers, ' (and before: %s)' % args.baseline
                  if args.baseline else '', args.workers, args.providers)
                 + os.getloadavg()), flush=True)
        _header(args.baseline, 'up')
        pairs = (
            ('GET /v1/leases (10, as lister)', '/v1/leases',
             side_by_side.LISTER, blazar_base + '/v1/leases',
             UPSTREAM_LISTER, blazar.pid),
            ('GET /placement/resource_providers?required=',
             '/placement' + PROVIDERS_PATH, PLACEMENT_HEADERS,
             placement_base + PROVIDERS_PATH, PLACEMENT_HEADERS,
             placement.pid),
        )
        for label, path, headers, theirs, their_headers, their_pid in pairs:
            sides = [(ext_base + path, headers, ext.pid)]
            if before_base:
                sides.append((before_base + path, headers, before.pid))
            sides.append((theirs, their_headers, their_pid))
            for conns in connections:
                _row(label, conns, compare(sides, conns, args.seconds,
                                           args.rounds),
                     bool(before_base), True)
        for process in processes:
            side_by_side.stop(process)
        processes = []
        if args.all_in_one:
            _all_in_one(workdir, args, connections)
        print('load %.2f %.2f %.2f at the end' % os.getloadavg())
    finally:
        for process in processes:
            side_by_side.stop(process)
    return 0


def _all_in_one(workdir: str, args, connections: list) -> None:
    """wrk on one small request per family through the all-in-one (and
    the earlier tree's, alternating, with --baseline)."""
    source = seed_all_in_one(_mkdir(workdir, 'aio-seed'))
    processes = []
    try:
        ours, base = start_all_in_one(os.path.join(workdir, 'aio'), source)
        processes.append(ours)
        bases = [base]
        pids = [ours.pid]
        if args.baseline:
            before, before_base = start_all_in_one(
                os.path.join(workdir, 'aio-before'), source,
                tree_env(args.baseline))
            processes.append(before)
            bases.append(before_base)
            pids.append(before.pid)
        print('blazar-ext-all-in-one (one process); load %.2f %.2f %.2f'
              % os.getloadavg(), flush=True)
        _header(args.baseline, None)
        plans = [all_in_one_requests(b) for b in bases]
        for index, (label, _, _) in enumerate(plans[0]):
            sides = [(plan[index][1], plan[index][2], pid)
                     for plan, pid in zip(plans, pids)]
            for conns in connections:
                _row(label, conns, compare(sides, conns, args.seconds,
                                           args.rounds),
                     bool(args.baseline), False)
    finally:
        for process in processes:
            side_by_side.stop(process)


def _header(baseline, other) -> None:
    columns = ['ours r/s'] + (['before r/s'] if baseline else []) + (
        ['up r/s'] if other else [])
    print('%-56s %5s ' % ('request', 'conns')
          + ' '.join('%10s' % c for c in columns)
          + ' ' + ' '.join('%9s' % c.replace('r/s', 'p99')
                           for c in columns)
          + ' ' + ' '.join('%9s' % c.replace('r/s', 'cpu')
                           for c in columns)
          + ('  ours/up' if other else '')
          + ('  ours/before' if baseline else ''))


def _row(label: str, connections: int, results: list, before: bool,
         upstream: bool) -> None:
    """One line: each side's req/s, p99 and server CPU per request
    ([ours, before?, up?]), then ours over upstream and over before (in
    req/s)."""
    ours = results[0]
    line = '%-56s %5d ' % (label, connections)
    line += ' '.join('%10.0f' % r['rps'] for r in results)
    line += ' ' + ' '.join('%7.1fms' % r['p99'] for r in results)
    line += ' ' + ' '.join('%7.2fms' % r['cpu'] for r in results)
    if upstream:
        line += ' %7.2fx' % (ours['rps'] / results[-1]['rps'])
    if before:
        line += ' %11.2fx' % (ours['rps'] / results[1]['rps'])
    errors = [r['errors'] for r in results]
    if any(errors):
        line += '  (non-2xx: %s)' % ', '.join(str(e) for e in errors)
    print(line, flush=True)


def _mkdir(workdir: str, name: str) -> str:
    path = os.path.join(workdir, name)
    os.makedirs(path, exist_ok=True)
    return path


if __name__ == '__main__':
    sys.exit(main())
