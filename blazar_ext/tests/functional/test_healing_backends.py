"""Healing on MariaDB/MySQL and PostgreSQL: healing racing itself and
lease creation under row locks only, and two blazar-ext-manager processes
over RabbitMQ healing one failed host. (The healing API tests run on both
databases from test_host_service.)

Skipped with the reason when a database or RabbitMQ does not answer
(tools/test-setup.sh creates the ``openstack_citest`` users).
"""

import collections
import datetime
import re
import threading

import fixtures
from oslo_utils import timeutils
from oslotest import base
import requests
import sqlalchemy as sa

from blazar_ext import context as blazar_context
from blazar_ext.db.api import host_service
from blazar_ext.db.models import lease as lease_models
from blazar_ext.tests import base as blazar_base
from blazar_ext.tests.functional import backends
from blazar_ext.tests.functional import contention
from blazar_ext.tests.functional import health_servers
from blazar_ext.tests.functional import services

host_reservation = blazar_base.host_reservation
_date = blazar_base.lease_date
ADMIN = {'X-Auth-Token': 'admin'}


def overlapping(rows) -> list:
    """(host, a, b) for allocations of one host whose windows overlap."""
    by_host = collections.defaultdict(list)
    for host_id, reservation_id, start, end in rows:
        by_host[host_id].append((start, end, reservation_id))
    found = []
    for host_id, windows in by_host.items():
        windows.sort()
        for (s1, e1, r1), (s2, e2, r2) in zip(windows, windows[1:]):
            if s2 < e1:
                found.append((host_id, r1, r2))
    return found


def host_allocations(engine) -> list:
    alloc = lease_models.ComputeHostAllocation
    with engine.connect() as conn:
        return list(conn.execute(sa.select(
            alloc.compute_host_id, alloc.reservation_id, alloc.start_date,
            alloc.end_date)))


class _RowLocksOnly:
    """Two healers and lease creates at once, with the in-process lock
    off: only the database's row locks keep them apart, as between two
    manager processes."""

    def test_concurrent_healing_and_creates(self):
        self.without_process_lock()
        for i in range(8):
            self.add_host('h%d' % i)
        # Six leases one after the other, all on the first host.
        leases = [self.create('l%d' % i, start=60 + 30 * i,
                              end=80 + 30 * i) for i in range(6)]
        [held] = self.allocated_hosts(leases[0]['id'])
        context = blazar_context.get_admin_context()
        host_service.set_reservable(context, held, False)
        healer = self.manager.service.endpoint.healer
        lease_manager = self.manager.service.endpoint.leases
        outcomes, errors = [], []
        lock = threading.Lock()

        def heal():
            try:
                found = healer.heal(blazar_context.get_admin_context())
            except Exception as exc:  # noqa: B902 - asserted below
                found = []
                errors.append(exc)
            with lock:
                outcomes.extend(found)

        def create(i):
            try:
                lease_manager.create_lease(
                    blazar_context.get_admin_context(),
                    {'name': 'c%d' % i, 'start_date': _date(60),
                     'end_date': _date(260),
                     'reservations': [host_reservation()]})
            except Exception as exc:  # noqa: B902 - only conflicts
                if type(exc).__name__ != 'NotEnoughResources':
                    errors.append(exc)

        threads = ([threading.Thread(target=heal) for _ in range(3)] +
                   [threading.Thread(target=create, args=(i,))
                    for i in range(4)])
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual([], errors)
        moved = [c['reservation_id'] for o in outcomes
                 for c in o['replaced']]
        # Each reservation healed once, by one of the three.
        self.assertEqual(sorted(set(moved)), sorted(moved))
        for lease in leases:
            hosts = self.allocated_hosts(lease['id'])
            self.assertEqual(1, len(hosts))
            self.assertNotEqual(held, hosts[0])
        self.assertEqual([], overlapping(host_allocations(self.db.engine)))


class TestRowLocksMySQL(backends.OnBackend, _RowLocksOnly,
                        blazar_base.HostServiceTestCase):
    BACKEND = 'mysql'


class TestRowLocksPostgreSQL(backends.OnBackend, _RowLocksOnly,
                             blazar_base.HostServiceTestCase):
    BACKEND = 'postgresql'


HEALED = re.compile(r'Healed reservation (\S+) of lease')


