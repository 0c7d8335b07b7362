"""Base test cases, and the helpers of the lease tests."""

import contextlib
import datetime
import threading
import typing

import fixtures
from oslo_utils import timeutils
from oslotest import base

from blazar_ext.db.api import allocation as allocation_api
from blazar_ext.tests import fixtures as blazar_fixtures
from blazar_ext.tests import summaries


class TestCase(base.BaseTestCase):
    """Configuration only; no database, no RPC."""

    def setUp(self):
        super().setUp()
        self.conf = self.useFixture(blazar_fixtures.ConfFixture()).conf


class DBTestCase(TestCase):
    """With a fresh migrated database: SQLite, unless a mix-in such as
    tests.functional.backends.OnBackend gives another."""

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(self.database_fixture())

    def database_fixture(self) -> fixtures.Fixture:
        """The database fixture; it has ``url`` and ``engine``."""
        return blazar_fixtures.DatabaseFixture()


class APITestCase(DBTestCase):
    """The whole service in process: API, manager over fake://, SQLite."""

    def setUp(self):
        super().setUp()
        self.manager = self.useFixture(blazar_fixtures.ManagerFixture())
        self.api = self.useFixture(blazar_fixtures.APIFixture())

    def request(self, *args, **kwargs):
        return self.api.request(*args, **kwargs)


# The date format of lease bodies.
FMT = '%Y-%m-%d %H:%M'


def lease_date(minutes: int) -> str:
    """A lease date ``minutes`` from now, as the v1 API takes it."""
    return (timeutils.utcnow() + datetime.timedelta(minutes=minutes)
            ).strftime(FMT)


def host_reservation(**values) -> dict:
    """A physical:host reservation for a lease body; ``values`` override."""
    spec = {'resource_type': 'physical:host', 'min': 1, 'max': 1,
            'hypervisor_properties': '', 'resource_properties': ''}
    spec.update(values)
    return spec


def run_together(calls: typing.Sequence[typing.Callable[[], object]]
                 ) -> list:
    """Run the calls in threads released at once; what each returned or
    the exception it raised, in the calls' order."""
    barrier = threading.Barrier(len(calls))
    outcomes: list = [None] * len(calls)

    def run(index: int) -> None:
        barrier.wait()
        try:
            outcomes[index] = calls[index]()
        except Exception as exc:  # noqa: B902 - the outcome, asserted
            outcomes[index] = exc

    threads = [threading.Thread(target=run, args=(i,))
               for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


class LeaseTestCase(APITestCase):
    """With helpers to register hosts, create leases and run events."""

    def setUp(self):
        super().setUp()
        # Events run when a test says so (run_events), not by the clock.
        self.conf.set_override('event_interval', 3600, group='manager')
        # Hosts, instance reservations and healing write Placement rows:
        # the triggers must have kept the providers' summaries.
        self.addCleanup(summaries.assert_kept, self.db.engine)

    def add_host(self, name: str, **values) -> dict:
        values['name'] = name
        resp = self.request('POST', '/v1/os-hosts', values)
        self.assertEqual(201, resp.status, resp.text)
        return resp.json()['host']

    def create(self, name='lease-1', start=60, end=120, reservations=None,
               expect=201, headers=None, **extra):
        body = {'name': name,
                'start_date': start if isinstance(start, str)
                else lease_date(start),
                'end_date': end if isinstance(end, str) else lease_date(end),
                'reservations': reservations or [host_reservation()],
                'events': []}
        body.update(extra)
        resp = self.request('POST', '/v1/leases', body, headers=headers)
        self.assertEqual(expect, resp.status, resp.text)
        return resp.json().get('lease', resp.json())

    def show(self, lease_id: str) -> dict:
        resp = self.request('GET', '/v1/leases/%s' % lease_id)
        self.assertEqual(200, resp.status, resp.text)
        return resp.json()['lease']

    def allocated_hosts(self, lease_id: str) -> list:
        resp = self.request('GET',
                            '/v1/os-hosts/allocations?lease_id=%s' % lease_id)
        self.assertEqual(200, resp.status, resp.text)
        return sorted(a['resource_id'] for a in resp.json()['allocations']
                      if a['reservations'])

    def without_process_lock(self) -> None:
        """Only the database's row locks and the locked re-check keep
        creates apart, as between two manager processes."""
        self.useFixture(fixtures.MockPatchObject(
            allocation_api, 'PROCESS_LOCK', contextlib.nullcontext()))

    def race_creates(self, bodies: list,
                     make_context: typing.Callable[[], object]) -> list:
        """The leases of ``bodies`` created through the manager at once,
        each with a context of its own; the sorted outcomes: 'created' or
        the class name of the exception raised."""
        leases = self.manager.service.endpoint.leases
        outcomes = run_together([
            lambda body=body: leases.create_lease(make_context(), body)
            for body in bodies])
        return sorted(type(o).__name__ if isinstance(o, Exception)
                      else 'created' for o in outcomes)

    def run_events(self, minutes: float = 0) -> list:
        now = timeutils.utcnow() + datetime.timedelta(minutes=minutes)
        return self.manager.service.event_loop.run_once(now)


# The newest Placement microversion, for the helpers below.
PLACEMENT_LATEST = {'OpenStack-API-Version': 'placement 1.39'}


class HostProviderTestCase(LeaseTestCase):
    """With helpers to read a host's resource provider and set its
    traits through the Placement API."""

    def provider(self, name: str) -> dict:
        resp = self.request('GET', '/placement/resource_providers?name=%s'
                            % name, headers=PLACEMENT_LATEST)
        self.assertEqual(200, resp.status, resp.text)
        providers = resp.json()['resource_providers']
        self.assertEqual(1, len(providers), resp.text)
        return providers[0]

    def set_traits(self, name: str, *traits: str) -> None:
        provider = self.provider(name)
        for trait in traits:
            if trait.startswith('CUSTOM_'):
                self.request('PUT', '/placement/traits/%s' % trait,
                             headers=PLACEMENT_LATEST)
        resp = self.request(
            'PUT', '/placement/resource_providers/%s/traits'
            % provider['uuid'],
            {'traits': list(traits),
             'resource_provider_generation': provider['generation']},
            headers=PLACEMENT_LATEST)
        self.assertEqual(200, resp.status, resp.text)


class HostServiceTestCase(HostProviderTestCase):
    """With helpers to take hosts out of service, read their providers' traits
    and capture notifications."""

    def set_reservable(self, host: dict, reservable, reason=None,
                       expect: int = 200) -> dict:
        body = {'reservable': reservable}
        if reason is not None:
            body['reservable_reason'] = reason
        resp = self.request('PUT', '/v1/os-hosts/%s' % host['id'], body)
        self.assertEqual(expect, resp.status, resp.text)
        return resp.json().get('host', resp.json())

    def host(self, host: dict) -> dict:
        return self.request('GET', '/v1/os-hosts/%s' % host['id']).json()[
            'host']

    def provider_traits(self, name: str) -> list:
        provider = self.provider(name)
        return self.request(
            'GET', '/placement/resource_providers/%s/traits'
            % provider['uuid'], headers=PLACEMENT_LATEST).json()['traits']

    def capture_notifications(self) -> list:
        from oslo_messaging.notify import _impl_test
        self.conf.set_override('driver', ['test'],
                               group='oslo_messaging_notifications')
        _impl_test.reset()
        self.addCleanup(_impl_test.reset)
        return _impl_test.NOTIFICATIONS
