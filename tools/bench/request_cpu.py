#!/usr/bin/env python3
"""CPU per request of one API request, in process, on a database file.

    python tools/bench/request_cpu.py DATABASE [--path PATH] [--requests N]
        [--rounds 5] [--profile | --calls] [--create create_eq|create_num]

Runs blazar_ext's API app and manager in this process on ``DATABASE``
(an SQLite file, e.g. the big.sqlite that tools/bench/floor.py --workdir
leaves), asks ``PATH`` (Placement microversion 1.39, admin) ``--requests``
times per round, reading each body, and prints the CPU time per request
of each round; ``--profile`` prints cProfile's top functions instead,
``--calls`` the Python function calls per request (cProfile's count: the
same on a busy machine as on an idle one, so two trees compare exactly).
To compare two trees, run it alternately with each on PYTHONPATH (e.g.
``git archive COMMIT | tar -x -C DIR``). ``--create KIND`` (a
tools/bench/seed.py CREATES key) asks POST /v1/leases instead, each a new
lease in a new window (the create-N.sqlite files of tools/bench/floor.py
fit; the file grows by the leases).
"""

import argparse
import cProfile
import datetime
import io
import itertools
import json
import os
import pstats
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seed as bench_seed  # noqa: E402
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
    parser.add_argument('--sort', default='cumulative',
                        help="cProfile's order for --profile (tottime...)")
    parser.add_argument('--calls', action='store_true')
    parser.add_argument('--create', choices=sorted(bench_seed.CREATES),
                        help='POST /v1/leases of this kind instead')
    args = parser.parse_args()
    with side_by_side.ext_app('sqlite:///' + args.database) as app:
        def one():
            return _ask(app, args)
        for _ in range(30 if args.create is None else 5):  # warm caches
            resp = one()
        if resp.status_int not in (200, 201):
            raise SystemExit('%s: %s' % (resp.status, resp.text[:500]))
        if args.profile or args.calls:
            profile = cProfile.Profile()
            profile.enable()
            for _ in range(args.requests):
                one()
            profile.disable()
            if args.calls:
                print('%s (%s): function calls per request: %d' % (
                    args.create or args.path,
                    os.path.dirname(blazar_ext.__file__),
                    pstats.Stats(profile).total_calls / args.requests))
                return 0
            out = io.StringIO()
            pstats.Stats(profile, stream=out).sort_stats(
                args.sort).print_stats(60)
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
            args.create or args.path, os.path.dirname(blazar_ext.__file__),
            ' '.join('%.3f' % r for r in rounds)))
    return 0


_CREATED = itertools.count()
_TAG = uuid.uuid4().hex[:6]
_BASE = datetime.datetime.strptime(side_by_side.BASE, side_by_side.FMT)


def _ask(app, args):
    """One request, its body read: GET ``--path``, or the next create."""
    req = side_by_side.webob.Request.blank(args.path, headers=HEADERS)
    if args.create is not None:
        req = side_by_side.webob.Request.blank(
            '/v1/leases', method='POST', headers=HEADERS)
        req.body = json.dumps(bench_seed.lease_request(
            args.create, next(_CREATED), _BASE, _TAG)).encode()
        req.content_type = 'application/json'
    resp = req.get_response(app)
    resp.body
    return resp


if __name__ == '__main__':
    sys.exit(main())
