"""The managers' side of the outbox: oslo.messaging notifications,
lease.ending_soon, and webhook deliveries with retries.

A manager that records events calls ``Dispatcher.flush`` once the
transaction has committed: the notifications go out at once and the
delivery thread wakes. The delivery thread also polls every
[notifications] delivery_interval, so that what another manager
recorded, or left behind when it died, goes out too.
"""

import concurrent.futures
import datetime
import random
import threading
import time

from oslo_config import cfg
from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_utils import timeutils

from blazar_ext import context as blazar_context
from blazar_ext.db.api import outbox as outbox_api
from blazar_ext import exceptions
from blazar_ext.manager import periodic
from blazar_ext.notifications import catalog
from blazar_ext.notifications import cloudevents
from blazar_ext.notifications import webhook
from blazar_ext import rpc

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

# Set when this process recorded events: its delivery thread wakes.
_WAKE = threading.Event()
# The manager that records an event sends its notification itself, at
# once (Dispatcher.flush); the delivery thread sends those older than
# this only, left behind by a manager that died or failed to send.
NOTIFY_GRACE = datetime.timedelta(seconds=10)
# Rounds of deliveries in one run at most (each round claims a batch).
MAX_ROUNDS = 1000
# Tries at recording a group of answers (about 6 s in all).
FINISH_TRIES = 8


def wake() -> None:
    _WAKE.set()


def backoff(attempts: int, rng=random.random) -> float:
    """Seconds before the next attempt after ``attempts`` failed ones:
    exponential, capped at [notifications] retry_max, with jitter (half to
    all of it)."""
    opts = CONF.notifications
    delay = min(opts.retry_max, opts.retry_base * 2 ** max(attempts - 1, 0))
    return delay * (0.5 + rng() / 2)


