#!/usr/bin/env python3
"""Run Glance's own metadef functional tests against blazar_ext.

Glance's sdist (GLANCE below: the release whose metadefs API blazar_ext
follows) is downloaded from the package index at run time into a cache
directory outside the repository. Its metadef test modules,
glance/tests/functional/v2/test_metadef_*.py and metadef_base.py, are
copied unchanged into a tree beside shim/'s stand-ins for the three
Glance modules they import:

* ``glance.tests.functional``: SynchronousAPIBase, which in Glance builds
  its WSGI pipeline in process and calls it with webob requests; here the
  same methods call blazar_ext's application on a fresh SQLite database
  per test (see shim/glance/tests/functional/__init__.py for what
  differs);
* ``glance.api.policy``: ``Enforcer()`` is blazar_ext's enforcer, whose
  metadefs rules carry Glance's names, so the policy tests' rule changes
  act on blazar_ext.

stestr runs them. upstream-results.yaml lists the tests Glance itself does
not pass; every other one must pass. Exit status: non-zero when a test
fails that Glance passes, or when none ran.

Usage: run.py [--cache DIR] [--concurrency N] [-v] [TEST_REGEX ...]
"""

import argparse
import io
import os
import shutil
import subprocess
import sys
import tarfile

import subunit
import testtools
import yaml

GLANCE = '33.0.0'
HERE = os.path.dirname(os.path.abspath(__file__))
SHIM = os.path.join(HERE, 'shim')
UPSTREAM = os.path.join(HERE, 'upstream-results.yaml')
V2 = 'glance/tests/functional/v2'
DEFAULT_CACHE = os.path.join(
    os.environ.get('XDG_CACHE_HOME', os.path.expanduser('~/.cache')),
    'blazar-ext', 'glance-metadef-functional')


def _test_files(names: list) -> list:
    return [name for name in names
            if name == 'metadef_base.py' or (
                name.startswith('test_metadef_') and name.endswith('.py'))]


def downloaded_tests(cache: str) -> str:
    """The directory of Glance's v2 metadef test files, downloaded and
    unpacked once."""
    target = os.path.join(cache, 'glance-%s-metadef-tests' % GLANCE)
    if os.path.isdir(target) and os.listdir(target):
        return target
    os.makedirs(cache, exist_ok=True)
    archive = os.path.join(cache, 'glance-%s.tar.gz' % GLANCE)
    if not os.path.exists(archive):
        subprocess.run([sys.executable, '-m', 'pip', 'download', '-q',
                        '--no-deps', '--no-binary', ':all:',
                        'glance==%s' % GLANCE, '-d', cache], check=True)
    staging = target + '.tmp'
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(staging)
    prefix = 'glance-%s/%s/' % (GLANCE, V2)
    with tarfile.open(archive) as sdist:
        for member in sdist.getmembers():
            name = member.name[len(prefix):]
            if member.name.startswith(prefix) and _test_files([name]):
                with open(os.path.join(staging, name), 'wb') as out:
                    out.write(sdist.extractfile(member).read())
    os.rename(staging, target)
    return target


def test_tree(cache: str, tests: str) -> str:
    """A fresh tree: shim/'s glance package with the downloaded test
    files, unchanged, in its glance/tests/functional/v2."""
    tree = os.path.join(cache, 'tree-%d' % os.getpid())
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(SHIM, tree)
    for name in _test_files(os.listdir(tests)):
        shutil.copy(os.path.join(tests, name), os.path.join(tree, V2))
    return tree


def run_tests(tree: str, concurrency: int, regexes: list) -> dict:
    """{test id: (status, details)} of an stestr run in ``tree``."""
    env = {name: value for name, value in os.environ.items()
           if not name.startswith('OS_') or name.startswith('OS_TEST')}
    with open(os.path.join(tree, 'stestr.log'), 'wb') as log:
        proc = subprocess.run(
            [sys.executable, '-m', 'stestr', '--test-path', './' + V2,
             '--top-dir', './', 'run', '--subunit',
             '--concurrency', str(concurrency)] + regexes,
            cwd=tree, env=env, stdout=subprocess.PIPE, stderr=log)
    statuses = {}

    def on_test(test: dict) -> None:
        if test['status'] not in ('exists', 'inprogress'):
            statuses[test['id']] = (test['status'], test['details'])
    results = testtools.StreamToDict(on_test)
    stream = subunit.ByteStreamToStreamResult(io.BytesIO(proc.stdout),
                                              non_subunit_name='stdout')
    results.startTestRun()
    stream.run(results)
    results.stopTestRun()
    return statuses


def upstream_results() -> dict:
    """{test id: (status, reason)} of the tests Glance does not pass."""
    with open(UPSTREAM) as src:
        listed = yaml.safe_load(src) or {}
    return {item['test']: (item['status'], item['reason'])
            for item in listed.get('not_passing_upstream') or []}


def _last_line(details: dict) -> str:
    text = details['traceback'].as_text() if 'traceback' in details else ''
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else ''


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--cache', default=os.environ.get(
        'BLAZAR_EXT_GLANCE_METADEF_CACHE', DEFAULT_CACHE))
    parser.add_argument('--concurrency', type=int, default=2)
    parser.add_argument('-v', '--verbose', action='store_true',
                        help='print the whole traceback of each failure')
    parser.add_argument('regexes', nargs='*',
                        help='run only the tests these match (stestr)')
    args = parser.parse_args()
    tree = test_tree(args.cache, downloaded_tests(args.cache))
    try:
        statuses = run_tests(tree, args.concurrency, args.regexes)
    finally:
        shutil.rmtree(tree, ignore_errors=True)
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
    print('Glance %s metadef functional tests against blazar_ext:' % GLANCE)
    print('  ran %d: %d passed, %d failing, %d skipped' % (
        len(statuses), counts['success'], counts['fail'], counts['skip']))
    print('  Glance itself does not pass %d of them '
          '(upstream-results.yaml)' % len(upstream))
    for test, details in regressions:
        print('FAIL (Glance passes it) %s' % test)
        if args.verbose and 'traceback' in details:
            print(details['traceback'].as_text())
        else:
            print('      %s' % _last_line(details))
    if not statuses:
        print('no test ran', file=sys.stderr)
        return 1
    return 1 if regressions else 0


if __name__ == '__main__':
    sys.exit(main())
