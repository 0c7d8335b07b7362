"""/v1/leases through the whole service (API, RPC, manager, SQLite)."""

import datetime
import gc
import json
import time
from unittest import mock

import fixtures as fixtures_lib
from oslo_utils import timeutils
import sqlalchemy as sa

from blazar_ext.api.v1 import views
from blazar_ext import context
from blazar_ext.db.api import lease as lease_api
from blazar_ext.db.models import host as host_models
from blazar_ext.db import session as db_session
from blazar_ext.manager import leases as manager_leases
from blazar_ext.plugins import loader
from blazar_ext.rpc import manager_client
from blazar_ext.tests import base
from blazar_ext.tests import fixtures
from blazar_ext.tests.functional import backends

_date = base.lease_date
host_reservation = base.host_reservation


class TestLeaseCreate(base.LeaseTestCase):

    def test_create_show_list(self):
        host = self.add_host('h1')
        lease = self.create(
            reservations=[host_reservation(min=1, max=2)])
        self.assertEqual('lease-1', lease['name'])
        self.assertEqual('PENDING', lease['status'])
        self.assertEqual(1, len(lease['reservations']))
        reservation = lease['reservations'][0]
        self.assertEqual('physical:host', reservation['resource_type'])
        self.assertEqual(1, reservation['min'])
        self.assertEqual(2, reservation['max'])
        self.assertEqual('pending', reservation['status'])
        self.assertEqual(
            ['before_end_lease', 'end_lease', 'start_lease'],
            sorted(e['event_type'] for e in lease['events']))
        self.assertTrue(all(e['status'] == 'UNDONE'
                            for e in lease['events']))
        self.assertEqual(lease, self.show(lease['id']))
        listed = self.request('GET', '/v1/leases').json()['leases']
        self.assertEqual([lease], listed)
        self.assertEqual([host['id']], self.allocated_hosts(lease['id']))

    def test_allocates_up_to_max(self):
        for i in range(3):
            self.add_host('h%d' % i)
        lease = self.create(reservations=[host_reservation(min=1, max=2)])
        self.assertEqual(2, len(self.allocated_hosts(lease['id'])))

    def test_start_now(self):
        self.add_host('h1')
        lease = self.create(start='now', end=30)
        self.assertEqual('PENDING', lease['status'])
        self.run_events()
        self.assertEqual('ACTIVE', self.show(lease['id'])['status'])

    def test_not_enough_hosts_is_409_and_nothing_made(self):
        self.add_host('h1')
        self.create(name='first')
        resp = self.request('POST', '/v1/leases', {
            'name': 'second', 'start_date': _date(90), 'end_date': _date(150),
            'reservations': [host_reservation()]})
        self.assertEqual(409, resp.status, resp.text)
        self.assertIn('at least 1 host', resp.json()['error_message'])
        names = [lease['name'] for lease in
                 self.request('GET', '/v1/leases').json()['leases']]
        self.assertEqual(['first'], names)

    def test_two_reservations_one_impossible_leaves_nothing(self):
        self.add_host('h1')
        resp = self.request('POST', '/v1/leases', {
            'name': 'x', 'start_date': _date(60), 'end_date': _date(120),
            'reservations': [host_reservation(),
                             host_reservation(min=1, max=1)]})
        self.assertEqual(409, resp.status, resp.text)
        self.assertEqual([], self.request('GET', '/v1/leases').json()
                         ['leases'])
        resp = self.request('GET', '/v1/os-hosts/allocations')
        self.assertEqual([[]], [a['reservations']
                                for a in resp.json()['allocations']])

    def test_adjacent_windows_share_a_host(self):
        self.add_host('h1')
        self.create(name='a', start=60, end=120)
        self.create(name='b', start=120, end=180)

    def test_cleaning_time_separates_leases(self):
        self.conf.set_override('cleaning_time', 30, group='manager')
        self.add_host('h1')
        self.create(name='a', start=60, end=120)
        self.create(name='b', start=130, end=180, expect=409)
        self.create(name='c', start=150, end=180)

    def test_properties_select_hosts(self):
        self.add_host('small', memory_mb=2048, gpu='false', rank='9')
        big = self.add_host('big', memory_mb=65536, gpu='true', rank='32')
        lease = self.create(reservations=[host_reservation(
            resource_properties='["and", ["==", "$gpu", "true"], '
                                '[">", "$rank", "10"]]',
            hypervisor_properties='[">=", "$memory_mb", 4096]')])
        self.assertEqual([big['id']], self.allocated_hosts(lease['id']))
        # Nothing else matches: 409.
        self.create(name='more', reservations=[host_reservation(
            resource_properties='["==", "$gpu", "true"]')], expect=409)

    def test_unknown_property_is_400_naming_it(self):
        self.add_host('h1', gpu='true')
        resp = self.request('POST', '/v1/leases', {
            'name': 'x', 'start_date': _date(60), 'end_date': _date(120),
            'reservations': [host_reservation(
                resource_properties='["==", "$nosuch", "1"]')]})
        self.assertEqual(400, resp.status, resp.text)
        self.assertIn('nosuch', resp.json()['error_message'])

    def test_private_capability_named_only_by_who_may_see_it(self):
        # The API decides it (blazar:oshosts:get_private) and tells the
        # manager, which checks no policy itself.
        self.add_host('h1', secret='s1')
        resp = self.request('PATCH', '/v1/physical:host/properties/secret',
                            {'private': True})
        self.assertEqual(204, resp.status, resp.text)
        wanted = [host_reservation(
            resource_properties='["==", "$secret", "s1"]')]
        refused = self.create(reservations=wanted, expect=400,
                              headers=fixtures.user_headers())
        self.assertNotIn('s1', refused['error_message'])
        lease = self.create(name='admin', reservations=wanted)
        self.assertEqual(1, len(self.allocated_hosts(lease['id'])))

    def test_non_reservable_hosts_are_skipped(self):
        self.add_host('h1')
        with db_session.writer.using(context.get_admin_context()) as s:
            s.execute(sa.update(host_models.ComputeHost)
                      .values(reservable=False))
        self.create(expect=409)

    def test_bad_dates_are_400_naming_them(self):
        self.add_host('h1')
        cases = [
            ({'start_date': '2020-01-01 10:00'}, 'start_date'),
            ({'start_date': 'tomorrow'}, 'start_date'),
            ({'end_date': '12/01/2030'}, 'end_date'),
            ({'start_date': _date(120), 'end_date': _date(60)}, 'end_date'),
            ({'start_date': _date(60), 'end_date': _date(60)}, 'end_date'),
        ]
        for change, word in cases:
            body = {'name': 'x', 'start_date': _date(60),
                    'end_date': _date(120),
                    'reservations': [host_reservation()]}
            body.update(change)
            resp = self.request('POST', '/v1/leases', body)
            self.assertEqual(400, resp.status, (change, resp.text))
            self.assertIn(word, resp.json()['error_message'])

    def test_bad_reservations_are_400(self):
        # [] is accepted, as upstream (test_v1_dialect).
        min_host = ('physical:host reservation: min must be an integer '
                    'from 1 to 2147483647, got ')
        for reservations, reason in (
                ([{'resource_type': 'nope'}],
                 "resource_type 'nope' is not enabled; enabled: "),
                ([host_reservation(min=0)], min_host + '0'),
                ([host_reservation(min=3, max=2)],
                 'Invalid values for min/max of hosts. Max must be equal to '
                 'or larger than min. physical:host reservation: min (3) '
                 'must not exceed max (2)'),
                ([host_reservation(min='x')], min_host + "'x'"),
                ([host_reservation(resource_properties='[')],
                 'resource_properties: not valid JSON (Expecting value: '
                 'line 1 column 2 (char 1))'),
                ([{'min': 1}],
                 "'reservations/0': 'resource_type' is a required "
                 "property")):
            resp = self.request('POST', '/v1/leases', {
                'name': 'x', 'start_date': _date(60),
                'end_date': _date(120), 'reservations': reservations})
            self.assertEqual(400, resp.status, (reservations, resp.text))
            self.assertIn('Invalid input: ' + reason,
                          resp.json()['error_message'])
        resp = self.request('POST', '/v1/leases', {'name': 'x'})
        self.assertEqual(400, resp.status)

    def test_show_unknown_is_404(self):
        resp = self.request('GET', '/v1/leases/nope')
        self.assertEqual(404, resp.status)
        self.assertIn('nope', resp.json()['error_message'])


