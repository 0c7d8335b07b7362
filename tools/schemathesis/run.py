#!/usr/bin/env python3
"""Property-based testing of the three API families with schemathesis.

Starts ``blazar-ext-all-in-one`` (API and manager in one process, noauth,
the in-process fake:// transport) on a free port, on a fresh SQLite file
or, with ``--database URL_PREFIX``, on a scratch database created on that
server and dropped afterwards (for instance
``mysql+pymysql://openstack_citest:openstack_citest@127.0.0.1/``). Then,
for each family, it fetches the document the API serves
(``/v1/openapi.json``, ``/placement/openapi.json``,
``/v2/metadefs/openapi.json``) and runs schemathesis against it: every
operation, positive and negative data, the stateful phase on the links
schemathesis infers, as the admin (``X-Auth-Token: admin``). Resources
made before the run (the functional tests' seed) give the path
parameters real ids half of the time (``--seeded``).

Each response must: not be a server error, use a status code and a
content type the document lists, match its schema; and every 4xx must be
in the family's error shape (the document's ``components.schemas.Error``,
checked by hooks.py on top of the 4XX entry). A family whose API serves
no document is a failure (skipped with ``--allow-missing``);
``--document FAMILY=FILE`` tests a local document instead.

Prints, per family and in total: operations covered, test cases
generated, failures. Exit status: non-zero on any failure, on a family
that could not be tested, or when the wall-clock limit cut a run short.

Usage: run.py [--database URL_PREFIX] [--max-examples N] [--time-limit S]
              [--family NAME ...] [--document NAME=FILE ...] [--seed N]
"""

import argparse
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid

import requests
import sqlalchemy as sa

HERE = os.path.dirname(os.path.abspath(__file__))
# name: (document path, API base path, extra headers)
FAMILIES = {
    'v1': ('/v1/openapi.json', '', {}),
    'placement': ('/placement/openapi.json', '/placement',
                  {'OpenStack-API-Version': 'placement latest'}),
    'metadefs': ('/v2/metadefs/openapi.json', '/v2/metadefs', {}),
}
CHECKS = ('not_a_server_error,status_code_conformance,'
          'content_type_conformance,response_schema_conformance,'
          'family_error_shape')
PHASES = 'examples,coverage,fuzzing,stateful'


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def scratch_database(url_prefix: str | None):
    """The database URL to run on: a SQLite file (None), or a database
    created on the server at ``url_prefix`` and dropped afterwards."""
    if not url_prefix:
        yield None
        return
    name = 'schemathesis_%s' % uuid.uuid4().hex[:12]
    engine = sa.create_engine(url_prefix, isolation_level='AUTOCOMMIT',
                              poolclass=sa.pool.NullPool)
    suffix = (' CHARACTER SET utf8mb4' if engine.dialect.name == 'mysql'
              else '')
    with engine.connect() as conn:
        conn.execute(sa.text('CREATE DATABASE %s%s' % (name, suffix)))
    try:
        yield sa.engine.make_url(url_prefix).set(
            database=name).render_as_string(hide_password=False)
    finally:
        with engine.connect() as conn:
            conn.execute(sa.text('DROP DATABASE IF EXISTS %s' % name))
        engine.dispose()


@contextlib.contextmanager
def all_in_one(workdir: str, connection: str | None):
    """blazar-ext-all-in-one on a free port; yields its base URL."""
    port = _free_port()
    conf = os.path.join(workdir, 'blazar-ext.conf')
    lines = ['[DEFAULT]', 'state_path = %s' % workdir,
             'log_file = %s' % os.path.join(workdir, 'server.log'),
             '[api]', 'host = 127.0.0.1', 'port = %d' % port,
             'auth_strategy = noauth',
             '[manager]', 'event_interval = 3600']
    if connection:
        lines += ['[database]', 'connection = %s' % connection]
    with open(conf, 'w') as out:
        out.write('\n'.join(lines) + '\n')
    proc = subprocess.Popen(
        [sys.executable, '-m', 'blazar_ext.cmd.all_in_one',
         '--config-file', conf],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL)
    base = 'http://127.0.0.1:%d' % port
    try:
        _wait_answering(proc, base, workdir)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _wait_answering(proc, base: str, workdir: str) -> None:
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        with contextlib.suppress(requests.RequestException):
            requests.get(base + '/', timeout=5)
            return
        time.sleep(0.3)
    raise SystemExit('blazar-ext-all-in-one did not start; see %s'
                     % os.path.join(workdir, 'server.log'))


class _Answer:
    """What api_routes.seed reads of a response."""

    def __init__(self, response: requests.Response):
        self.status = response.status_code
        self.body = response.content
        self.text = response.text
        self.json = response.json


