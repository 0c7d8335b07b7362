"""Webhook deliveries to a real HTTP receiver in the test process: every
event once, signed, in order per lease; retries; dead letters."""

import datetime
import threading
import time

import fixtures
from oslo_db import exception as db_exc
from oslo_utils import timeutils

from blazar_ext import context
from blazar_ext.db.api import outbox as outbox_api
from blazar_ext.db import session as db_session
from blazar_ext.manager import delivery
from blazar_ext.notifications import catalog
from blazar_ext.notifications import cloudevents
from blazar_ext.tests import base
from blazar_ext.tests.functional import backends
from blazar_ext.tests.functional import webhook_receiver

SECRET = 'a-secret-of-twenty-chars'
LEASE_EVENTS = [name for name in catalog.names()
                if name.startswith(('lease.', 'reservation.'))]


class WebhookTestCase(base.HostServiceTestCase):

    def setUp(self):
        super().setUp()
        opts = {'allow_private_targets': True, 'retry_base': 0,
                'delivery_timeout': 5}
        for name, value in opts.items():
            self.conf.set_override(name, value, group='notifications')
        # Deliveries run when the test says so, not by the clock.
        self.manager.service.delivery_loop.stop()
        self.loop = delivery.DeliveryLoop(
            self.manager.service.endpoint.leases.outbox)
        self.addCleanup(self.loop.dispatcher.close)

    def subscribe(self, receiver, events=None, **values) -> dict:
        body = dict({'url': receiver.url, 'events': events or LEASE_EVENTS,
                     'secret': SECRET}, **values)
        resp = self.request('POST', '/v1/subscriptions', body)
        self.assertEqual(201, resp.status, resp.text)
        return resp.json()['subscription']

    def deliver(self, minutes: float = 0, times: int = 1) -> list:
        results = []
        for _ in range(times):
            results.extend(self.loop.run_once(
                timeutils.utcnow() + datetime.timedelta(minutes=minutes)))
        return results

    def deliveries(self, subscription: dict) -> list:
        resp = self.request('GET', '/v1/subscriptions/%s/deliveries'
                            % subscription['id'])
        self.assertEqual(200, resp.status, resp.text)
        return resp.json()['deliveries']


