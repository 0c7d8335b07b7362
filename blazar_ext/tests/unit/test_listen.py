"""Where the API listens under noauth and keystone."""

import fixtures

from blazar_ext.cmd import listen
from blazar_ext.tests import base


class TestApiHost(base.TestCase):

    def setUp(self):
        super().setUp()
        self.log = self.useFixture(fixtures.FakeLogger(
            name='blazar_ext.cmd.listen'))

    def test_noauth_defaults_to_loopback(self):
        self.conf.set_override('auth_strategy', 'noauth', group='api')
        self.assertEqual('127.0.0.1', listen.api_host(self.conf))
        self.assertEqual(1, len(self.log.output.splitlines()))
        self.assertIn('listening on 127.0.0.1 (loopback) only',
                      self.log.output)

    def test_keystone_defaults_to_every_address(self):
        self.conf.set_override('auth_strategy', 'keystone', group='api')
        self.assertEqual('0.0.0.0', listen.api_host(self.conf))
        self.conf.set_override('host', '192.0.2.1', group='api')
        self.assertEqual('192.0.2.1', listen.api_host(self.conf))
        self.assertEqual('', self.log.output)

    def test_noauth_refuses_other_addresses(self):
        self.conf.set_override('auth_strategy', 'noauth', group='api')
        for host in ('0.0.0.0', '::', '192.0.2.1'):
            self.conf.set_override('host', host, group='api')
            exc = self.assertRaises(listen.InsecureNoAuth,
                                    listen.api_host, self.conf)
            self.assertIn('allow_insecure_noauth', str(exc))
            self.assertIn(host, str(exc))

    def test_noauth_accepts_loopback_addresses(self):
        self.conf.set_override('auth_strategy', 'noauth', group='api')
        for host in ('127.0.0.1', '127.0.0.2', '::1', 'localhost'):
            self.conf.set_override('host', host, group='api')
            self.assertEqual(host, listen.api_host(self.conf))

    def test_noauth_elsewhere_when_allowed(self):
        self.conf.set_override('auth_strategy', 'noauth', group='api')
        self.conf.set_override('host', '0.0.0.0', group='api')
        self.conf.set_override('allow_insecure_noauth', True, group='api')
        self.assertEqual('0.0.0.0', listen.api_host(self.conf))
        self.assertEqual(1, len(self.log.output.splitlines()))
        self.assertIn('allowed by [api] allow_insecure_noauth',
                      self.log.output)

    def test_a_server_of_its_own_host_and_port(self):
        # blazar-ext-placement-api: [placement_api] host and port, the
        # same noauth rule, falling back on [api] host.
        self.conf.set_override('auth_strategy', 'noauth', group='api')
        self.assertEqual('127.0.0.1', listen.api_host(self.conf, None, 8778))
        self.conf.set_override('host', '127.0.0.2', group='api')
        self.assertEqual('127.0.0.2', listen.api_host(self.conf, None, 8778))
        exc = self.assertRaises(listen.InsecureNoAuth, listen.api_host,
                                self.conf, '0.0.0.0', 8778)
        self.assertIn('reaches port 8778', str(exc))