class TestLeaseVisibility(base.LeaseTestCase):

    def test_non_admin_sees_only_their_project(self):
        self.add_host('h1')
        self.add_host('h2')
        mine = self.create(name='mine', headers=fixtures.user_headers(
            project='p1', user='u1'))
        self.assertEqual('p1', mine['project_id'])
        other = self.create(name='other', headers=fixtures.user_headers(
            project='p2', user='u2'))
        listed = self.request('GET', '/v1/leases', headers=fixtures
                              .user_headers(project='p1', user='u1'))
        self.assertEqual(['mine'],
                         [x['name'] for x in listed.json()['leases']])
        resp = self.request('GET', '/v1/leases/%s' % other['id'],
                            headers=fixtures.user_headers(project='p1'))
        self.assertEqual(403, resp.status)
        resp = self.request('DELETE', '/v1/leases/%s' % other['id'],
                            headers=fixtures.user_headers(project='p1'))
        self.assertEqual(403, resp.status)
        admin = self.request('GET', '/v1/leases').json()['leases']
        self.assertEqual(2, len(admin))

    def test_listing_builds_with_the_collector_paused(self):
        # A listing of thousands of leases makes a million containers; the
        # cyclic collector would walk them over and over (gc_pause).
        self.add_host('h1')
        self.create(name='mine')
        states = []
        real = views.leases_json

        def leases_json(values):
            states.append(gc.isenabled())
            return real(values)
        was = gc.isenabled()
        with mock.patch.object(views, 'leases_json',
                               side_effect=leases_json):
            listed = self.request('GET', '/v1/leases').json()['leases']
        self.assertEqual(['mine'], [x['name'] for x in listed])
        self.assertEqual([False], states)
        self.assertEqual(was, gc.isenabled())


