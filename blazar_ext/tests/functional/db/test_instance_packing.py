"""Packing virtual:instance reservations reads few hosts and packs as if
it had read them all.

db/api/instance.roomiest ranks the hosts without load by their whole
capacity and reads the load of only those loaded hosts whose capacity
could rank among the first ``amount``. These tests fill a database with
hosts of mixed capacities and overlapping instance allocations, and check
for many random requests that packing the hosts roomiest returns gives
what packing every host (host_room over all of them) gives, on SQLite and,
where they answer, MariaDB/MySQL and PostgreSQL.
"""

import datetime
import random

import sqlalchemy as sa

from blazar_ext import context as blazar_context
from blazar_ext.db.api import instance as instance_api
from blazar_ext.db.models import host as host_models
from blazar_ext.db.models import instance as models
from blazar_ext.db.models import lease as lease_models
from blazar_ext.db.models import placement as placement_models
from blazar_ext.db import session as db_session
from blazar_ext.plugins import virtual_instance
from blazar_ext.tests import base
from blazar_ext.tests.functional import backends

BASE = datetime.datetime(2030, 1, 1)
SIZES = ('vcpus', 'memory_mb', 'disk_gb')


def _hours(n: float) -> datetime.datetime:
    return BASE + datetime.timedelta(hours=n)