class _TwoManagers:
    """Two blazar-ext-manager processes polling one Nova; a compute host
    holding ten reservations goes down, then comes back."""

    BACKEND: str

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.Timeout(180, gentle=True))
        for reason in (services.rabbitmq_unavailable(),
                       services.database_unavailable(self.BACKEND)):
            if reason:
                self.skipTest(reason)
        self.nova = self.useFixture(health_servers.FakeNova())
        self.deployment = self.useFixture(services.Deployment(
            self.BACKEND, managers=2, extra_config=(
                '[health]\nsource = nova\ninterval = 1\n'
                '[nova]\nauth_type = none\nendpoint_override = %s\n'
                % self.nova.endpoint)))
        self.url = self.deployment.endpoint

    def request(self, method: str, path: str, body=None,
                expected: int = 200) -> dict:
        resp = requests.request(method, self.url + path, json=body,
                                headers=ADMIN, timeout=30)
        self.assertEqual(expected, resp.status_code, resp.text)
        return resp.json() if resp.content else {}

    def allocations(self) -> dict:
        return {a['resource_id']: a for a in self.request(
            'GET', '/v1/os-hosts/allocations')['allocations']}

    def runs_after(self, engine, since: datetime.datetime,
                   exclude: str) -> dict:
        """{manager host: [start of each health run seen]}, for runs that
        started after ``since``, once each manager has two.

        A manager's runs follow one another (check, then sweep), so a
        second run means its first, sweep included, is over. One manager
        may claim every due host each time, so the test frees one healthy
        host now and then, for whichever manager runs next.
        """
        computehosts = sa.table(
            'computehosts', sa.column('hypervisor_hostname'),
            sa.column('health_checked_at'), sa.column('health_checker'))
        after = since.replace(microsecond=0)  # claims are whole seconds
        seen = collections.defaultdict(set)

        def observe():
            with engine.begin() as conn:
                for checker, at in conn.execute(sa.select(
                        computehosts.c.health_checker,
                        computehosts.c.health_checked_at)):
                    if checker and at is not None and at > after:
                        seen[checker.split(':')[0]].add(at)
                free = conn.execute(
                    sa.select(computehosts.c.hypervisor_hostname)
                    .where(computehosts.c.hypervisor_hostname != exclude,
                           computehosts.c.health_checked_at.is_not(None))
                    .order_by(computehosts.c.health_checked_at)
                    .limit(1)).scalar()
                conn.execute(computehosts.update().where(
                    computehosts.c.hypervisor_hostname == free)
                    .values(health_checked_at=None))
            return (len(seen) >= 2 and
                    all(len(starts) >= 2 for starts in seen.values()))
        contention.wait_until(observe, timeout=60, interval=0.3)
        return {host: sorted(starts) for host, starts in seen.items()}

    def test_one_heal_per_reservation_and_no_double_booking(self):
        for i in range(6):
            self.nova.add('c%d' % i)
            self.request('POST', '/v1/os-hosts', {'name': 'c%d' % i},
                         expected=201)
        start = timeutils.utcnow() + datetime.timedelta(hours=1)
        leases = []
        for i in range(10):
            begin = start + datetime.timedelta(hours=i)
            leases.append(self.request('POST', '/v1/leases', {
                'name': 'l%d' % i,
                'start_date': begin.strftime('%Y-%m-%d %H:%M'),
                'end_date': (begin + datetime.timedelta(minutes=50))
                .strftime('%Y-%m-%d %H:%M'),
                'reservations': [host_reservation()]},
                expected=201)['lease'])
        [failing] = [h for h, a in self.allocations().items()
                     if len(a['reservations']) == 10]
        name = self.request('GET', '/v1/os-hosts/%s' % failing)['host'][
            'hypervisor_hostname']
        self.nova.state[name]['service_state'] = 'down'

        def healed():
            allocations = self.allocations()
            return (failing not in allocations or
                    not allocations[failing]['reservations'])
        services.wait_for(healed, 60, 'the leases to leave %s' % name,
                          processes=self.deployment.managers)
        shown = self.request('GET', '/v1/os-hosts/%s' % failing)['host']
        self.assertFalse(shown['reservable'])
        self.assertEqual('nova: compute service down',
                         shown['reservable_reason'])
        engine = sa.create_engine(self.deployment.database.url,
                                  poolclass=sa.pool.NullPool)
        self.addCleanup(engine.dispose)
        # Both managers have swept at least once more, with the work done.
        runs = self.runs_after(engine, timeutils.utcnow(), exclude=name)
        self.assertEqual(['manager-1', 'manager-2'], sorted(runs))
        self.assertEqual({True}, {len(starts) >= 2
                                  for starts in runs.values()}, runs)
        heals = collections.Counter()
        for manager in self.deployment.managers:
            heals.update(HEALED.findall(manager.log()))
        reservation_ids = {lease['reservations'][0]['id']
                           for lease in leases}
        self.assertEqual(reservation_ids, set(heals))
        self.assertEqual({1}, set(heals.values()), heals)
        self.assertEqual([], overlapping(host_allocations(engine)))
        for lease in leases:
            shown = self.request('GET', '/v1/leases/%s' % lease['id'])[
                'lease']
            self.assertFalse(shown['degraded'])
            self.assertTrue(shown['reservations'][0]['resources_changed'])
        # Up again: the same source brings it back.
        self.nova.state[name]['service_state'] = 'up'
        services.wait_for(
            lambda: self.request('GET', '/v1/os-hosts/%s' % failing)[
                'host']['reservable'], 30, '%s to come back' % name,
            processes=self.deployment.managers)


class TestTwoManagersMySQL(_TwoManagers, base.BaseTestCase):
    BACKEND = 'mysql'


class TestTwoManagersPostgreSQL(_TwoManagers, base.BaseTestCase):
    BACKEND = 'postgresql'