class TestListedTexts(base.LeaseTestCase):
    """A listing and a show answer each lease with the text kept for its
    values (views._LeaseTexts): the bytes the views and json.dumps make,
    and a lease changed in any column, by any writer, shown changed."""

    def setUp(self):
        super().setUp()
        self.add_host('h1', rack='r1')
        resp = self.request('POST', '/v1/floatingips', {
            'floating_network_id': 'net-1',
            'floating_ip_address': '172.24.4.10'})
        self.assertEqual(201, resp.status, resp.text)
        self.lease = self.create(name='l1', reservations=[
            host_reservation(),
            {'resource_type': 'virtual:floatingip', 'network_id': 'net-1',
             'amount': 1}])

    def _made(self) -> bytes:
        """The listing as the views and json.dumps make it."""
        values = loader.get().lease_list(context.get_admin_context())
        return json.dumps({'leases': views.leases(values)}).encode()

    def test_bytes_are_those_the_views_make(self):
        for _ in range(2):  # made, then kept
            listed = self.request('GET', '/v1/leases')
            self.assertEqual(200, listed.status)
            self.assertEqual('application/json',
                             listed.headers['Content-Type'])
            self.assertEqual(self._made(), listed.body)
        shown = self.request('GET', '/v1/leases/%s' % self.lease['id'])
        self.assertEqual(
            {'lease': json.loads(self._made())['leases'][0]}, shown.json())

    def test_row_changed_outside_the_api_is_shown_changed(self):
        self.request('GET', '/v1/leases')
        self.request('GET', '/v1/leases/%s' % self.lease['id'])
        # A status written without touching updated_at (as an import or
        # an operator's SQL would): only the value differs.
        with db_session.get_engine().begin() as conn:
            conn.execute(sa.text(
                "UPDATE reservations SET status = 'error' "
                "WHERE lease_id = :id AND resource_type = 'physical:host'"),
                {'id': self.lease['id']})
        listed = self.request('GET', '/v1/leases').json()['leases'][0]
        shown = self.show(self.lease['id'])
        for lease in (listed, shown):
            self.assertEqual(
                {'physical:host': 'error', 'virtual:floatingip': 'pending'},
                {r['resource_type']: r['status']
                 for r in lease['reservations']})
        self.assertEqual(self._made(), self.request('GET', '/v1/leases').body)