class TestDeliveries(WebhookTestCase):

    def test_each_event_once_signed_in_order(self):
        receiver = self.useFixture(webhook_receiver.Receiver())
        self.subscribe(receiver)
        hosts = [self.add_host(name) for name in ('h1', 'h2')]
        lease = self.create(start=10, end=20)
        self.deliver()
        resp = self.request('PUT', '/v1/leases/%s' % lease['id'],
                            {'name': 'renamed'})
        self.assertEqual(200, resp.status, resp.text)
        self.run_events(minutes=11)
        self.deliver()  # started; the lease ends within the hour
        [held] = self.allocated_hosts(lease['id'])
        self.set_reservable({'id': held}, False)  # healed to the other
        [other] = [h['id'] for h in hosts if h['id'] != held]
        self.set_reservable({'id': other}, False)  # nothing left: degraded
        self.run_events(minutes=30)
        self.assertEqual(204, self.request(
            'DELETE', '/v1/leases/%s' % lease['id']).status)
        self.deliver(times=2)
        events = receiver.events()
        self.assertEqual(
            # The before-end event is due at the start: the lease is
            # shorter than [manager] minutes_before_end_lease.
            ['lease.created', 'lease.updated', 'lease.started',
             'lease.before_end', 'lease.ending_soon', 'reservation.healed',
             'lease.degraded', 'lease.ended', 'lease.deleted'],
            [e['type'] for e in events])
        self.assertEqual(len(events), len({e['id'] for e in events}))
        for event, got in zip(events, receiver.received):
            self.assertEqual('1.0', event['specversion'])
            self.assertEqual(lease['id'], event['subject'])
            self.assertEqual(lease['id'], event['data']['id'])
            self.assertTrue(cloudevents.verify(
                SECRET, got['headers'][cloudevents.SIGNATURE_HEADER],
                got['body'], time.time()))
            self.assertFalse(cloudevents.verify(
                'not-the-secret-at-all', got['headers'][
                    cloudevents.SIGNATURE_HEADER], got['body'], time.time()))
        self.assertEqual(3600, events[4]['data']['lead_time'])
        self.assertEqual('renamed', events[1]['data']['name'])
        # Nothing more, however often the managers look.
        self.deliver(minutes=5, times=2)
        self.assertEqual(len(events), len(receiver.received))

    def test_ending_soon_at_each_lead_time(self):
        receiver = self.useFixture(webhook_receiver.Receiver())
        self.subscribe(receiver, events=['lease.ending_soon'],
                       lead_times=[600, 3600])
        self.add_host('h1')
        lease = self.create(start=10, end=50)
        self.run_events(minutes=11)
        self.deliver()
        self.deliver(minutes=5)
        self.assertEqual([3600], [e['data']['lead_time']
                                  for e in receiver.events()])
        self.deliver(minutes=45)
        self.deliver(minutes=46)
        events = receiver.events()
        self.assertEqual([3600, 600], [e['data']['lead_time']
                                       for e in events])
        self.assertEqual({lease['id']}, {e['subject'] for e in events})

    def test_three_failures_then_success_is_one_more_delivery(self):
        receiver = self.useFixture(webhook_receiver.Receiver(
            [500, 500, 500]))
        subscription = self.subscribe(receiver, events=['lease.created'])
        self.add_host('h1')
        self.create()
        self.deliver(times=8)
        self.assertEqual(4, len(receiver.received))
        self.assertEqual(1, len({e['id'] for e in receiver.events()}))
        [found] = self.deliveries(subscription)
        self.assertEqual('DELIVERED', found['status'])
        self.assertEqual(4, found['attempts'])
        self.assertEqual([500, 500, 500, 200], [
            a['status_code'] for a in found['attempt_log']])
        self.assertIn('HTTP 500', found['attempt_log'][0]['error'])

    def test_receiver_that_never_answers_ends_in_dead_letters(self):
        self.conf.set_override('delivery_timeout', 0.2,
                               group='notifications')
        self.conf.set_override('max_attempts', 3, group='notifications')
        receiver = self.useFixture(webhook_receiver.Receiver(['hang'] * 9))
        subscription = self.subscribe(receiver, events=['lease.created'])
        self.add_host('h1')
        self.create()
        self.deliver(times=5)
        [found] = self.deliveries(subscription)
        self.assertEqual('DEAD', found['status'])
        self.assertEqual(3, found['attempts'])
        self.assertEqual(3, len(found['attempt_log']))
        self.assertIn('timed out', found['last_error'])
        self.assertEqual(3, len(receiver.received))
        # The dead letter in the metrics; no backlog left.
        metrics = self.request('GET', '/metrics').text
        self.assertIn('blazar_ext_webhook_deliveries{status="DEAD"} 1.0',
                      metrics)
        self.assertIn('blazar_ext_webhook_deliveries{status="PENDING"} 0.0',
                      metrics)

    def test_backoff_waits_between_attempts(self):
        self.conf.set_override('retry_base', 60, group='notifications')
        receiver = self.useFixture(webhook_receiver.Receiver([503]))
        self.subscribe(receiver, events=['lease.created'])
        self.add_host('h1')
        self.create()
        self.deliver(times=3)
        self.assertEqual(1, len(receiver.received))
        # The retry is due 30 to 60 seconds later.
        self.deliver(minutes=1.1)
        self.assertEqual(2, len(receiver.received))

    def test_a_project_hears_its_own_leases_admins_all(self):
        mine = self.useFixture(webhook_receiver.Receiver())
        everyone = self.useFixture(webhook_receiver.Receiver())
        member = {'X-User-Id': 'bob', 'X-Project-Id': 'demo',
                  'X-Roles': 'member,reader'}
        resp = self.request('POST', '/v1/subscriptions', {
            'url': mine.url, 'events': ['lease.created'], 'secret': SECRET},
            headers=member, token=None)
        self.assertEqual(201, resp.status, resp.text)
        self.subscribe(everyone, events=['lease.created'],
                       all_projects=True)
        self.add_host('h1')
        self.add_host('h2')
        self.create('admins')
        theirs = self.create('theirs', headers=member)
        self.deliver()
        self.assertEqual([theirs['id']],
                         [e['subject'] for e in mine.events()])
        self.assertEqual(2, len(everyone.events()))

    def test_redirects_are_not_followed(self):
        receiver = self.useFixture(webhook_receiver.Receiver([302]))
        subscription = self.subscribe(receiver, events=['lease.created'])
        self.add_host('h1')
        self.create()
        self.deliver()
        [found] = self.deliveries(subscription)
        self.assertEqual(302, found['last_status_code'])
        self.assertIn('not followed', found['last_error'])

    def test_maintenance_scheduled_over_a_lease_arrives_once(self):
        receiver = self.useFixture(webhook_receiver.Receiver())
        self.subscribe(receiver, events=['maintenance.scheduled'])
        h0 = self.add_host('h0')
        lease = self.create(start=60, end=120)
        self.add_host('h1')
        resp = self.request('POST', '/v1/os-hosts/%s/maintenance' % h0['id'],
                            {'start_date': base.lease_date(30),
                             'end_date': base.lease_date(600),
                             'reason': 'new disks'})
        self.assertEqual(201, resp.status, resp.text)
        self.deliver(times=2)
        [event] = receiver.events()
        self.assertEqual('maintenance.scheduled', event['type'])
        self.assertEqual(lease['id'], event['subject'])
        self.assertTrue(cloudevents.verify(
            SECRET, receiver.received[0]['headers'][
                cloudevents.SIGNATURE_HEADER],
            receiver.received[0]['body'], time.time()))


