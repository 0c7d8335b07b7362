"""The rates file with real blazar-ext-manager processes over RabbitMQ: a
bad file stops a manager at start with the line that is wrong; SIGHUP
reloads it, and a bad reload keeps the rates in force and logs why.

Quotes go through the API to the manager, so they show the manager's
rates. Skips with the reason when RabbitMQ or PostgreSQL does not answer.
"""

import os
import signal
import time

import fixtures
from oslotest import base
import requests

from blazar_ext.tests.functional import services

ADMIN = {'X-Auth-Token': 'admin'}
P1 = {'X-Project-Id': 'p1', 'X-User-Id': 'u1', 'X-Roles': 'member'}
RATES = """\
rates:
  - resource_type: physical:host
    properties: ["==", "$gpu", "true"]
    credits_per_hour: %s
"""
# Line 3 does not parse.
BAD = """\
rates:
  - resource_type: physical:host
    properties: ["~~", "$gpu", "true"]
    credits_per_hour: 9
"""


class TestRatesFileProcesses(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.Timeout(240, gentle=True))
        for reason in (services.rabbitmq_unavailable(),
                       services.database_unavailable('postgresql')):
            if reason:
                self.skipTest(reason)
        self.dir = self.useFixture(fixtures.TempDir()).path
        self.rates = os.path.join(self.dir, 'rates.yaml')
        self.write(RATES % 4)
        self.deployment = self.useFixture(services.Deployment(
            'postgresql', managers=1, extra_config=(
                '[enforcement]\nenabled_filters = BudgetFilter\n'
                '[budgets]\nrates_file = %s\n' % self.rates)))
        self.url = self.deployment.endpoint
        resp = requests.post(self.url + '/v1/os-hosts', headers=ADMIN,
                             json={'name': 'g', 'gpu': 'true'}, timeout=60)
        self.assertEqual(201, resp.status_code, resp.text)

    def write(self, text: str) -> None:
        with open(self.rates, 'w') as stream:
            stream.write(text)

    def quote(self) -> float:
        """What one gpu host for one hour costs, by the manager."""
        now = time.time()

        def date(minutes: int) -> str:
            return time.strftime('%Y-%m-%d %H:%M',
                                 time.gmtime(now + 60 * minutes))

        resp = requests.post(self.url + '/v1/leases/quote', headers=P1,
                             timeout=60, json={
                                 'name': 'q', 'start_date': date(60),
                                 'end_date': date(120),
                                 'reservations': [{
                                     'resource_type': 'physical:host',
                                     'min': 1, 'max': 1,
                                     'hypervisor_properties': '',
                                     'resource_properties': ''}]})
        self.assertEqual(200, resp.status_code, resp.text)
        return resp.json()['quote']['cost']

    def hangup(self, expect: str) -> None:
        manager = self.deployment.managers[0]
        os.kill(manager.process.pid, signal.SIGHUP)
        services.wait_for(lambda: expect in manager.log(), 30,
                          '%r in the manager log' % expect, [manager])

    def test_reload_and_bad_start(self):
        self.assertEqual(4.0, self.quote())
        self.write(BAD)
        self.hangup('Rates not reloaded')
        log = self.deployment.managers[0].log()
        self.assertIn('%s line 3: rates[0]: properties' % self.rates, log)
        self.assertEqual(4.0, self.quote())
        self.write(RATES % 2.5)
        self.hangup('Rates reloaded from %s: 1 rate(s)' % self.rates)
        self.assertEqual(2.5, self.quote())
        # A manager started on the bad file stops, naming the line.
        self.write(BAD)
        manager = self.useFixture(services.ServiceProcess(
            'manager-bad', [services.script('blazar-ext-manager'),
                            '--config-file', self.deployment.config_file],
            self.dir, env=self.deployment.env))
        self.assertEqual(1, manager.process.wait(60))
        self.assertIn('%s line 3: rates[0]: properties' % self.rates,
                      manager.log())
        self.assertIn('Cannot start', manager.log())