class TestLeaseLifecycle(base.LeaseTestCase):

    def test_pending_active_terminated_by_events(self):
        host = self.add_host('h1')
        lease = self.create(start=10, end=200)
        self.assertEqual([], self.run_events(minutes=0))
        ran = self.run_events(minutes=11)
        self.assertEqual([('start_lease', lease['id'], 'DONE')], ran)
        shown = self.show(lease['id'])
        self.assertEqual('ACTIVE', shown['status'])
        self.assertEqual('active', shown['reservations'][0]['status'])
        self.run_events(minutes=150)
        self.assertEqual('ACTIVE', self.show(lease['id'])['status'])
        ran = self.run_events(minutes=201)
        self.assertEqual([('end_lease', lease['id'], 'DONE')], ran)
        shown = self.show(lease['id'])
        self.assertEqual('TERMINATED', shown['status'])
        self.assertEqual({'DONE'}, {e['status'] for e in shown['events']})
        # The host is free again and can be deleted.
        self.assertEqual([], self.allocated_hosts(lease['id']))
        resp = self.request('DELETE', '/v1/os-hosts/%s' % host['id'])
        self.assertEqual(204, resp.status, resp.text)

    def test_events_run_in_order_when_all_due(self):
        self.add_host('h1')
        lease = self.create(start=10, end=20)
        ran = self.run_events(minutes=30)
        self.assertEqual(['start_lease', 'before_end_lease', 'end_lease'],
                         [r[0] for r in ran])
        self.assertEqual('TERMINATED', self.show(lease['id'])['status'])

    def test_an_event_runs_once(self):
        self.add_host('h1')
        self.create(start=10, end=200)
        self.assertEqual(1, len(self.run_events(minutes=11)))
        self.assertEqual([], self.run_events(minutes=11))

    def test_stale_claim_is_retaken(self):
        self.add_host('h1')
        lease = self.create(start=10, end=200)
        now = timeutils.utcnow() + datetime.timedelta(minutes=11)
        ctx = context.get_admin_context()
        timeout = datetime.timedelta(seconds=300)
        event = [e for e in self.show(lease['id'])['events']
                 if e['event_type'] == 'start_lease'][0]
        # A manager claims it and dies.
        self.assertTrue(lease_api.event_claim(ctx, event['id'], now,
                                              timeout))
        self.assertFalse(lease_api.event_claim(ctx, event['id'], now,
                                               timeout))
        self.assertEqual([], self.run_events(minutes=12))
        ran = self.run_events(minutes=17)
        self.assertEqual([('start_lease', lease['id'], 'DONE')], ran)

    def _capture_notifications(self) -> list:
        """The list oslo.messaging's test driver appends notifications to
        as (ctxt, message, priority, retry)."""
        from oslo_messaging.notify import _impl_test
        self.conf.set_override('driver', ['test'],
                               group='oslo_messaging_notifications')
        _impl_test.reset()
        self.addCleanup(_impl_test.reset)
        return _impl_test.NOTIFICATIONS

    def test_notifications_for_each_event(self):
        notifications = self._capture_notifications()
        self.add_host('h1')
        lease = self.create(start=10, end=20)
        self.run_events(minutes=30)
        sent = [n[1]['event_type'] for n in notifications]
        self.assertEqual(['lease.create', 'lease.event.start_lease',
                          'lease.event.before_end_lease',
                          'lease.event.end_lease'], sent)
        self.assertEqual(lease['id'],
                         notifications[0][1]['payload']['id'])
        event_ids = {e['event_type']: e['id']
                     for e in self.show(lease['id'])['events']}
        self.assertEqual(
            [event_ids['start_lease'], event_ids['before_end_lease'],
             event_ids['end_lease']],
            [n[1]['payload']['event_id']
             for n in notifications[1:]])

    def test_event_notification_is_recorded_with_the_event_done(self):
        # Exactly once: the outbox row is written in the transaction that
        # marks the event DONE; what a manager recorded and died before
        # sending, the delivery thread sends later, once.
        notifications = self._capture_notifications()
        self.add_host('h1')
        lease = self.create(start=10, end=20)
        loop = self.manager.service.delivery_loop
        self.useFixture(fixtures.fixtures.MockPatchObject(
            loop.dispatcher, 'flush'))
        self.run_events(minutes=30)
        self.assertEqual(['lease.create'],
                         [n[1]['event_type'] for n in notifications])
        later = timeutils.utcnow() + datetime.timedelta(minutes=1)
        loop.run_once(later)
        loop.run_once(later)
        self.assertEqual(['lease.create', 'lease.event.start_lease',
                          'lease.event.before_end_lease',
                          'lease.event.end_lease'],
                         [n[1]['event_type'] for n in notifications])
        event_ids = {e['event_type']: e['id']
                     for e in self.show(lease['id'])['events']}
        self.assertEqual(
            [event_ids['start_lease'], event_ids['before_end_lease'],
             event_ids['end_lease']],
            [n[1]['payload']['event_id'] for n in notifications[1:]])

    def test_event_loop_runs_by_itself(self):
        # A short interval and a lease starting now: the loop alone makes
        # it ACTIVE.
        self.add_host('h1')
        self.conf.set_override('event_interval', 0.05, group='manager')
        lease = self.create(start='now', end=30)
        for _ in range(200):
            if self.show(lease['id'])['status'] == 'ACTIVE':
                break
            time.sleep(0.05)
        self.assertEqual('ACTIVE', self.show(lease['id'])['status'])


