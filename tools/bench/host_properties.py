#!/usr/bin/env python3
"""Median time to select hosts with the host property language.

    python tools/bench/host_properties.py [--hosts 10000] [--url URL]

Builds the host tables in a temporary SQLite file (or the database at
--url, which must be empty), inserts --hosts hosts with eight capabilities
each in bulk, then runs each expression through
blazar_ext.db.api.host_properties.HostQuery and one SELECT, and
prints the median time and the number of hosts selected.
"""

import argparse
import os
import statistics
import tempfile
import time
import uuid

import sqlalchemy as sa

from blazar_ext.db.api import host_properties
from blazar_ext.db.models import host as models
from blazar_ext.query import language

EXPRESSIONS = [
    '[">=", "$memory_mb", "65536"]',
    '["==", "$gpu", "true"]',
    '[">", "$nic", "40"]',
    '["<all-in>", "$cpu_features", "aes", "avx512"]',
    '["<in>", "$cpu_model", "Sky"]',
    '["not", ["==", "$gpu", "true"]]',
    '["and", [">=", "$memory_mb", "32768"], ["==", "$gpu", "true"], '
    '["in", "$rack", "r0", "r10", "r20"], ["not", ["==", "$nic", "10"]]]',
]


def populate(engine, hosts: int) -> None:
    models.ComputeHost.metadata.create_all(engine, tables=[
        models.ComputeHost.__table__, models.ExtraCapability.__table__,
        models.ComputeHostExtraCapability.__table__])
    names = ['gpu', 'rack', 'nic', 'cpu_model', 'cpu_features', 'ram_speed',
             'label', 'secret']
    ids = {name: str(uuid.uuid4()) for name in names}
    host_rows, value_rows = [], []
    for i in range(1, hosts + 1):
        host_rows.append({
            'id': i, 'vcpus': 8 * (1 + i % 8), 'cpu_info': '{}',
            'hypervisor_type': 'QEMU', 'hypervisor_version': 1,
            'hypervisor_hostname': 'host-%d' % i,
            'memory_mb': 4096 * (1 + i % 32), 'local_gb': 100,
            'reservable': True, 'disabled': False})
        values = {
            'gpu': 'true' if i % 10 == 0 else 'false',
            'rack': 'r%d' % (i % 50), 'nic': str((10, 25, 40, 100)[i % 4]),
            'cpu_model': ('Haswell', 'Skylake', 'Icelake')[i % 3],
            'cpu_features': ('["aes", "avx", "avx512"]' if i % 3 == 2
                             else 'aes,avx,sse4_2'),
            'ram_speed': str(2133 + i % 4 * 400), 'label': 'host %d' % i,
            'secret': 'x'}
        for name, value in values.items():
            value_rows.append({'id': str(uuid.uuid4()), 'computehost_id': i,
                               'capability_id': ids[name],
                               'capability_value': value,
                               'capability_number':
                                   language.number_of(value)})
    with engine.begin() as connection:
        connection.execute(models.ExtraCapability.__table__.insert(), [
            {'id': ids[name], 'resource_type': 'physical:host',
             'capability_name': name, 'private': name == 'secret'}
            for name in names])
        connection.execute(models.ComputeHost.__table__.insert(), host_rows)
        connection.execute(
            models.ComputeHostExtraCapability.__table__.insert(), value_rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--hosts', type=int, default=10000)
    parser.add_argument('--repeat', type=int, default=15)
    parser.add_argument('--url')
    args = parser.parse_args()
    directory = tempfile.mkdtemp()
    url = args.url or 'sqlite:///%s' % os.path.join(directory, 'bench.db')
    engine = sa.create_engine(url)
    populate(engine, args.hosts)
    print('%d hosts, 8 capabilities each, %s' % (args.hosts,
                                                 engine.dialect.name))
    for expression in EXPRESSIONS:
        timings, count = [], 0
        for _ in range(args.repeat):
            start = time.perf_counter()
            condition = host_properties.HostQuery(
                None, expression).compile()
            with engine.connect() as connection:
                count = len(connection.execute(
                    sa.select(models.ComputeHost.id).where(condition)).all())
            timings.append(time.perf_counter() - start)
        print('%8.1f ms  %6d hosts  %s' % (
            statistics.median(timings) * 1000, count, expression))


if __name__ == '__main__':
    main()
