"""blazar_ext's budget, rate and quote commands (blazar_ext.cli.budget) run
as the real ``openstack`` executable against a real HTTP server."""

from blazar_ext.tests.functional.budgets import base
from blazar_ext.tests.functional import cli

HOST = 'resource_type=physical:host,min=1,max=3'
GPU_RATE = ('{"resource_type": "physical:host", '
            '"properties": ["==", "$gpu", "true"], "credits_per_hour": 4}')


class TestBudgetCommands(cli.ReservationCommands, base.BudgetTestCase):

    def setUp(self):
        super().setUp()
        self.start_server()

    def test_budget_lifecycle(self):
        created = self.json('budget', 'create', '--project', 'p1',
                            '--credits', '100', '--period', 'monthly')
        self.assertEqual((100.0, 0.0, 100.0, 'monthly'), (
            created['credits'], created['spent'], created['balance'],
            created['period']))
        # By its id or its project's.
        self.assertEqual(created, self.json('budget', 'show', created['id']))
        self.assertEqual(created, self.json('budget', 'show', 'p1'))
        self.assertEqual([created['id']],
                         [b['id'] for b in self.json('budget', 'list')])
        adjusted = self.json('budget', 'adjust', 'p1', '--amount', '-20.5',
                             '--reason', 'overspent')
        self.assertEqual(79.5, adjusted['balance'])
        self.lease(hours=2)
        self.assertEqual(
            [('create', 100.0), ('adjust', -20.5), ('charge', -2.0)],
            [(e['kind'], e['amount'])
             for e in self.json('budget', 'ledger', created['id'])])
        # The server's 400 and 404 reach the user.
        proc = self.openstack('budget', 'adjust', 'p1', '--amount', '0',
                              '--reason', 'x', ok=False)
        self.assertIn('amount', proc.stderr)
        proc = self.openstack('budget', 'show', 'nope', ok=False)
        self.assertIn('Budget nope could not be found', proc.stderr)
        self.openstack('budget', 'delete', created['id'])
        self.assertEqual([], self.json('budget', 'list'))

    def test_rates_and_quote(self):
        self.json('budget', 'create', '--project', 'admin', '--credits',
                  '50')
        rates = self.json('rate', 'set', '--rate', GPU_RATE)
        self.assertEqual([('physical:host', ['==', '$gpu', 'true'], 4.0)], [
            (r['resource_type'], r['properties'], r['credits_per_hour'])
            for r in rates])
        self.assertEqual(rates, self.json('rate', 'list'))
        quote = self.json('lease', 'quote', '--reservation', HOST,
                          '--start-date', self.at(0), '--end-date',
                          self.at(3))
        # The gpu host 4 x 3, the two others 1 x 3 each.
        self.assertEqual(18.0, quote['cost'])
        self.assertEqual([50.0 - 18.0], [b['balance_after']
                                         for b in quote['budgets']])
        self.assertEqual([], self.request('GET', '/v1/leases').json()[
            'leases'])
        proc = self.openstack('rate', 'set', '--rate', '{"resource_type": '
                              '"physical:host", "properties": "[\\"==\\""}',
                              ok=False)
        self.assertIn('rates[0]: properties', proc.stderr)
        proc = self.openstack('rate', 'set', '--rate', 'nope', ok=False)
        self.assertIn('invalid --rate', proc.stderr)
        self.assertEqual([], self.json('rate', 'set', '--no-rate'))