# The same on MariaDB/MySQL and PostgreSQL (skipped without them).
TestLeaseCreateMySQL, TestLeaseCreatePostgreSQL = (
    backends.on_each_backend(TestLeaseCreate))
TestLeaseLifecycleMySQL, TestLeaseLifecyclePostgreSQL = (
    backends.on_each_backend(TestLeaseLifecycle))


class TestCreateAnswer(base.LeaseTestCase):
    """A create is answered with the lease the manager wrote (RPC 1.8),
    not read back; the bytes are those of a show of it, and of the
    answer an API pinned below 1.8 builds by reading back."""

    def setUp(self):
        super().setUp()
        self.add_host('h1', rack='r1', memory='4096')
        self.add_host('h2', rack='r1', memory='8192')
        for address in ('172.24.4.10', '172.24.4.11'):
            resp = self.request('POST', '/v1/floatingips', {
                'floating_network_id': 'net-1',
                'floating_ip_address': address})
            self.assertEqual(201, resp.status, resp.text)
        self.lease_get = self.useFixture(fixtures_lib.MockPatchObject(
            loader.Plugins, 'lease_get', autospec=True,
            side_effect=loader.Plugins.lease_get)).mock

    def _post(self, name: str):
        resp = self.request('POST', '/v1/leases', {
            'name': name, 'start_date': base.lease_date(60),
            'end_date': base.lease_date(120),
            'before_end_date': base.lease_date(90),
            'reservations': [
                base.host_reservation(
                    resource_properties='["and", ["==", "$rack", "r1"], '
                    '[">=", "$memory", "4096"]]'),
                {'resource_type': 'virtual:floatingip',
                 'network_id': 'net-1', 'amount': 1}]})
        self.assertEqual(201, resp.status, resp.text)
        return resp

    def _shown(self, resp) -> bytes:
        lease_id = resp.json()['lease']['id']
        shown = self.request('GET', '/v1/leases/%s' % lease_id)
        self.assertEqual(200, shown.status, shown.text)
        return shown.body

    def test_answer_is_the_lease_as_read_back(self):
        resp = self._post('l1')
        self.assertEqual(0, self.lease_get.call_count)
        lease = resp.json()['lease']
        self.assertEqual(2, len(lease['reservations']))
        self.assertEqual(3, len(lease['events']))
        self.assertEqual(self._shown(resp), resp.body)

    def test_manager_answer_is_plain_json(self):
        # What the rabbit driver sends: JSON without a default for
        # datetimes; loaded again, the API shows it as the read-back.
        ctx = context.get_admin_context()
        answer = self.manager.service.endpoint.create_lease(
            ctx, {'name': 'l1', 'start_date': base.lease_date(60),
                  'end_date': base.lease_date(120),
                  'reservations': [base.host_reservation()]},
            return_lease=True)
        sent = json.loads(json.dumps(answer))
        self.assertEqual(views.lease(loader.Plugins.lease_get(
            loader.get(), ctx, answer['id'])), views.lease(sent))

    def test_pinned_below_1_8_reads_back_the_same_bytes(self):
        self.conf.set_override('rpc_version', '1.7', group='manager')
        manager_client.reset_client()
        self.addCleanup(manager_client.reset_client)
        pinned = self._post('l1')
        self.assertEqual(1, self.lease_get.call_count)
        self.conf.clear_override('rpc_version', group='manager')
        manager_client.reset_client()
        current = self._post('l2')
        self.assertEqual(1, self.lease_get.call_count)
        self.assertEqual(self._shown(pinned), pinned.body)
        # Apart from ids, name and times, the two answers are the same.
        self.assertEqual(_without_ids(pinned.json()),
                         _without_ids(current.json()))


