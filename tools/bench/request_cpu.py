#!/usr/bin/env python3
"""CPU per request of one API request, in process, on a database file.

    python tools/bench/request_cpu.py DATABASE [--path PATH] [--requests N]
        [--rounds 5] [--profile | --calls]

Runs blazar_ext's API app and manager in this process on ``DATABASE``
(an SQLite file, e.g. the big.sqlite that tools/bench/floor.py --workdir
leaves), asks ``PATH`` (Placement microversion 1.39, admin) ``--requests``
times per round, reading each body, and prints the CPU time per request
of each round; ``--profile`` prints cProfile's top functions instead,
``--calls`` the Python function calls per request (cProfile's count: the
same on a busy machine as on an idle one, so two trees compare exactly).
To compare two trees, run it alternately with each on PYTHONPATH (e.g.
``git archive COMMIT | tar -x -C DIR``).
"""

import argparse
import cProfile
import io
import os
import pstats
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import side_by_side  # noqa: E402

import blazar_ext  # noqa: E402

HEADERS = {'X-Auth-Token': 'admin',
           'OpenStack-API-Version': 'placement 1.39'}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('database')
    parser.add_argument('--path', default='/placement/allocation_candidates'
                        '?resources=VCPU:1&limit=100')
    parser.add_argument('--requests', type=int, default=200)
    parser.add_argument('--rounds', type=int, default=5)
    parser.add_argument('--profile', action='store_true')
    parser.add_argument('--calls', action='store_true')
    args = parser.parse_args()
    with side_by_side.ext_app('sqlite:///' + args.database) as app:
        def one():
            resp = side_by_side.webob.Request.blank(
                args.path, headers=HEADERS).get_response(app)
            resp.body
            return resp
        for _ in range(30):  # warm caches
            resp = one()
        if resp.status_int != 200:
            raise SystemExit('%s: %s' % (resp.status, resp.text[:500]))
        if args.profile or args.calls:
            profile = cProfile.Profile()
            profile.enable()
            for _ in range(args.requests):
                one()
            profile.disable()
            if args.calls:
                print('%s (%s): function calls per request: %d' % (
                    args.path, os.path.dirname(blazar_ext.__file__),
                    pstats.Stats(profile).total_calls / args.requests))
                return 0
            out = io.StringIO()
            pstats.Stats(profile, stream=out).sort_stats(
                'cumulative').print_stats(60)
            print(out.getvalue())
            return 0
        rounds = []
        for _ in range(args.rounds):
            start = time.process_time()
            for _ in range(args.requests):
                one()
            rounds.append((time.process_time() - start) / args.requests
                          * 1000)
        print('%s (%s): ms CPU per request: %s' % (
            args.path, os.path.dirname(blazar_ext.__file__),
            ' '.join('%.3f' % r for r in rounds)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
