"""What the runners of upstream's own test suites share.

tools/osc_placement_functional/run.py and
tools/glance_metadef_functional/run.py each download an upstream sdist
at run time into a cache outside the repository, run its tests under
stestr against blazar_ext, and compare the outcome with what upstream
itself passes (their upstream-results.yaml): every test upstream passes
must pass.
"""

import argparse
import io
import os
import subprocess
import sys

import subunit
import testtools
import yaml


def default_cache(name: str) -> str:
    """~/.cache/blazar-ext/NAME (or under $XDG_CACHE_HOME)."""
    return os.path.join(
        os.environ.get('XDG_CACHE_HOME', os.path.expanduser('~/.cache')),
        'blazar-ext', name)


def arguments(description: str, cache_variable: str,
              cache_name: str) -> argparse.Namespace:
    """The runners' command line: --cache, --concurrency, -v, regexes."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument('--cache', default=os.environ.get(
        cache_variable, default_cache(cache_name)))
    parser.add_argument('--concurrency', type=int, default=2)
    parser.add_argument('-v', '--verbose', action='store_true',
                        help='print the whole traceback of each failure')
    parser.add_argument('regexes', nargs='*',
                        help='run only the tests these match (stestr)')
    return parser.parse_args()


def download_sdist(cache: str, requirement: str, archive: str) -> str:
    """The sdist ``requirement`` (NAME==VERSION) in ``cache`` as
    ``archive``, downloaded once; its path."""
    os.makedirs(cache, exist_ok=True)
    path = os.path.join(cache, archive)
    if not os.path.exists(path):
        subprocess.run([sys.executable, '-m', 'pip', 'download', '-q',
                        '--no-deps', '--no-binary', ':all:', requirement,
                        '-d', cache], check=True)
    return path


def stestr_statuses(cwd: str, test_path: str, env: dict,
                    concurrency: int, regexes: list) -> dict:
    """{test id: (status, details)} of ``stestr run`` in ``cwd``; the
    tests' own output goes to cwd/stestr.log."""
    with open(os.path.join(cwd, 'stestr.log'), 'wb') as log:
        proc = subprocess.run(
            [sys.executable, '-m', 'stestr', '--test-path', './' + test_path,
             '--top-dir', './', 'run', '--subunit',
             '--concurrency', str(concurrency)] + regexes,
            cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=log)
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


def upstream_results(path: str) -> dict:
    """{test id: (status, reason)} of the tests upstream does not pass."""
    with open(path) as src:
        listed = yaml.safe_load(src) or {}
    return {item['test']: (item['status'], item['reason'])
            for item in listed.get('not_passing_upstream') or []}


def _last_line(details: dict) -> str:
    text = ''
    for name in ('traceback', 'reason'):
        if name in details:
            text = details[name].as_text()
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else ''


def report(title: str, upstream_name: str, statuses: dict,
           upstream: dict, verbose: bool) -> int:
    """Print the counts and every test upstream passes that failed here;
    the exit status (1 for such a failure, or when nothing ran)."""
    counts = {'success': 0, 'fail': 0, 'skip': 0}
    regressions = []
    for test, (status, details) in sorted(statuses.items()):
        status = {'xfail': 'success', 'uxsuccess': 'fail'}.get(status,
                                                               status)
        counts[status] = counts.get(status, 0) + 1
        if status == 'fail' and upstream.get(test, ('success',))[0] \
                == 'success':
            regressions.append((test, details))
    print('%s against blazar_ext:' % title)
    print('  ran %d: %d passed, %d failing, %d skipped' % (
        len(statuses), counts['success'], counts['fail'], counts['skip']))
    print('  %s does not pass %d of them (upstream-results.yaml)'
          % (upstream_name, len(upstream)))
    for test, details in regressions:
        print('FAIL (%s passes it) %s' % (upstream_name, test))
        if verbose and 'traceback' in details:
            print(details['traceback'].as_text())
        else:
            print('      %s' % _last_line(details))
    if not statuses:
        print('no test ran', file=sys.stderr)
        return 1
    return 1 if regressions else 0