def _without_ids(value):
    """``value`` with ids, names and times blanked."""
    if isinstance(value, dict):
        return {key: '-' if key.endswith(('id', '_at', 'name')) or key in (
            'time', 'resource_id') else _without_ids(item)
            for key, item in value.items()}
    if isinstance(value, list):
        return [_without_ids(item) for item in value]
    return value


class TestCreateBuiltFromRows(base.LeaseTestCase):
    """The manager's lease after a create is built from the rows it has
    just written (lease, reservations, events), not read back: the very
    values a read in the same transaction gives, types and order, on
    SQLite and PostgreSQL; read back on MariaDB/MySQL (DATETIME keeps no
    microseconds)."""

    def setUp(self):
        super().setUp()
        for i, memory in enumerate(('4096', '8192', '8192')):
            self.add_host('h%d' % i, rack='r1', memory=memory, vcpus=8,
                          memory_mb=16384, local_gb=100)
        for address in ('172.24.4.10', '172.24.4.11'):
            resp = self.request('POST', '/v1/floatingips', {
                'floating_network_id': 'net-1',
                'floating_ip_address': address})
            self.assertEqual(201, resp.status, resp.text)
        self.compared = []
        written = manager_leases.LeaseManager._written

        def checked(manager, session, lease_id, rows):
            built = lease_api.built_lease(session, rows['leases'],
                                          rows['reservations'],
                                          rows['events'])
            lease = written(manager, session, lease_id, rows)
            read = manager._read(session, lease_id)
            self.compared.append((built is not None, lease, read))
            return lease
        self.useFixture(fixtures_lib.MockPatchObject(
            manager_leases.LeaseManager, '_written', autospec=True,
            side_effect=checked))

    def _check(self, **extra):
        self.create(**extra)
        [(built, lease, read)] = self.compared[-1:]
        self.assertEqual(self.db.engine.dialect.name != 'mysql', built)
        self.assertEqual(read, lease)
        self.assertEqual(list(read), list(lease))
        for mine, theirs in ((lease, read),
                             *zip(lease['reservations'],
                                  read['reservations']),
                             *zip(lease['events'], read['events'])):
            self.assertEqual(list(theirs), list(mine))
            self.assertEqual({k: type(v) for k, v in theirs.items()},
                             {k: type(v) for k, v in mine.items()})
        return lease

    def test_host_and_floating_ip(self):
        lease = self._check(
            before_end_date=base.lease_date(90),
            reservations=[
                base.host_reservation(
                    resource_properties='["==", "$rack", "r1"]'),
                {'resource_type': 'virtual:floatingip',
                 'network_id': 'net-1', 'amount': 1}])
        self.assertEqual(2, len(lease['reservations']))

    def test_two_host_reservations_in_their_order(self):
        lease = self._check(name='two', reservations=[
            base.host_reservation(
                resource_properties='[">=", "$memory", "8192"]'),
            base.host_reservation(min=1, max=1)])
        self.assertEqual(2, len(lease['reservations']))

    def test_instances(self):
        self._check(name='inst', reservations=[{
            'resource_type': 'virtual:instance', 'amount': 2, 'vcpus': 2,
            'memory_mb': 1024, 'disk_gb': 10, 'affinity': None,
            'resource_properties': ''}])

    def test_events_at_one_time(self):
        # before_end at the end: two events at one time, ordered by type.
        lease = self._check(name='tie', start=60, end=120,
                            before_end_date=base.lease_date(120))
        times = [event['time'] for event in lease['events']]
        self.assertEqual(2, len(set(times)))


TestCreateBuiltFromRowsMySQL, TestCreateBuiltFromRowsPostgreSQL = (
    backends.on_each_backend(TestCreateBuiltFromRows))
