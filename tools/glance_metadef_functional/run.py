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

import os
import shutil
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
import upstream_suite  # noqa: E402

GLANCE = '33.0.0'
HERE = os.path.dirname(os.path.abspath(__file__))
SHIM = os.path.join(HERE, 'shim')
UPSTREAM = os.path.join(HERE, 'upstream-results.yaml')
V2 = 'glance/tests/functional/v2'


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
    archive = upstream_suite.download_sdist(
        cache, 'glance==%s' % GLANCE, 'glance-%s.tar.gz' % GLANCE)
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
    return upstream_suite.stestr_statuses(tree, V2, env, concurrency,
                                          regexes)


def main() -> int:
    args = upstream_suite.arguments(
        __doc__.split('\n')[0], 'BLAZAR_EXT_GLANCE_METADEF_CACHE',
        'glance-metadef-functional')
    tree = test_tree(args.cache, downloaded_tests(args.cache))
    try:
        statuses = run_tests(tree, args.concurrency, args.regexes)
    finally:
        shutil.rmtree(tree, ignore_errors=True)
    return upstream_suite.report(
        'Glance %s metadef functional tests' % GLANCE, 'Glance', statuses,
        upstream_suite.upstream_results(UPSTREAM), args.verbose)


if __name__ == '__main__':
    sys.exit(main())