class _Packing:

    HOSTS = 40

    def setUp(self):
        super().setUp()
        self.rng = random.Random(15)
        self.context = blazar_context.get_admin_context()

    def _insert(self, capacities: dict, allocations: list = (),
                held: list = ()) -> list:
        """Hosts {id: (vcpus, memory_mb, disk_gb) capacity}; instance
        allocations (host, slots, (vcpus, memory_mb, disk_gb), start hour,
        end hour); hosts held whole by a physical:host reservation over
        the first twelve hours. Returns the host ids."""
        ids = sorted(capacities)
        with db_session.writer.using(self.context) as session:
            session.execute(sa.insert(placement_models.ResourceProvider), [
                {'id': i, 'uuid': 'rp-%s' % host_id, 'name': host_id,
                 'generation': 1, 'root_provider_id': i}
                for i, host_id in enumerate(ids, 1)])
            session.execute(sa.insert(host_models.ComputeHost), [
                {'id': host_id, 'vcpus': 1, 'cpu_info': '',
                 'hypervisor_type': 'QEMU', 'hypervisor_version': 1,
                 'hypervisor_hostname': host_id, 'memory_mb': 1,
                 'local_gb': 1, 'resource_provider_id': i}
                for i, host_id in enumerate(ids, 1)])
            session.execute(sa.insert(models.InstanceCapacity), [
                dict(zip(('resource_provider_id',) + SIZES,
                         (i,) + tuple(capacities[host_id])))
                for i, host_id in enumerate(ids, 1)])
            session.execute(sa.insert(lease_models.Lease), [{
                'id': 'lease', 'name': 'existing', 'project_id': 'p',
                'status': 'PENDING', 'degraded': False,
                'start_date': BASE, 'end_date': _hours(48)}])
            reservations = [{
                'id': 'r%d' % n, 'lease_id': 'lease',
                'resource_type': 'virtual:instance', 'status': 'pending',
                'missing_resources': False, 'resources_changed': False}
                for n in range(len(allocations) + 1)]
            session.execute(sa.insert(lease_models.Reservation),
                            reservations)
            if allocations:
                session.execute(sa.insert(models.InstanceAllocation), [
                    dict(zip(SIZES, size), id='a%d' % n,
                         reservation_id='r%d' % n, compute_host_id=host_id,
                         slots=slots, start_date=_hours(start),
                         end_date=_hours(end))
                    for n, (host_id, slots, size, start, end)
                    in enumerate(allocations)])
            if held:
                session.execute(sa.insert(lease_models.ComputeHostAllocation),
                                [{'id': 'held-%s' % host_id,
                                  'compute_host_id': host_id,
                                  'reservation_id': 'r%d' % len(allocations),
                                  'start_date': _hours(0),
                                  'end_date': _hours(12)}
                                 for host_id in held])
        return ids

    def _random_world(self) -> list:
        """Hosts of a few capacity profiles (as clouds have), half of
        them with instance allocations over the first day, and one held
        whole by a physical:host reservation."""
        rng = self.rng
        ids = ['%04d' % i for i in range(1, self.HOSTS + 1)]
        profiles = [(16, 32768, 200), (32, 65536, 400), (64, 131072, 800),
                    (32, 16384, 100)]
        allocations = []
        for host_id in ids[::2]:
            for _k in range(rng.randint(1, 4)):
                start = rng.choice([0, 2, 4, 6, 8])
                allocations.append((
                    host_id, rng.randint(1, 3),
                    (rng.choice([1, 2, 4, 8]),
                     rng.choice([1024, 4096, 8192]), rng.choice([0, 10, 40])),
                    start, start + rng.choice([2, 4, 10])))
        return self._insert({host_id: rng.choice(profiles)
                             for host_id in ids}, allocations,
                            held=[ids[3]])

    def _spec(self) -> dict:
        rng = self.rng
        return {'amount': rng.randint(1, 12), 'vcpus': rng.choice([1, 2, 4]),
                'memory_mb': rng.choice([512, 2048, 8192]),
                'disk_gb': rng.choice([0, 10, 20]),
                'affinity': rng.choice([None, None, True, False])}

    def _read(self, start, end, sizes: dict, limit: int, hosts: list,
              **kwargs) -> tuple:
        """(host_room of every host, roomiest) over [start, end]."""
        with db_session.reader.using(self.context) as session:
            return (instance_api.host_room(session, sa.true(), start, end,
                                           hosts),
                    instance_api.roomiest(session, sa.true(), start, end,
                                          sizes, limit, **kwargs))

    def test_packing_the_roomiest_is_packing_every_host(self):
        hosts = self._random_world()
        compared = 0
        for _ in range(60):
            spec = self._spec()
            start = _hours(self.rng.choice([0, 1, 3, 5, 9, 11]))
            end = start + datetime.timedelta(hours=self.rng.choice([1, 3]))
            every, found = self._read(start, end, {
                size: spec[size] for size in SIZES}, spec['amount'], hosts)
            rooms = {h: room for h, room, _peak in every}
            # What roomiest says of a host is what reading it says.
            for host_id, room, _peak in found:
                self.assertEqual(rooms[host_id], room, host_id)
            expected = virtual_instance.pack(
                [(h, room) for h, room, _p in every], spec)
            got = virtual_instance.pack(
                [(h, room) for h, room, _p in found], spec)
            self.assertEqual(expected, got, (spec, start, end))
            compared += expected is not None
        # Most requests fit: the comparison is not all None == None.
        self.assertGreater(compared, 30)

    def test_loaded_hosts_read_are_those_that_may_rank(self):
        size = (4, 1024, 10)
        hosts = self._insert(
            {'h1': (10, 8192, 100),  # 2 instances; loaded, room for 2
             'h2': (8, 8192, 100),   # 2 instances; idle
             'h3': (8, 8192, 100),   # 2 instances; loaded, room for 1
             'h4': (40, 8192, 100),  # 8 instances; loaded, room for 1
             'h5': (4, 8192, 100)},  # 1 instance; loaded, room for 0
            [('h1', 1, (2, 1, 1), 0, 4), ('h3', 1, size, 0, 4),
             ('h4', 7, size, 0, 4), ('h5', 1, size, 0, 4)])
        every, found = self._read(_hours(1), _hours(2), dict(
            zip(SIZES, size)), 1, hosts)
        # h2 is the roomiest idle host. h1 holds as many with a smaller
        # id, and h4 could hold more: their load is read. h3 and h5 could
        # not rank before h2 whatever their load: it is not.
        self.assertEqual(['h2', 'h1', 'h4'], [h for h, _r, _p in found])
        spec = dict(zip(SIZES, size), amount=1, affinity=None)
        self.assertEqual({'h1': 1}, virtual_instance.pack(
            [(h, room) for h, room, _p in found], spec))
        self.assertEqual({'h1': 1}, virtual_instance.pack(
            [(h, room) for h, room, _p in every], spec))

    def test_a_loaded_host_with_more_room_ranks_first(self):
        size = (4, 1024, 10)
        hosts = self._insert(
            {'h1': (8, 8192, 100), 'h2': (64, 65536, 1000)},
            [('h2', 2, size, 0, 4)])
        _every, found = self._read(_hours(1), _hours(2), dict(
            zip(SIZES, size)), 3, hosts)
        spec = dict(zip(SIZES, size), amount=3, affinity=None)
        self.assertEqual({'h2': 3}, virtual_instance.pack(
            [(h, room) for h, room, _p in found], spec))

    def test_hosts_held_whole_or_excluded_are_left_out(self):
        hosts = self._random_world()
        sizes = {'vcpus': 1, 'memory_mb': 1, 'disk_gb': 0}
        with db_session.reader.using(self.context) as session:
            found = instance_api.roomiest(session, sa.true(), _hours(0),
                                          _hours(1), sizes, self.HOSTS,
                                          exclude_hosts=[hosts[0]])
        ids = {h for h, _r, _p in found}
        self.assertNotIn(hosts[3], ids)  # held by physical:host
        self.assertNotIn(hosts[0], ids)
        self.assertEqual(self.HOSTS - 2, len(ids))


class TestPacking(_Packing, base.DBTestCase):
    pass


# The same on MariaDB/MySQL and PostgreSQL (skipped without them).
TestPackingMySQL, TestPackingPostgreSQL = backends.on_each_backend(
    TestPacking)
