"""Webhooks while managers are SIGKILLed, in the time CI allows:
tools/chaos/webhooks_kill.py's run, shortened (its long version runs for
minutes)."""

import fixtures
from oslotest import base

from blazar_ext.tests import fixtures as blazar_fixtures


class _WebhooksUnderKills:
    """Two managers over RabbitMQ, one SIGKILLed every few seconds while
    leases are created, renamed, deleted, healed and ended (each lasts
    5 to 12 s, so it ends within the test): every outbox event reaches
    the receiver, signed, and no event id arrives twice, except one whose
    sender was killed before it recorded the answer (the manager taking
    the claim over cannot know it arrived; the event id lets the
    receiver drop it): each earlier copy sent by a manager process
    SIGKILLed before the next copy came, from another process, and one
    success recorded (Outcome.explained)."""

    BACKEND = None

    def setUp(self):
        super().setUp()
        self.tool = self.useFixture(
            blazar_fixtures.ChaosTool('webhooks_kill')).module
        reason = self.tool.chaoslib.skip_reason(self.BACKEND)
        if reason:
            self.skipTest(reason)
        self.useFixture(fixtures.Timeout(150, gentle=True))

    def test_every_event_once(self):
        outcome = self.tool.chaos(self.BACKEND, seconds=15, every=2.5,
                                  seed=11, lease_seconds=(5, 12),
                                  settle_timeout=45, rpc_timeout=8)
        report = '\n'.join(outcome.thrown())
        self.assertGreater(len(outcome.kills), 2, report)
        self.assertGreater(len(outcome.outbox), 20, report)
        for kind in ('lease.created', 'lease.started', 'lease.ended',
                     'lease.ending_soon'):
            self.assertIn(kind, outcome.types, report)
        self.assertEqual([], outcome.lost, report)
        self.assertEqual({}, outcome.unexplained(), report)
        # One kill may leave several answered events unrecorded: the
        # POSTs in flight ([notifications] delivery_workers, 16) and the
        # answers waiting for the group commit under way, at most as
        # many again.
        for sender, repeats in outcome.repeats_by_sender().items():
            self.assertLessEqual(repeats, 2 * 16, report)


class TestWebhooksUnderKillsMySQL(_WebhooksUnderKills, base.BaseTestCase):
    BACKEND = 'mysql'


class TestWebhooksUnderKillsPostgreSQL(_WebhooksUnderKills,
                                       base.BaseTestCase):
    BACKEND = 'postgresql'