TestDeliveriesMySQL, TestDeliveriesPostgreSQL = (
    backends.on_each_backend(TestDeliveries))


class TestDeliveryThread(base.HostServiceTestCase):

    def test_the_manager_delivers_by_itself(self):
        self.conf.set_override('allow_private_targets', True,
                               group='notifications')
        receiver = self.useFixture(webhook_receiver.Receiver())
        resp = self.request('POST', '/v1/subscriptions', {
            'url': receiver.url, 'events': ['lease.created'],
            'secret': SECRET})
        self.assertEqual(201, resp.status, resp.text)
        self.add_host('h1')
        lease = self.create()
        for _ in range(300):
            if receiver.received:
                break
            time.sleep(0.1)
        self.assertEqual([lease['id']],
                         [e['subject'] for e in receiver.events()])

    def test_a_create_wakes_the_delivery_thread_only_for_a_subscription(
            self):
        # Notifications off (the default) and nobody subscribed: nothing
        # for the delivery thread to do, so a create neither wakes it nor
        # looks for notifications. A subscription of the project, even to
        # other events, or a notification driver brings both back.
        # The thread's own polls would look too: stopped.
        self.manager.service.delivery_loop.stop()
        woken, looked = [], []
        self.useFixture(fixtures.MockPatchObject(
            delivery, 'wake', lambda: woken.append(1)))
        send = delivery.Dispatcher.send_notifications
        self.useFixture(fixtures.MockPatchObject(
            delivery.Dispatcher, 'send_notifications',
            lambda self, *a, **k: looked.append(1) or send(self, *a, **k)))
        self.add_host('h1')
        self.create(name='alone', start=10, end=20)
        self.assertEqual(([], []), (woken, looked))
        self.conf.set_override('driver', ['log'],
                               group='oslo_messaging_notifications')
        self.create(name='notified', start=30, end=40)
        self.assertEqual(([], [1]), (woken, looked))
        self.conf.clear_override('driver',
                                 group='oslo_messaging_notifications')
        self.conf.set_override('allow_private_targets', True,
                               group='notifications')
        receiver = self.useFixture(webhook_receiver.Receiver())
        resp = self.request('POST', '/v1/subscriptions', {
            'url': receiver.url, 'events': ['lease.deleted'],
            'secret': SECRET})
        self.assertEqual(201, resp.status, resp.text)
        self.create(name='subscribed', start=50, end=60)
        self.assertEqual(([1], [1]), (woken, looked))