class Dispatcher:
    """Sends what the outbox holds; one per manager process."""

    def __init__(self, lease_manager=None):
        self.leases = lease_manager
        self._notifier = None
        self._pool = None

    def flush(self, context=None) -> None:
        """After a commit that recorded events: notify now, deliver soon.

        Only what this thread's events left to do: with notifications off
        and no subscription for their project (the embedded default), a
        lease create neither looks for notifications nor wakes the
        delivery thread, whose three reads competed with the request for
        the interpreter. The delivery thread's polls still find
        everything.
        """
        notifications, deliveries = outbox_api.take_unsent()
        if notifications:
            try:
                self.send_notifications(context)
            except Exception:  # the outbox keeps them; the loop retries
                LOG.exception('Could not send notifications now; will '
                              'retry')
        if deliveries:
            wake()

    # oslo.messaging

    def send_notifications(self, context=None,
                           now: datetime.datetime | None = None,
                           left_behind: bool = False) -> int:
        """Claim and send every pending notification (with
        ``left_behind``, those pending for NOTIFY_GRACE); how many."""
        context = context or blazar_context.get_admin_context()
        now = now or timeutils.utcnow()
        sent = 0
        while True:
            claimed = outbox_api.notifications_claim(
                context, now, CONF.notifications.claim_timeout,
                recorded_before=now - NOTIFY_GRACE if left_behind else None)
            if not claimed:
                return sent
            if self._notifier is None:  # made once there is one to send
                self._notifier = rpc.get_notifier('blazar_ext.manager')
            for event in claimed:
                name = catalog.get(event['event_type']).notification
                try:
                    self._notifier.info(context, name,
                                        jsonutils.loads(event['payload']))
                except Exception:  # a broken notifier must not stop webhooks
                    LOG.exception('Could not send the %s notification',
                                  name)
            outbox_api.notifications_done(context,
                                          [e['seq'] for e in claimed])
            sent += len(claimed)

    # lease.ending_soon

    def schedule_ending_soon(self, context,
                             now: datetime.datetime) -> list:
        """Record lease.ending_soon for each lease entering a lead time
        (once, whichever manager comes first); the event ids."""
        recorded = []
        for lease_id, end_date, lead in outbox_api.ending_soon_wanted(
                context, now):
            try:
                lease = self.leases.lease_get(context, lease_id)
            except exceptions.LeaseNotFound:
                continue
            event_id = outbox_api.record_once(
                context, catalog.ENDING_SOON, dict(lease, lead_time=lead),
                outbox_api.ending_soon_key(lease_id, end_date, lead),
                lead_time=lead)
            if event_id:
                recorded.append(event_id)
        return recorded

    # Webhooks

    def deliver(self, context, now: datetime.datetime | None = None,
                stopping=lambda: False) -> list:
        """Claim and attempt due deliveries, round after round while
        some succeed (each success may free the next event of its
        queue); the results."""
        results = []
        for _round in range(MAX_ROUNDS):
            if stopping():
                break
            claimed = outbox_api.deliveries_claim(
                context, now or timeutils.utcnow(),
                CONF.notifications.claim_timeout,
                CONF.notifications.batch_size)
            if not claimed:
                break
            done = self._attempt_all(claimed)
            results.extend(done)
            if not any(r['status'] == outbox_api.DELIVERED for r in done):
                break
        return results

    def _attempt_all(self, claimed: list) -> list:
        """POST each claimed delivery from the pool and record the
        answers in group commits: whatever has been answered when the
        previous commit ends goes in the next one. One transaction per
        group, not per event, and an answer waits for one commit at most
        before it is recorded (the window in which a manager dying
        would leave an answered event to be sent again)."""
        pending = {self._executor().submit(self.attempt, d)
                   for d in claimed}
        results = []
        while pending:
            ready, pending = concurrent.futures.wait(
                pending, return_when=concurrent.futures.FIRST_COMPLETED)
            group = []
            for future in ready:
                try:
                    group.append(future.result())
                except Exception:  # left claimed: retried after the timeout
                    LOG.exception('A webhook delivery attempt failed')
            self._finish(group)
            results.extend(group)
        return results

    @staticmethod
    def _finish(group: list) -> None:
        """Record answers, trying again on any database error (SQLite's
        "database is locked" under load): answers dropped here would be
        posted again once the claim times out. Recording twice is
        harmless: the UPDATE is guarded by the claim token."""
        for attempt in range(FINISH_TRIES):
            try:
                outbox_api.deliveries_finish(
                    blazar_context.get_admin_context(), group)
                return
            except Exception:
                if attempt == FINISH_TRIES - 1:
                    LOG.exception('Could not record %d webhook answers; '
                                  'they will be sent again after '
                                  '[notifications] claim_timeout',
                                  len(group))
                    return
                time.sleep(min(2.0, 0.05 * 2 ** attempt))

    def _executor(self) -> concurrent.futures.Executor:
        if self._pool is None:
            self._pool = concurrent.futures.ThreadPoolExecutor(
                CONF.notifications.delivery_workers,
                thread_name_prefix='blazar-ext-webhook')
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def attempt(self, delivery: dict) -> dict:
        """POST one claimed delivery; its result for deliveries_finish."""
        opts = CONF.notifications
        event = cloudevents.envelope(
            delivery['event_id'], delivery['event_type'], opts.event_source,
            delivery['subject'], delivery['time'],
            jsonutils.loads(delivery['payload']))
        body = cloudevents.body(event, opts.max_event_bytes)
        timestamp = int(time.time())
        attempted_at = timeutils.utcnow()
        outcome = webhook.post(
            delivery['url'], body,
            {'Content-Type': cloudevents.CONTENT_TYPE,
             'User-Agent': 'blazar-ext-webhooks',
             cloudevents.SIGNATURE_HEADER: cloudevents.signature_header(
                 delivery['secret'], timestamp, body)},
            opts.delivery_timeout, opts.max_response_bytes,
            opts.allow_private_targets)
        attempts = delivery['attempts'] + 1
        if outcome.ok:
            status, next_at = outbox_api.DELIVERED, None
        elif attempts >= opts.max_attempts:
            status, next_at = outbox_api.DEAD, None
            LOG.warning('Webhook delivery %s of event %s dead-lettered '
                        'after %d attempts: %s', delivery['id'],
                        delivery['event_id'], attempts, outcome.error)
        else:
            status = outbox_api.PENDING
            next_at = attempted_at + datetime.timedelta(
                seconds=backoff(attempts))
        return {'id': delivery['id'],
                'claim_token': delivery['claim_token'],
                'event_id': delivery['event_id'],
                'attempted_at': attempted_at,
                'status_code': outcome.status_code, 'error': outcome.error,
                'duration_ms': outcome.duration_ms, 'status': status,
                'next_attempt_at': next_at}


class DeliveryLoop(periodic.PeriodicThread):
    """A daemon thread running the dispatcher every [notifications]
    delivery_interval, and at once when this process recorded events."""

    thread_name = 'blazar-ext-delivery'

    def __init__(self, dispatcher: Dispatcher):
        self.dispatcher = dispatcher
        super().__init__()

    def interval(self) -> float:
        return CONF.notifications.delivery_interval

    def run_once(self, now: datetime.datetime | None = None) -> list:
        """Notifications, ending_soon events, then webhook deliveries;
        the delivery results."""
        context = blazar_context.get_admin_context()
        self.dispatcher.send_notifications(context, now, left_behind=True)
        self.dispatcher.schedule_ending_soon(context,
                                             now or timeutils.utcnow())
        # ending_soon events have no notification; deliveries may now
        # include them.
        return self.dispatcher.deliver(context, now, self.stopping)

    def stop(self) -> None:
        self._stop.set()
        _WAKE.set()
        super().stop()
        self.dispatcher.close()

    def _run(self) -> None:
        last = time.monotonic()
        while not self._stop.is_set():
            woken = _WAKE.wait(min(periodic.TICK, self.interval()))
            if self._stop.is_set():
                break
            if not woken and time.monotonic() - last < self.interval():
                continue
            _WAKE.clear()
            last = time.monotonic()
            try:
                self.run_once()
            except Exception:  # keep the thread alive; retried next time
                LOG.exception('%s failed; will retry', self.thread_name)
