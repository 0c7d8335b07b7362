"""GET /v1/os-hosts alone, at several sizes, with an optional profile.

Seeds a database per size as tools/bench/side_by_side.py does (hosts with
20 extra capabilities, no reservations), serves blazar_ext's API in
process and prints the median time of the whole streamed answer, its
size, and with ``--profile`` the functions that took the most time
(cProfile, cumulative) over one more request::

    python tools/bench/host_list.py --sizes 1000,10000,50000 --reps 5
    python tools/bench/host_list.py --sizes 10000 --profile 25
"""

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import side_by_side  # noqa: E402


def measure(url: str, size: int, reps: int, profile: int,
            seeded: bool = False) -> dict:
    if not seeded:
        side_by_side.ext_seed_side(url, size, 0, None)
    with side_by_side.ext_app(url) as app:
        def one():
            return side_by_side.call(app, 'GET', '/v1/os-hosts',
                                     side_by_side.ADMIN)
        body = one()  # warm: imports, statement caches
        times = []
        for _ in range(reps):
            t = time.perf_counter()
            one()
            times.append(time.perf_counter() - t)
        if profile:
            profiler = cProfile.Profile()
            profiler.runcall(one)
            pstats.Stats(profiler).sort_stats('cumulative').print_stats(
                profile)
    return {'hosts': size, 'median_s': statistics.median(times),
            'bytes': len(body)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--sizes', default='1000,10000')
    parser.add_argument('--reps', type=int, default=5)
    parser.add_argument('--database', default=None,
                        help='a server URL without database name '
                             '(default: SQLite files)')
    parser.add_argument('--profile', type=int, default=0, metavar='N',
                        help='print the N costliest functions')
    parser.add_argument('--keep', metavar='DIR', default=None,
                        help='SQLite files hosts-N.sqlite in DIR, seeded '
                             'when absent and reused when there (to '
                             'measure two versions of the code alike)')
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix='blazar-ext-host-list-')
    print('%8s  %10s  %10s' % ('hosts', 'median', 'body'))
    for size in (int(s) for s in args.sizes.split(',') if s):
        seeded = False
        if args.keep:
            path = os.path.join(args.keep, 'hosts-%d.sqlite' % size)
            seeded = os.path.exists(path)
            url = 'sqlite:///%s' % path
        else:
            url = side_by_side.database_url(args.database, 'ext', size, tmp)
        result = measure(url, size, args.reps, args.profile, seeded)
        print('%8d  %10s  %8.1f MB' % (
            size, side_by_side.fmt(result['median_s']),
            result['bytes'] / 1e6), flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
