#!/usr/bin/env python3
"""CPU time of small requests, in process, and where it goes.

    python tools/bench/request_cpu.py [--reps 300] [--profile LABEL]

Seeds a SQLite file with 10 hosts (20 capabilities each) and one lease per
host (tools/bench/side_by_side.py's seeding), builds the API application
and the manager in this process, as the all-in-one does, and calls each
request of tools/bench/floor.py's small set through the WSGI stack
(webob.Request.blank, no socket). It prints, per request, the median and
minimum CPU time of this thread (time.thread_time): unlike wall-clock
time it hardly moves when other processes load the machine, so two runs
on a busy machine can be compared. With ``--profile LABEL`` it also runs
that request under cProfile and prints each package's share of the time
spent in its own code (``~`` is C built-ins: the sqlite3 cursor,
isinstance, dict methods...).

Run it with another checkout first on PYTHONPATH to compare two commits.
"""

import argparse
import collections
import cProfile
import datetime
import json
import os
import pstats
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import floor  # noqa: E402
import side_by_side  # noqa: E402


def cpu_times(app, path: str, headers: dict, reps: int) -> list:
    for _ in range(min(50, reps)):  # warm caches and pools
        side_by_side.call(app, 'GET', path, headers)
    times = []
    for _ in range(reps):
        start = time.thread_time()
        side_by_side.call(app, 'GET', path, headers)
        times.append(time.thread_time() - start)
    return times


def package_of(filename: str) -> str:
    """The package a profiled function belongs to."""
    if 'site-packages/' in filename:
        return filename.split('site-packages/')[1].split('/')[0]
    if '/blazar_ext/' in filename:
        return 'blazar_ext/' + filename.split('/blazar_ext/')[1]
    return os.path.basename(filename)


def profile(app, path: str, headers: dict, reps: int) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(reps):
        side_by_side.call(app, 'GET', path, headers)
    profiler.disable()
    shares = collections.Counter()
    for (filename, _line, _name), row in pstats.Stats(
            profiler).stats.items():
        shares[package_of(filename)] += row[2]  # time in its own code
    total = sum(shares.values())
    for name, spent in shares.most_common(15):
        print('  %5.1f%%  %s' % (100 * spent / total, name))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--reps', type=int, default=300)
    parser.add_argument('--profile', metavar='LABEL',
                        help='profile this request (a label printed)')
    args = parser.parse_args()
    base = datetime.datetime(2030, 1, 1)
    url = 'sqlite:///%s' % os.path.join(tempfile.mkdtemp(), 'cpu.sqlite')
    side_by_side.ext_seed_side(url, 10, 1, base)
    with side_by_side.ext_app(url) as app:
        lease = json.loads(side_by_side.call(
            app, 'GET', '/v1/leases', floor.LISTER))['leases'][0]['id']
        print('%-32s %10s %10s' % ('request', 'median ms', 'min ms'))
        chosen = None
        for label, path, headers in floor.SMALL:
            path = path.format(lease=lease)
            times = cpu_times(app, path, headers, args.reps)
            print('%-32s %10.3f %10.3f' % (
                label, 1000 * statistics.median(times), 1000 * min(times)))
            if label == args.profile:
                chosen = (path, headers)
        if args.profile:
            if chosen is None:
                parser.error('no request labelled %r' % args.profile)
            print('\nwhere %r spends its time (cProfile, own time):'
                  % args.profile)
            profile(app, chosen[0], chosen[1], args.reps)
    return 0


if __name__ == '__main__':
    sys.exit(main())