class TestSharedWork(WebhookTestCase):
    """Several managers share the deliveries; a dead one's claims are
    taken over."""

    def record(self, count: int, subjects: int) -> list:
        ctx = context.get_admin_context()
        ids = []
        with db_session.writer.using(ctx) as session:
            for n in range(count):
                ids.append(outbox_api.record(
                    session, 'lease.updated',
                    {'id': 'lease-%d' % (n % subjects), 'n': n},
                    project_id='demo'))
        return ids

    def test_two_managers_deliver_each_event_once_in_order(self):
        receiver = self.useFixture(webhook_receiver.Receiver())
        self.subscribe(receiver, events=['lease.updated'],
                       all_projects=True)
        self.conf.set_override('batch_size', 7, group='notifications')
        ids = self.record(120, subjects=10)
        other = delivery.DeliveryLoop(delivery.Dispatcher(
            self.manager.service.endpoint.leases))
        self.addCleanup(other.dispatcher.close)
        threads = [threading.Thread(target=loop.run_once)
                   for loop in (self.loop, other)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.deliver(times=3)
        events = receiver.events()
        self.assertEqual(sorted(ids), sorted(e['id'] for e in events))
        for subject in {e['subject'] for e in events}:
            numbers = [e['data']['n'] for e in events
                       if e['subject'] == subject]
            self.assertEqual(sorted(numbers), numbers)

    def test_a_dead_managers_claims_are_taken_over(self):
        receiver = self.useFixture(webhook_receiver.Receiver())
        self.subscribe(receiver, events=['lease.updated'],
                       all_projects=True)
        ids = self.record(5, subjects=5)
        ctx = context.get_admin_context()
        timeout = self.conf.notifications.claim_timeout
        # A manager claims them all and dies before posting.
        claimed = outbox_api.deliveries_claim(ctx, timeutils.utcnow(),
                                              timeout)
        self.assertEqual(5, len(claimed))
        self.deliver()
        self.assertEqual([], receiver.received)
        self.deliver(minutes=timeout / 60.0 + 1)
        self.assertEqual(sorted(ids),
                         sorted(e['id'] for e in receiver.events()))

    def test_answers_recorded_despite_a_passing_database_error(self):
        receiver = self.useFixture(webhook_receiver.Receiver())
        self.subscribe(receiver, events=['lease.updated'],
                       all_projects=True)
        ids = self.record(3, subjects=3)
        real = outbox_api.deliveries_finish
        failures = []

        def finish(ctx, results):
            if len(failures) < 2:  # "database is locked", twice
                failures.append(results)
                raise db_exc.DBError('database is locked')
            return real(ctx, results)

        self.useFixture(fixtures.MockPatchObject(
            outbox_api, 'deliveries_finish', side_effect=finish))
        self.deliver()
        timeout = self.conf.notifications.claim_timeout
        self.deliver(minutes=timeout / 60.0 + 1)
        # Recorded on the third try: not posted again after the timeout.
        self.assertEqual(2, len(failures))
        self.assertEqual(sorted(ids), sorted(e['id'] for e in
                                             receiver.events()))

    def test_no_notification_driver_no_notification_to_claim(self):
        # oslo.messaging's default: no driver, so nothing to send; the
        # events need no claim-and-finish commits (webhooks still get
        # them). ``noop`` is the same; any other driver wants them.
        ctx = context.get_admin_context()
        now = timeutils.utcnow()
        for drivers, wanted in (([], 0), (['noop'], 0), (['log'], 2)):
            self.conf.set_override('driver', drivers,
                                   group='oslo_messaging_notifications')
            self.record(2, subjects=1)
            claimed = outbox_api.notifications_claim(
                ctx, now + datetime.timedelta(seconds=1),
                self.conf.notifications.claim_timeout)
            self.assertEqual(wanted, len(claimed), drivers)

    def test_notifications_claimed_once_in_a_batch_and_taken_over(self):
        self.conf.set_override('driver', ['log'],
                               group='oslo_messaging_notifications')
        ids = self.record(30, subjects=3)
        ctx = context.get_admin_context()
        timeout = self.conf.notifications.claim_timeout
        now = timeutils.utcnow()
        found = []

        def claim():
            found.append(outbox_api.notifications_claim(ctx, now, timeout))

        threads = [threading.Thread(target=claim) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        # Of two managers claiming at once, each event goes to one.
        claimed = [e['id'] for batch in found for e in batch]
        self.assertEqual(sorted(ids), sorted(claimed))
        self.assertEqual([], outbox_api.notifications_claim(ctx, now,
                                                            timeout))
        # The claimer died: after the timeout another takes them all.
        later = now + datetime.timedelta(seconds=timeout + 1)
        again = outbox_api.notifications_claim(ctx, later, timeout)
        self.assertEqual(sorted(ids), sorted(e['id'] for e in again))
        outbox_api.notifications_done(ctx, [e['seq'] for e in again])
        self.assertEqual([], outbox_api.notifications_claim(
            ctx, later + datetime.timedelta(seconds=timeout + 1), timeout))


TestSharedWorkMySQL, TestSharedWorkPostgreSQL = (
    backends.on_each_backend(TestSharedWork))
