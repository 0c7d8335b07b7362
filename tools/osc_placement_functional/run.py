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

from importlib import metadata
import os
import shutil
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
import upstream_suite  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SHIM = os.path.join(HERE, 'shim')
UPSTREAM = os.path.join(HERE, 'upstream-results.yaml')
TESTS = 'osc_placement/tests/functional'


def source_tree(cache: str, version: str) -> str:
    """osc-placement's sdist for ``version``, downloaded and unpacked
    once; its root directory."""
    target = os.path.join(cache, 'osc_placement-%s' % version)
    if os.path.isdir(os.path.join(target, TESTS)):
        return target
    archive = upstream_suite.download_sdist(
        cache, 'osc-placement==%s' % version,
        'osc_placement-%s.tar.gz' % version)
    staging = target + '.tmp'
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(staging)
    with tarfile.open(archive) as sdist:
        sdist.extractall(staging, filter='data')
    os.rename(os.path.join(staging, 'osc_placement-%s' % version), target)
    shutil.rmtree(staging, ignore_errors=True)
    return target


def run_tests(root: str, concurrency: int, regexes: list) -> dict:
    """{test id: (status, details)} of an stestr run in ``root``, the shim
    first on the path and the sdist's osc_placement before the installed
    one."""
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
    return upstream_suite.stestr_statuses(root, TESTS, env, concurrency,
                                          regexes)


def main() -> int:
    args = upstream_suite.arguments(
        __doc__.split('\n')[0], 'BLAZAR_EXT_OSC_PLACEMENT_CACHE',
        'osc-placement-functional')
    version = metadata.version('osc-placement')
    statuses = run_tests(source_tree(args.cache, version), args.concurrency,
                         args.regexes)
    return upstream_suite.report(
        'osc-placement %s functional tests' % version,
        'upstream Placement 16', statuses,
        upstream_suite.upstream_results(UPSTREAM), args.verbose)


if __name__ == '__main__':
    sys.exit(main())
