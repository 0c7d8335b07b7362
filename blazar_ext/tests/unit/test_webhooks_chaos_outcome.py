"""The webhook chaos test's judgement of repeats
(tools/chaos/webhooks_kill.py): a repeat is explained by a SIGKILLed
claimant, not by timing."""

import os
import socket

from oslotest import base

from blazar_ext.tests import fixtures as blazar_fixtures

EVENT = 'e1'


class OutcomeTest(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.tool = self.useFixture(
            blazar_fixtures.ChaosTool('webhooks_kill')).module

    def outcome(self, copies: list, killed: dict, recorded: int = 1):
        """One event received as ``copies`` [(when, sender pid)]."""
        return self.tool.Outcome(
            seconds=30, kills=sorted(killed.values()),
            outbox={EVENT: 'lease.created'},
            deliveries=[(EVENT, 'DELIVERED')],
            counts={EVENT: len(copies)}, types={'lease.created': 2},
            unsigned=0, copies={EVENT: copies}, killed=killed,
            recorded={EVENT: recorded}, requests='')

    def assertExplained(self, outcome):
        self.assertEqual({}, outcome.unexplained())

    def assertUnexplained(self, outcome):
        self.assertEqual({EVENT: len(outcome.copies[EVENT])},
                         outcome.unexplained())

    def test_takeover_after_kill_explained(self):
        # Sent by 101, which was killed 5 s later (its record slow under
        # load), then sent again by 202 once the claim went stale.
        self.assertExplained(self.outcome(
            [(10.0, 101), (23.0, 202)], {101: 15.0}))

    def test_copy_read_after_its_sender_died_explained(self):
        # The receiver read the POST after the kill: still 101's copy.
        self.assertExplained(self.outcome(
            [(10.0, 101), (19.0, 202)], {101: 9.9}))

    def test_two_takeovers_explained(self):
        self.assertExplained(self.outcome(
            [(10.0, 101), (19.0, 202), (28.0, 303)],
            {101: 10.2, 202: 19.1}))

    def test_repeats_counted_by_first_sender(self):
        outcome = self.tool.Outcome(
            seconds=30, kills=[10.2], outbox={}, deliveries=[],
            counts={'a': 2, 'b': 2, 'c': 1, 'd': 3},
            types={}, unsigned=0,
            copies={'a': [(19.0, 202), (10.0, 101)],
                    'b': [(10.1, 101), (19.1, 202)],
                    'c': [(11.0, 202)],
                    'd': [(12.0, 303), (20.0, 202), (25.0, 202)]},
            killed={101: 10.2, 303: 12.5}, recorded={}, requests='')
        self.assertEqual({101: 2, 303: 1}, outcome.repeats_by_sender())

    def test_same_sender_unexplained(self):
        # 101 sent it twice; a kill of 101 in between explains nothing.
        self.assertUnexplained(self.outcome(
            [(10.0, 101), (19.0, 101)], {101: 10.2}))

    def test_two_live_senders_unexplained(self):
        self.assertUnexplained(self.outcome(
            [(10.0, 101), (10.1, 202)], {}, recorded=2))

    def test_sender_killed_after_the_resend_unexplained(self):
        self.assertUnexplained(self.outcome(
            [(10.0, 101), (19.0, 202)], {101: 25.0}))

    def test_killed_sender_had_recorded_unexplained(self):
        # Both successes recorded: 101 recorded its answer before it was
        # killed, so sending it again was a fault.
        self.assertUnexplained(self.outcome(
            [(10.0, 101), (19.0, 202)], {101: 12.0}, recorded=2))

    def test_unknown_sender_unexplained(self):
        self.assertUnexplained(self.outcome(
            [(10.0, None), (19.0, 202)], {101: 10.2}))

    def test_later_copy_unexplained_too(self):
        # The first resend is a takeover, the third copy 202's own.
        self.assertUnexplained(self.outcome(
            [(10.0, 101), (19.0, 202), (21.0, 202)], {101: 10.2}))

    def test_report_tells_the_unexplained_story(self):
        thrown = self.outcome([(10.0, 101), (19.0, 101)],
                              {101: 10.2}).thrown()
        self.assertIn('event e1: copies -0.20 from 101, 8.80 from 101; '
                      'successes recorded: 1; kills: 101 at 0.00',
                      thrown[-1])


class SenderPidTest(base.BaseTestCase):
    """The receiver names the process holding a connection's client end
    (Linux /proc), here this one over loopback."""

    def setUp(self):
        super().setUp()
        self.tool = self.useFixture(
            blazar_fixtures.ChaosTool('webhooks_kill')).module
        server = socket.create_server(('127.0.0.1', 0))
        self.addCleanup(server.close)
        self.server_port = server.getsockname()[1]
        client = socket.create_connection(('127.0.0.1', self.server_port))
        self.addCleanup(client.close)
        self.client_port = client.getsockname()[1]

    def test_own_connection(self):
        self.assertEqual(os.getpid(), self.tool.sender_pid(
            self.client_port, self.server_port, [1, os.getpid()]))

    def test_not_among_the_candidates(self):
        self.assertIsNone(self.tool.sender_pid(
            self.client_port, self.server_port, [1]))

    def test_no_such_connection(self):
        # Nothing connects from the listening port to itself.
        self.assertIsNone(self.tool.sender_pid(
            self.server_port, self.server_port, [os.getpid()]))
