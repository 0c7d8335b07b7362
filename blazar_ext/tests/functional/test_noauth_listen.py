"""blazar-ext-all-in-one and blazar-ext-api under noauth, as real
processes: loopback by default, and no other address unless
[api] allow_insecure_noauth says so."""

import os

import fixtures
import testtools

from blazar_ext.tests.functional import services


class TestNoAuthListen(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.state = self.useFixture(fixtures.TempDir()).path
        self.port = services.free_port()

    def start(self, script: str, api: str,
              *args: str) -> services.ServiceProcess:
        config = os.path.join(self.state, '%s.conf' % script)
        with open(config, 'w') as f:
            f.write('[DEFAULT]\nstate_path = %s\n[api]\nport = %d\n'
                    'auth_strategy = noauth\n%s'
                    % (self.state, self.port, api))
        return self.useFixture(services.ServiceProcess(
            script, [services.script(script), '--config-file', config] +
            list(args), self.state))

    def wait_exit(self, process: services.ServiceProcess) -> int:
        services.wait_for(lambda: not process.running(), 60,
                          '%s to exit' % process.name)
        return process.process.returncode

    def test_all_in_one_refuses_every_address(self):
        process = self.start('blazar-ext-all-in-one', 'host = 0.0.0.0\n')
        self.assertEqual(1, self.wait_exit(process))
        log = process.log()
        self.assertIn('Refusing to start: auth_strategy = noauth on 0.0.0.0',
                      log)
        self.assertIn('allow_insecure_noauth = true', log)
        self.assertNotIn('serving on', log)
        # Refused before anything was written to the state directory.
        self.assertFalse(os.path.exists(
            os.path.join(self.state, 'blazar_ext.sqlite')))

    def test_api_refuses_every_address(self):
        process = self.start('blazar-ext-api', 'host = ::\n')
        self.assertEqual(1, self.wait_exit(process))
        self.assertIn('Refusing to start: auth_strategy = noauth on ::',
                      process.log())

    def test_all_in_one_listens_on_loopback_by_default(self):
        process = self.start('blazar-ext-all-in-one', '')
        url = 'http://127.0.0.1:%d/' % self.port
        services.wait_for(lambda: services.http_answers(url), 60,
                          'blazar-ext-all-in-one on %s' % url,
                          processes=[process])
        log = process.log()
        self.assertIn('listening on 127.0.0.1 (loopback) only', log)
        self.assertIn('serving on http://127.0.0.1:%d' % self.port, log)

    def test_all_in_one_on_every_address_when_allowed(self):
        process = self.start('blazar-ext-all-in-one',
                             'host = 0.0.0.0\nallow_insecure_noauth = true\n')
        url = 'http://127.0.0.1:%d/' % self.port
        services.wait_for(lambda: services.http_answers(url), 60,
                          'blazar-ext-all-in-one on %s' % url,
                          processes=[process])
        log = process.log()
        self.assertIn('allowed by [api] allow_insecure_noauth', log)
        self.assertIn('serving on http://0.0.0.0:%d' % self.port, log)
        self.assertNotIn('Eventlet is deprecated', log)

    def test_port_and_host_options_override_the_file(self):
        """--port and --host win over [api] port and host, and --host goes
        through the same noauth check."""
        port = services.free_port()
        process = self.start('blazar-ext-all-in-one', 'host = ::1\n',
                             '--host', '127.0.0.1', '--port', str(port))
        url = 'http://127.0.0.1:%d/' % port
        services.wait_for(lambda: services.http_answers(url), 60,
                          'blazar-ext-all-in-one on %s' % url,
                          processes=[process])
        self.assertIn('serving on http://127.0.0.1:%d' % port, process.log())
        self.assertFalse(services.http_answers(
            'http://127.0.0.1:%d/' % self.port))

        refused = self.start('blazar-ext-api', '', '--host', '0.0.0.0',
                             '--port', str(services.free_port()))
        self.assertEqual(1, self.wait_exit(refused))
        self.assertIn('Refusing to start: auth_strategy = noauth on 0.0.0.0',
                      refused.log())

    def test_placement_api_port_option(self):
        port = services.free_port()
        process = self.start('blazar-ext-placement-api', '',
                             '--port', str(port))
        url = 'http://127.0.0.1:%d/' % port
        services.wait_for(lambda: services.http_answers(url), 60,
                          'blazar-ext-placement-api on %s' % url,
                          processes=[process])
        self.assertIn('serving on http://127.0.0.1:%d' % port, process.log())
