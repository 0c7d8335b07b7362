"""Series and budget events (issue 32) reach a real HTTP receiver in the
test process once each, in order, and only the owning project's
subscriptions hear them."""

import datetime

from oslo_utils import timeutils
import sqlalchemy as sa

from blazar_ext.manager import delivery
from blazar_ext.tests import base
from blazar_ext.tests import fixtures
from blazar_ext.tests.functional import backends
from blazar_ext.tests.functional.budgets import base as budget_base
from blazar_ext.tests.functional import webhook_receiver

SECRET = 'a-secret-of-twenty-chars'
P2 = fixtures.user_headers(project='p2', user='u2')


class _Webhooks:
    """Deliveries run when the test says so; receivers subscribe."""

    def deliver_by_hand(self) -> None:
        for name, value in {'allow_private_targets': True,
                            'retry_base': 0}.items():
            self.conf.set_override(name, value, group='notifications')
        self.manager.service.delivery_loop.stop()
        self.loop = delivery.DeliveryLoop(
            self.manager.service.endpoint.leases.outbox)
        self.addCleanup(self.loop.dispatcher.close)

    def receiver(self, events: list, headers=None):
        receiver = self.useFixture(webhook_receiver.Receiver())
        resp = self.request('POST', '/v1/subscriptions',
                            {'url': receiver.url, 'events': events,
                             'secret': SECRET}, headers=headers)
        self.assertEqual(201, resp.status, resp.text)
        return receiver

    def deliver(self, times: int = 3) -> None:
        for _ in range(times):
            self.loop.run_once(timeutils.utcnow())

    def assertOnce(self, receiver) -> list:
        events = receiver.events()
        self.assertEqual(len(events), len({e['id'] for e in events}))
        return events


class TestSeriesEvents(_Webhooks, base.LeaseTestCase):

    def series(self, recurrence: str, start: datetime.datetime,
               end: datetime.datetime) -> dict:
        return self.create(name='lab', start=start.strftime(base.FMT),
                           end=end.strftime(base.FMT),
                           recurrence=recurrence)

    def setUp(self):
        super().setUp()
        self.deliver_by_hand()

    def test_series_events_once_in_order(self):
        self.conf.set_override('series_horizon_days', 2, group='manager')
        receiver = self.receiver(['series.created', 'series.extended',
                                  'series.updated', 'series.deleted',
                                  'series.occurrence_skipped'])
        other = self.receiver(['series.created'], headers=P2)
        self.add_host('h1')
        # Whole minutes, an hour ahead (UTC).
        first = (timeutils.utcnow() + datetime.timedelta(hours=1)).replace(
            second=0, microsecond=0)
        lease = self.series('FREQ=DAILY;COUNT=4', first,
                            first + datetime.timedelta(hours=1))
        series_id = lease['series_id']
        second = (first + datetime.timedelta(days=1)).date().isoformat()
        self.assertEqual(200, self.request(
            'POST', '/v1/lease-series/%s/skip' % series_id,
            {'date': second}).status)
        task = self.manager.service.series_task
        later = timeutils.utcnow() + datetime.timedelta(days=1)
        task.run_once(later)
        task.run_once(later)  # nothing booked: no event
        self.assertEqual(200, self.request(
            'PATCH', '/v1/lease-series/%s' % series_id,
            {'name': 'renamed'}).status)
        self.assertEqual(204, self.request(
            'DELETE', '/v1/lease-series/%s' % series_id).status)
        self.deliver()
        events = self.assertOnce(receiver)
        self.assertEqual(
            ['series.created', 'series.occurrence_skipped',
             'series.extended', 'series.updated', 'series.deleted'],
            [e['type'] for e in events])
        created, skipped, extended, updated, deleted = (
            e['data'] for e in events)
        self.assertEqual({series_id}, {e['subject'] for e in events})
        self.assertEqual(series_id, created['id'])
        self.assertEqual(2, len(created['booked']))
        self.assertEqual(lease['id'], created['booked'][0])
        self.assertEqual(second, skipped['skipped']['date'])
        self.assertEqual(1, len(extended['booked']))
        self.assertEqual('renamed', updated['name'])
        self.assertEqual('DELETED', deleted['status'])
        self.assertNotIn('request', created)
        self.assertEqual([], other.events())


class TestBudgetEvents(_Webhooks, budget_base.BudgetTestCase):

    def setUp(self):
        super().setUp()
        self.deliver_by_hand()

    def test_budget_events_once_in_order(self):
        receiver = self.receiver(['budget.adjusted', 'budget.low',
                                  'budget.renewed'], headers=budget_base.P1)
        other = self.receiver(['budget.adjusted', 'budget.low'],
                              headers=P2)
        budget = self.budget(10, period='daily')
        resp = self.request('POST', '/v1/budgets/%s/adjust' % budget['id'],
                            {'amount': 10, 'reason': 'course week'})
        self.assertEqual(200, resp.status, resp.text)
        self.lease(hours=19)  # balance 1: under 10 % of 20
        self.lease(hours=1, name='second')  # 0: still low, no event
        with self.db.engine.begin() as conn:
            conn.execute(sa.text(
                "UPDATE budgets SET period_start = '2020-01-01 00:00:00'"))
        self.lease(hours=1, name='third')  # renewed, then 19 left
        self.deliver()
        events = self.assertOnce(receiver)
        self.assertEqual(['budget.adjusted', 'budget.low', 'budget.renewed'],
                         [e['type'] for e in events])
        adjusted, low, renewed = (e['data'] for e in events)
        self.assertEqual({budget['id']}, {e['subject'] for e in events})
        self.assertEqual((20.0, 10.0, 'course week'),
                         (adjusted['credits'], adjusted['amount'],
                          adjusted['reason']))
        self.assertEqual((1.0, 19.0), (low['balance'], low['amount']))
        self.assertEqual('p1', low['project_id'])
        self.assertEqual((20.0, 20.0),
                         (renewed['amount'], renewed['balance']))
        self.assertEqual([], other.events())

    def test_low_balance_percent_zero_sends_no_low(self):
        self.conf.set_override('low_balance_percent', 0, group='budgets')
        receiver = self.receiver(['budget.low'], headers=budget_base.P1)
        self.budget(10)
        self.lease(hours=10)
        self.deliver()
        self.assertEqual([], receiver.events())


TestSeriesEventsMySQL, TestSeriesEventsPostgreSQL = (
    backends.on_each_backend(TestSeriesEvents))
TestBudgetEventsMySQL, TestBudgetEventsPostgreSQL = (
    backends.on_each_backend(TestBudgetEvents))