def seed(base: str, workdir: str, probability: float) -> str | None:
    """Resources in every family (the functional tests' seed), and a
    schemathesis configuration that draws each path parameter from their
    ids with ``probability`` (random values otherwise), so operations on
    one resource get past their 404; None without a seed."""
    if probability <= 0:
        return None
    from blazar_ext.tests.functional import api_routes

    def request(method, path, body=None, headers=None, **_):
        return _Answer(requests.request(
            method, base + path, json=body, timeout=120,
            headers=dict({'X-Auth-Token': 'admin'}, **(headers or {}))))

    ids = api_routes.seed(request)
    # /v1/os-hosts/properties is its own operation (the collection's), not
    # /v1/{resource_type}/properties: schemathesis would check its answer
    # against the templated operation's schema.
    ids['resource_type'] = [value for value in ids['resource_type']
                            if ':' in value]
    lines = []
    for name, values in sorted(ids.items()):
        lines += ['[dictionaries.%s]' % name,
                  'values = %s' % json.dumps([str(v) for v in values])]
    lines.append('[parameters]')
    lines += ['"path.%s" = { dictionary = "%s", probability = %s }'
              % (name, name, probability) for name in sorted(ids)]
    config = os.path.join(workdir, 'schemathesis.toml')
    with open(config, 'w') as out:
        out.write('\n'.join(lines) + '\n')
    return config


def _document(base: str, family: str, local: dict) -> tuple:
    """(location, document): a local file given for the family, else the
    served document, else (None, None)."""
    if family in local:
        with open(local[family]) as source:
            return local[family], json.load(source)
    path = FAMILIES[family][0]
    with contextlib.suppress(requests.RequestException, ValueError):
        response = requests.get(base + path, timeout=30)
        if response.status_code == 200 and 'paths' in response.json():
            return base + path, response.json()
    return None, None


def _operations(document: dict) -> set:
    return {'%s %s' % (method.upper(), path)
            for path, item in document['paths'].items()
            for method in item
            if method in ('get', 'put', 'post', 'delete', 'patch', 'head')}


def _command(args, family: str, location: str, base: str,
             report: str, seconds: int) -> list:
    _, base_path, headers = FAMILIES[family]
    command = [sys.executable, '-m', 'schemathesis.cli']
    if args.config:
        command += ['--config-file', args.config]
    command += ['run', location,
                '--url', base + base_path,
                '--header', 'X-Auth-Token: admin',
                '--mode', 'all', '--phases', args.phases,
                '--checks', args.checks,
                '--max-examples', str(args.max_examples),
                '--max-time', str(max(seconds, 1)),
                '--workers', str(args.workers),
                '--request-timeout', '30',
                '--generation-with-security-parameters', 'false',
                '--generation-database', 'none',
                '--suppress-health-check', 'all',
                '--report', 'ndjson', '--report-ndjson-path', report,
                '--no-color']
    for name, value in headers.items():
        command += ['--header', '%s: %s' % (name, value)]
    if args.seed is not None:
        command += ['--seed', str(args.seed)]
    return command


def _counts(report: str) -> dict:
    """Operations covered, cases generated and failures, from the run's
    ndjson events."""
    counts = {'operations': set(), 'cases': 0, 'failures': set(),
              'errors': 0}
    if not os.path.exists(report):
        return counts
    with open(report) as events:
        for line in events:
            with contextlib.suppress(ValueError):
                _count_event(json.loads(line), counts)
    return counts


def _count_event(event: dict, counts: dict) -> None:
    kind = next(iter(event), None)
    data = event.get(kind)
    if kind == 'NonFatalError':
        counts['errors'] += 1
    if kind != 'ScenarioFinished' or not isinstance(data, dict):
        return
    recorder = data.get('recorder') or {}
    cases = recorder.get('cases') or {}
    counts['cases'] += len(cases)
    for case in cases.values():
        value = case.get('value') or {}
        counts['operations'].add('%s %s' % (value.get('method'),
                                            value.get('path')))
    for case_id, checks in (recorder.get('checks') or {}).items():
        value = (cases.get(case_id) or {}).get('value') or {}
        for check in checks:
            if check.get('status') == 'failure':
                counts['failures'].add((
                    '%s %s' % (value.get('method'), value.get('path')),
                    check.get('name'), _failure_title(check)))


def _failure_title(check: dict) -> str:
    info = check.get('failure_info') or {}
    failure = info.get('failure') or {}
    return str(failure.get('title') or failure.get('message') or '')[:200]


