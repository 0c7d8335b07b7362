#!/usr/bin/env python3
"""Run osc-placement's own functional tests against blazar_ext.

The sdist of the installed osc-placement (same version, so the tests fit
the client they drive) is downloaded from the package index at run time
into a cache directory outside the repository, and its
osc_placement/tests/functional/ runs under stestr, unchanged.

Those tests take their server from Placement's test fixture
(``placement.tests.functional.fixtures.placement.PlacementFixture``, an
in-process wsgi-intercept of Placement on a fresh database). shim/ beside
this file is put first on the path: its ``placement`` package has the two
fixture modules the tests import, serving blazar_ext's placement API
(blazar-ext-placement-api's application) the same way, on a fresh
migrated SQLite database per test. No downloaded file is changed.

upstream-results.yaml lists the tests upstream Placement 16 itself does
not pass (measured with the same osc-placement and openstack-placement
16.0.0); every other test must pass. Exit status: non-zero when a test
fails that upstream passes, or when none ran.

Usage: run.py [--cache DIR] [--concurrency N] [TEST_REGEX ...]
"""

import argparse
from importlib import metadata
import io
import os
import shutil
import subprocess
import sys
import tarfile

import subunit
import testtools
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
SHIM = os.path.join(HERE, 'shim')
UPSTREAM = os.path.join(HERE, 'upstream-results.yaml')
TESTS = 'osc_placement/tests/functional'
DEFAULT_CACHE = os.path.join(
    os.environ.get('XDG_CACHE_HOME', os.path.expanduser('~/.cache')),
    'blazar-ext', 'osc-placement-functional')


def source_tree(cache: str, version: str) -> str:
    """osc-placement's sdist for ``version``, downloaded and unpacked
    once; its root directory."""
    target = os.path.join(cache, 'osc_placement-%s' % version)
    if os.path.isdir(os.path.join(target, TESTS)):
        return target
    os.makedirs(cache, exist_ok=True)
    archive = os.path.join(cache, 'osc_placement-%s.tar.gz' % version)
    if not os.path.exists(archive):
        subprocess.run([sys.executable, '-m', 'pip', 'download', '-q',
                        '--no-deps', '--no-binary', ':all:',
                        'osc-placement==%s' % version, '-d', cache],
                       check=True)
    staging = target + '.tmp'
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(staging)
    with tarfile.open(archive) as sdist:
        sdist.extractall(staging, filter='data')
    os.rename(os.path.join(staging, 'osc_placement-%s' % version), target)
    shutil.rmtree(staging, ignore_errors=True)
    return target


def run_tests(root: str, concurrency: int, regexes: list) -> dict:
    """{test id: status} of an stestr run in ``root``, the shim first on
    the path and the sdist's osc_placement before the installed one."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [SHIM, root] + [p for p in os.environ.get('PYTHONPATH', '').split(
            os.pathsep) if p]))
    # test_plugin runs the openstack command of this environment.
    env['PATH'] = os.pathsep.join([os.path.dirname(sys.executable),
                                   env.get('PATH', '')])
    for name in list(env):
        # The client must not pick up a cloud from the caller's shell.
        if name.startswith('OS_') and not name.startswith('OS_TEST'):
            del env[name]
    # The tests' own log output (DEBUG of every request) goes to a file.
    with open(os.path.join(root, 'stestr.log'), 'wb') as log:
        proc = subprocess.run(
            [sys.executable, '-m', 'stestr', '--test-path', './' + TESTS,
             '--top-dir', './', 'run', '--subunit',
             '--concurrency', str(concurrency)] + regexes,
            cwd=root, env=env, stdout=subprocess.PIPE, stderr=log)
    statuses = {}
    results = testtools.StreamToDict(_collect(statuses))
    case = subunit.ByteStreamToStreamResult(io.BytesIO(proc.stdout),
                                            non_subunit_name='stdout')
    results.startTestRun()
    case.run(results)
    results.stopTestRun()
    return statuses


def _collect(statuses: dict):
    def on_test(test: dict) -> None:
        if test['status'] in ('exists', 'inprogress'):
            return
        statuses[test['id']] = (test['status'], test['details'])
    return on_test


def upstream_results() -> dict:
    """{test id: (status, reason)} of the tests upstream does not pass."""
    with open(UPSTREAM) as src:
        listed = yaml.safe_load(src) or {}
    return {item['test']: (item['status'], item['reason'])
            for item in listed.get('not_passing_upstream') or []}


def _reason(details: dict) -> str:
    text = ''
    for name in ('traceback', 'reason'):
        if name in details:
            text = details[name].as_text()
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else ''


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--cache', default=os.environ.get(
        'BLAZAR_EXT_OSC_PLACEMENT_CACHE', DEFAULT_CACHE))
    parser.add_argument('--concurrency', type=int, default=2)
    parser.add_argument('-v', '--verbose', action='store_true',
                        help='print the whole traceback of each failure')
    parser.add_argument('regexes', nargs='*',
                        help='run only the tests these match (stestr)')
    args = parser.parse_args()
    version = metadata.version('osc-placement')
    root = source_tree(args.cache, version)
    statuses = run_tests(root, args.concurrency, args.regexes)
    upstream = upstream_results()
    counts = {'success': 0, 'fail': 0, 'skip': 0}
    regressions = []
    for test, (status, details) in sorted(statuses.items()):
        status = {'xfail': 'success', 'uxsuccess': 'fail'}.get(status,
                                                               status)
        counts[status] = counts.get(status, 0) + 1
        if status == 'fail' and upstream.get(test, ('success',))[0] \
                == 'success':
            regressions.append((test, details))
    print('osc-placement %s functional tests against blazar_ext:' % version)
    print('  ran %d: %d passed, %d failing, %d skipped' % (
        len(statuses), counts['success'], counts['fail'], counts['skip']))
    print('  upstream Placement 16 does not pass %d of them '
          '(upstream-results.yaml)' % len(upstream))
    for test, details in regressions:
        print('FAIL (upstream passes it) %s' % test)
        if args.verbose and 'traceback' in details:
            print(details['traceback'].as_text())
        else:
            print('      %s' % _reason(details))
    if not statuses:
        print('no test ran', file=sys.stderr)
        return 1
    return 1 if regressions else 0


if __name__ == '__main__':
    sys.exit(main())
