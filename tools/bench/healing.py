#!/usr/bin/env python3
"""Time to heal one host failure: 100 reservations on the host that
fails, among 10,000 hosts that already hold 100,000 reservations.

    python tools/bench/healing.py [--hosts 10000] [--per-host 10]
        [--affected 100] [--rounds 5]

Runs the manager in process on a fresh migrated SQLite file, as
tools/bench/lease_create.py's large scenario loads it (four capabilities
per host, ten one-day reservations per host in bulk). One more host holds
--affected one-hour leases asking for ``["==", "$gpu", "true"]``, one after
the other. Each round takes that host out of service through the
manager's healer (what PUT /v1/os-hosts/{id} {"reservable": false} runs)
and times it: the host's state change, finding the affected leases, one
replacement query per reservation under the lease row locks, the flags,
the commit and the notifications. Between rounds the allocations are put
back on the host.
"""

import argparse
import datetime
import os
import shutil
import statistics
import sys
import tempfile
import time

from oslo_utils import timeutils
import sqlalchemy as sa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import lease_create  # noqa: E402
import lease_import  # noqa: E402

from blazar_ext import context as blazar_context  # noqa: E402
from blazar_ext.db.api import host_service  # noqa: E402
from blazar_ext.db.models import lease as lease_models  # noqa: E402
from blazar_ext.db import session as db_session  # noqa: E402
from blazar_ext.manager import endpoint as manager_endpoint  # noqa: E402

GPU = '["==", "$gpu", "true"]'


def load_affected(host_id: int, count: int,
                  base: datetime.datetime) -> list:
    """``count`` one-hour GPU leases on ``host_id``; their reservation
    ids."""
    context = blazar_context.get_admin_context()
    start = base + datetime.timedelta(days=1, hours=2)
    lease_import.bulk_import(context, [
        {'name': 'affected-%d' % i, 'project_id': 'bench',
         'host_id': host_id,
         'start_date': start + datetime.timedelta(hours=i),
         'end_date': start + datetime.timedelta(hours=i, minutes=50)}
        for i in range(count)])
    alloc = lease_models.ComputeHostAllocation
    detail = lease_models.ComputeHostReservation
    with db_session.writer.using(context) as session:
        ids = list(session.scalars(sa.select(alloc.reservation_id).where(
            alloc.compute_host_id == host_id)))
        session.execute(sa.update(detail).where(
            detail.reservation_id.in_(ids)).values(resource_properties=GPU))
    return ids


def put_back(host_id: int, reservation_ids: list) -> None:
    """The allocations back on the host, in service again, flags reset."""
    context = blazar_context.get_admin_context()
    host_service.set_reservable(context, host_id, True)
    alloc = lease_models.ComputeHostAllocation
    res = lease_models.Reservation
    with db_session.writer.using(context) as session:
        session.execute(sa.update(alloc).where(
            alloc.reservation_id.in_(reservation_ids)).values(
            compute_host_id=host_id))
        session.execute(sa.update(res).where(res.id.in_(reservation_ids))
                        .values(resources_changed=False,
                                missing_resources=False))


def outcome(reservation_ids: list) -> tuple:
    """(reservations moved, reservations flagged missing) of those."""
    context = blazar_context.get_admin_context()
    res = lease_models.Reservation
    with db_session.reader.using(context) as session:
        rows = list(session.execute(
            sa.select(res.resources_changed, res.missing_resources)
            .where(res.id.in_(reservation_ids))))
    return (sum(1 for changed, _m in rows if changed),
            sum(1 for _c, missing in rows if missing))


def run(hosts: int, per_host: int, affected: int, rounds: int) -> int:
    tmp = tempfile.mkdtemp(prefix='blazar-ext-bench-')
    restore = lease_create.configure(os.path.join(tmp, 'bench.sqlite'))
    try:
        t0 = time.perf_counter()
        host_ids = lease_create.load_hosts(hosts + 1)
        failing = host_ids[-1]
        base = timeutils.utcnow().replace(second=0, microsecond=0)
        existing = lease_create.load_reservations(host_ids[:-1], per_host,
                                                  base)
        reservation_ids = load_affected(failing, affected, base)
        print('loaded %d hosts, %d reservations, %d on host %s in %.1f s'
              % (hosts + 1, existing + affected, len(reservation_ids),
                 failing, time.perf_counter() - t0))
        healer = manager_endpoint.ManagerEndpoint().healer
        context = blazar_context.get_admin_context()
        times = []
        for n in range(rounds):
            if n:
                put_back(failing, reservation_ids)
            t = time.perf_counter()
            healer.set_reservable(context, 'physical:host', failing, False,
                                  reason='bench')
            times.append(time.perf_counter() - t)
            moved, degraded = outcome(reservation_ids)
            print('round %d: %.0f ms, %d reservations moved, %d missing '
                  'resources' % (n + 1, times[-1] * 1000, moved, degraded))
            sys.stdout.flush()
        print('heal one host failure, %d affected reservations among %d '
              'hosts: median %.0f ms (min %.0f, max %.0f, %d rounds)'
              % (affected, hosts + 1, statistics.median(times) * 1000,
                 min(times) * 1000, max(times) * 1000, rounds))
    finally:
        restore()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--hosts', type=int, default=10000)
    parser.add_argument('--per-host', type=int, default=10)
    parser.add_argument('--affected', type=int, default=100)
    parser.add_argument('--rounds', type=int, default=5)
    args = parser.parse_args(argv)
    return run(args.hosts, args.per_host, args.affected, args.rounds)


if __name__ == '__main__':
    sys.exit(main())