def run_family(args, family: str, location: str, base: str,
               workdir: str, seconds: int) -> tuple:
    """(exit status, counts) of schemathesis on one family; counts'
    operations are all the cases' (method, path), unsupported methods
    tried on a path included."""
    report = os.path.join(workdir, family + '-events.ndjson')
    env = dict(os.environ,
               SCHEMATHESIS_HOOKS='blazar_ext_st_hooks',
               PYTHONPATH=os.pathsep.join(
                   [HERE] + os.environ.get('PYTHONPATH', '').split(
                       os.pathsep)).rstrip(os.pathsep))
    log = os.path.join(workdir, family + '.log')
    with open(log, 'w') as out:
        try:
            status = subprocess.run(
                _command(args, family, location, base, report, seconds),
                stdout=out, stderr=subprocess.STDOUT, env=env, cwd=workdir,
                timeout=seconds + 120).returncode
        except subprocess.TimeoutExpired:
            status = 'timeout'
    if status != 0 or args.verbose:
        # schemathesis' own report ends in a pytest-style line ("N warnings
        # in Ns") that log readers take for a test run of its own; it is
        # echoed only when it explains a failure, or when asked for.
        with open(log) as out:
            sys.stdout.write(out.read())
    return status, _counts(report)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--database', metavar='URL_PREFIX',
                        help='run on a scratch database on this server')
    parser.add_argument('--max-examples', type=int, default=25,
                        help='test cases per operation and phase')
    parser.add_argument('--time-limit', type=int, default=600,
                        help='wall-clock seconds for all families')
    parser.add_argument('--workers', default='1')
    parser.add_argument('--phases', default=PHASES)
    parser.add_argument('--checks', default=CHECKS,
                        help='schemathesis checks (default: %(default)s)')
    parser.add_argument('--seed', type=int)
    parser.add_argument('--seeded', type=float, default=0.5,
                        metavar='PROBABILITY',
                        help='how often a path parameter is the id of a '
                             'resource made before the run (0: make none)')
    parser.add_argument('--family', action='append', choices=FAMILIES,
                        help='only these families (default: all)')
    parser.add_argument('--document', action='append', default=[],
                        metavar='FAMILY=FILE',
                        help='test this document instead of the one '
                             'the API serves for the family')
    parser.add_argument('--allow-missing', action='store_true',
                        help='a family serving no document is skipped, '
                             'not a failure')
    parser.add_argument('--verbose', action='store_true',
                        help="echo schemathesis' own report of each family "
                             '(always echoed when it fails)')
    parser.add_argument('--keep', action='store_true',
                        help='keep the work directory (logs, reports)')
    args = parser.parse_args(argv)
    local = {family: os.path.abspath(path) for family, path in (
        item.split('=', 1) for item in args.document)}
    families = args.family or list(FAMILIES)
    workdir = tempfile.mkdtemp(prefix='blazar-ext-schemathesis-')
    deadline = time.monotonic() + args.time_limit
    results = {}
    try:
        with scratch_database(args.database) as connection, \
                all_in_one(workdir, connection) as base:
            args.config = seed(base, workdir, args.seeded)
            for index, family in enumerate(families):
                location, document = _document(base, family, local)
                if location is None:
                    results[family] = ('no document', None)
                    continue
                left = deadline - time.monotonic()
                share = int(left / (len(families) - index))
                print('== %s: %s (%ds)' % (family, location, share),
                      flush=True)
                status, counts = run_family(args, family, location, base,
                                            workdir, share)
                counts['documented'] = _operations(document)
                results[family] = status, counts
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    return summary(results, args, workdir)


def summary(results: dict, args, workdir: str) -> int:
    """Print the figures; the exit status of the whole run."""
    print('\n== schemathesis: %s, --max-examples %d, --time-limit %ds'
          % (('database ' + str(sa.engine.make_url(args.database))
              if args.database else 'SQLite'),
             args.max_examples, args.time_limit))
    total = {'operations': 0, 'documented': 0, 'cases': 0, 'failures': 0}
    failed = False
    for family, (status, counts) in results.items():
        if counts is None:
            print('%-10s skipped: the API serves no document' % family)
            failed = failed or not args.allow_missing
            continue
        documented = counts['documented']
        operations = len(counts['operations'] & documented)
        failures = len(counts['failures'])
        total['operations'] += operations
        total['documented'] += len(documented)
        total['cases'] += counts['cases']
        total['failures'] += failures
        note = '' if status == 0 else ' (schemathesis exit %s)' % status
        print('%-10s operations covered %3d/%-3d, test cases %6d, '
              'failures %d%s' % (family, operations, len(documented),
                                 counts['cases'], failures, note))
        for label, check, title in sorted(counts['failures']):
            print('    FAIL %s: %s: %s' % (label, check, title))
        failed = failed or status != 0 or failures > 0
    print('%-10s operations covered %3d/%-3d, test cases %6d, failures %d'
          % ('total', total['operations'], total['documented'],
             total['cases'], total['failures']))
    if args.keep:
        print('logs and reports: %s' % workdir)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
