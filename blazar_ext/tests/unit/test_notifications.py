"""Pure parts of the webhooks: signatures, CloudEvents bodies, target
checks, backoff, the event catalog."""

import ipaddress
import json
import time
from unittest import mock

from blazar_ext import exceptions
from blazar_ext.manager import delivery
from blazar_ext.notifications import catalog
from blazar_ext.notifications import cloudevents
from blazar_ext.notifications import targets
from blazar_ext.tests import base


class TestSignature(base.TestCase):

    def test_receiver_verification(self):
        body = b'{"id": "e1"}'
        header = cloudevents.signature_header('secret', 1000, body)
        self.assertTrue(header.startswith('t=1000,v1='))
        self.assertTrue(cloudevents.verify('secret', header, body, 1100))
        # Another secret, another body, an old timestamp, garbage.
        self.assertFalse(cloudevents.verify('other', header, body, 1100))
        self.assertFalse(cloudevents.verify('secret', header, body + b' ',
                                            1100))
        self.assertFalse(cloudevents.verify('secret', header, body, 2000))
        self.assertFalse(cloudevents.verify('secret', 'nonsense', body, 0))

    def test_signature_covers_timestamp_and_body(self):
        self.assertNotEqual(cloudevents.signature('s', 1, b'x'),
                            cloudevents.signature('s', 2, b'x'))


class TestBody(base.TestCase):

    def test_envelope_and_truncation(self):
        lease = {'id': 'L', 'name': 'n', 'status': 'ACTIVE',
                 'reservations': ['x' * 5000]}
        event = cloudevents.envelope('e1', 'lease.started', '/src', 'L',
                                     '2026-01-01T00:00:00.000000', lease)
        self.assertEqual('1.0', event['specversion'])
        self.assertEqual('2026-01-01T00:00:00.000000Z', event['time'])
        whole = json.loads(cloudevents.body(event, 100000))
        self.assertEqual(lease, whole['data'])
        cut = json.loads(cloudevents.body(event, 1000))
        self.assertEqual({'id': 'L', 'name': 'n', 'status': 'ACTIVE'},
                         cut['data'])
        self.assertTrue(cut['datatruncated'])


class TestTargets(base.TestCase):

    def test_scheme_and_credentials(self):
        for url, named in (('ftp://example.com/', "'ftp'"),
                           ('example.com/hook', "''"),
                           ('http:///path', 'no host'),
                           ('https://u:p@example.com/', 'credentials'),
                           ('http://example.com:99999/', 'valid')):
            error = self.assertRaises(exceptions.Invalid, targets.check,
                                      url, True)
            self.assertIn(named, str(error))

    def test_private_addresses(self):
        for address in ('127.0.0.1', '10.0.0.1', '192.168.1.1',
                        '172.16.0.1', '169.254.169.254', '100.64.0.1',
                        '::1', 'fe80::1', 'fd00::1', '0.0.0.0',
                        '::ffff:127.0.0.1', '224.0.0.1'):
            self.assertFalse(
                targets.is_public(ipaddress.ip_address(address)), address)
        self.assertTrue(targets.is_public(ipaddress.ip_address('8.8.8.8')))

    def test_names_resolving_to_private_addresses(self):
        with mock.patch.object(targets, '_addresses', return_value=[
                ipaddress.ip_address('10.0.0.5')]):
            error = self.assertRaises(exceptions.Invalid, targets.check,
                                      'https://internal.example/', False)
            self.assertIn('10.0.0.5', str(error))
            targets.check('https://internal.example/', True)
        with mock.patch.object(targets, '_addresses', return_value=[]):
            self.assertIn('does not resolve', str(self.assertRaises(
                exceptions.Invalid, targets.check, 'https://nx.example/',
                False)))


class TestBackoff(base.TestCase):

    def test_exponential_with_jitter_up_to_the_limit(self):
        self.conf.set_override('retry_base', 2, group='notifications')
        self.conf.set_override('retry_max', 60, group='notifications')
        self.assertEqual([2, 4, 8, 16, 32, 60, 60], [
            delivery.backoff(n, rng=lambda: 1.0) for n in range(1, 8)])
        self.assertEqual(1, delivery.backoff(1, rng=lambda: 0.0))


class TestCatalog(base.TestCase):

    def test_register_is_idempotent_and_one_name_one_meaning(self):
        self.addCleanup(catalog.EVENTS.pop, 'test.thing', None)
        first = catalog.register('test.thing', None, 'x')
        self.assertIs(first, catalog.get('test.thing'))
        catalog.register('test.thing', None, 'x')
        self.assertRaises(ValueError, catalog.register, 'test.thing',
                          'test.other', 'x')
        self.assertIn('lease.ending_soon', catalog.names())


class TestGroupCommit(base.TestCase):
    """Answers are recorded in groups: those answered while the previous
    group committed go in one transaction, not one each."""

    def test_answers_during_a_commit_share_the_next(self):
        self.conf.set_override('delivery_workers', 4, group='notifications')
        dispatcher = delivery.Dispatcher()
        self.addCleanup(dispatcher.close)
        claimed = [{'id': 'd%d' % n} for n in range(10)]
        groups = []

        def finish(_context, results):
            groups.append([r['id'] for r in results])
            if len(groups) == 1:
                time.sleep(0.3)  # meanwhile every other answer arrives

        with mock.patch.object(dispatcher, 'attempt',
                               side_effect=lambda d: dict(d)), \
                mock.patch.object(delivery.outbox_api, 'deliveries_finish',
                                  side_effect=finish):
            results = dispatcher._attempt_all(claimed)
        self.assertEqual(10, len(results))
        self.assertEqual(sorted(d['id'] for d in claimed),
                         sorted(sum(groups, [])))
        self.assertLessEqual(len(groups), 3)

    def test_a_failed_attempt_leaves_the_others_recorded(self):
        dispatcher = delivery.Dispatcher()
        self.addCleanup(dispatcher.close)

        def attempt(d):
            if d['id'] == 'bad':
                raise ValueError('boom')
            return dict(d)

        recorded = []
        with mock.patch.object(dispatcher, 'attempt', side_effect=attempt), \
                mock.patch.object(delivery.outbox_api, 'deliveries_finish',
                                  side_effect=lambda c, r: recorded.extend(
                                      x['id'] for x in r)):
            dispatcher._attempt_all([{'id': 'bad'}, {'id': 'good'}])
        self.assertEqual(['good'], recorded)
