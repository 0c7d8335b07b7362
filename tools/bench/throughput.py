#!/usr/bin/env python3
"""Throughput with workers, with wrk, against upstream in the same run.

    python tools/bench/throughput.py [--seconds 10] [--connections 8,64]
        [--workers 2] [--providers 1000] [--rounds 2] [--workdir DIR]

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
any non-2xx answers, and the ratio.
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


def wrk(url: str, headers: dict, connections: int,
        seconds: float) -> dict:
    """One wrk run: {'rps', 'p50', 'p99' (ms), 'errors'}."""
    argv = ['wrk', '-t', str(min(2, connections)), '-c', str(connections),
            '-d', '%ds' % seconds, '--latency']
    for name, value in headers.items():
        argv += ['-H', '%s: %s' % (name, value)]
    out = subprocess.run(argv + [url], capture_output=True, text=True,
                         check=True).stdout
    errors = re.search(r'Non-2xx or 3xx responses: (\d+)', out)
    return {'rps': float(re.search(r'Requests/sec:\s+([\d.]+)',
                                   out).group(1)),
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


def start_upstream_blazar(workdir: str) -> tuple:
    url = 'sqlite:///%s' % os.path.join(workdir, 'blazar.sqlite')
    side_by_side.upstream('seed', url, '--hosts', 10, '--per-host', 1,
                          '--listed', 10)
    return side_by_side.start_upstream_api(url)


def compare(ours: tuple, theirs: tuple, connections: int,
            seconds: float, rounds: int) -> tuple:
    """Alternating wrk turns; (ours, theirs) totals over the rounds."""
    runs = ([], [])
    for _ in range(rounds):
        for side, (url, headers) in enumerate((ours, theirs)):
            runs[side].append(wrk(url, headers, connections,
                                  seconds / rounds))
    return tuple(
        {'rps': sum(r['rps'] for r in side) / rounds,
         'p50': max(r['p50'] for r in side),
         'p99': max(r['p99'] for r in side),
         'errors': sum(r['errors'] for r in side)} for side in runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--seconds', type=float, default=10)
    parser.add_argument('--connections', default='8,64')
    parser.add_argument('--workers', type=int, default=2)
    parser.add_argument('--providers', type=int, default=1000)
    parser.add_argument('--rounds', type=int, default=2)
    parser.add_argument('--workdir')
    args = parser.parse_args()
    if not shutil.which('wrk'):
        parser.error('wrk is not installed (apt-get install wrk)')
    workdir = args.workdir or tempfile.mkdtemp(prefix='throughput-')
    processes = []
    try:
        ext, ext_base = start_ext(_mkdir(workdir, 'ext'), args.workers,
                                  args.providers)
        processes.append(ext)
        blazar, blazar_base = start_upstream_blazar(
            _mkdir(workdir, 'blazar'))
        processes.append(blazar)
        placement, placement_base = start_upstream_placement(
            _mkdir(workdir, 'placement'), placement_venv(), args.workers,
            args.providers)
        processes.append(placement)
        print('blazar-ext-api --workers %d; upstream Blazar in one '
              'process; Placement under gunicorn --workers %d; %d '
              'providers; load %.1f'
              % (args.workers, args.workers, args.providers,
                 os.getloadavg()[0]), flush=True)
        print('%-44s %5s %10s %10s %7s %9s %9s' % (
            'request', 'conns', 'ours r/s', 'up r/s', 'ratio',
            'ours p99', 'up p99'))
        pairs = (
            ('GET /v1/leases (10, as lister)',
             (ext_base + '/v1/leases', side_by_side.LISTER),
             (blazar_base + '/v1/leases', UPSTREAM_LISTER)),
            ('GET /placement/resource_providers?required=',
             (ext_base + '/placement' + PROVIDERS_PATH, PLACEMENT_HEADERS),
             (placement_base + PROVIDERS_PATH, PLACEMENT_HEADERS)),
        )
        for label, ours, theirs in pairs:
            for connections in [int(c) for c in
                                args.connections.split(',')]:
                mine, up = compare(ours, theirs, connections, args.seconds,
                                   args.rounds)
                print('%-44s %5d %10.0f %10.0f %6.2fx %7.1fms %7.1fms%s'
                      % (label, connections, mine['rps'], up['rps'],
                         mine['rps'] / up['rps'], mine['p99'], up['p99'],
                         _errors(mine, up)), flush=True)
        print('load %.1f at the end' % os.getloadavg()[0])
    finally:
        for process in processes:
            side_by_side.stop(process)
    return 0


def _mkdir(workdir: str, name: str) -> str:
    path = os.path.join(workdir, name)
    os.makedirs(path, exist_ok=True)
    return path


def _errors(mine: dict, up: dict) -> str:
    if not (mine['errors'] or up['errors']):
        return ''
    return '  (non-2xx: ours %d, up %d)' % (mine['errors'], up['errors'])


if __name__ == '__main__':
    sys.exit(main())
