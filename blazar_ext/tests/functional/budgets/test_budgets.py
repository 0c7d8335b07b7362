"""Budgets through the whole service: API -> RPC -> manager -> BudgetFilter
in the lease's transaction, on SQLite, MariaDB and PostgreSQL."""


import sqlalchemy as sa

from blazar_ext import context as blazar_context
from blazar_ext.tests import base
from blazar_ext.tests import fixtures
from blazar_ext.tests.functional import backends
from blazar_ext.tests.functional.budgets import base as budget_base

_date = base.lease_date
host_reservation = base.host_reservation
P1 = budget_base.P1
BudgetTestCase = budget_base.BudgetTestCase


class TestBudgets(BudgetTestCase):

    def test_create_show_list(self):
        budget = self.budget(100, period='monthly')
        self.assertEqual((100.0, 0.0, 100.0, 'p1', None, 'monthly'), (
            budget['credits'], budget['spent'], budget['balance'],
            budget['project_id'], budget['user_id'], budget['period']))
        self.assertEqual(budget, self.get_budget(budget['id']))
        # A member of the project reads it; of another, neither.
        self.assertEqual(budget, self.get_budget(budget['id'], P1))
        other = fixtures.user_headers(project='p2')
        self.assertEqual(403, self.request(
            'GET', '/v1/budgets/%s' % budget['id'], headers=other).status)
        self.assertEqual([], self.request(
            'GET', '/v1/budgets', headers=other).json()['budgets'])
        self.assertEqual([budget['id']], [b['id'] for b in self.request(
            'GET', '/v1/budgets', headers=P1).json()['budgets']])
        # Only an admin creates or adjusts.
        resp = self.request('POST', '/v1/budgets',
                            {'project_id': 'p1', 'credits': 5}, headers=P1)
        self.assertEqual(403, resp.status, resp.text)
        resp = self.request('POST', '/v1/budgets/%s/adjust' % budget['id'],
                            {'amount': 5, 'reason': 'x'}, headers=P1)
        self.assertEqual(403, resp.status, resp.text)
        # One budget per project (and per user of it).
        resp = self.request('POST', '/v1/budgets',
                            {'project_id': 'p1', 'credits': 5})
        self.assertEqual(409, resp.status, resp.text)
        self.assertIn(budget['id'], resp.json()['error_message'])

    def test_adjust_and_ledger(self):
        budget = self.budget(100)
        resp = self.request('POST', '/v1/budgets/%s/adjust' % budget['id'],
                            {'amount': -30.5, 'reason': 'overspent in May'})
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual(69.5, resp.json()['budget']['balance'])
        self.assertEqual(
            [('create', 100.0, 100.0, None),
             ('adjust', -30.5, 69.5, 'overspent in May')],
            [(e['kind'], e['amount'], e['balance'], e['reason'])
             for e in self.ledger(budget['id'])])

    def test_bad_input_is_400_and_charges_nothing(self):
        budget = self.budget(100)
        for body in ({'project_id': 'p1', 'credits': -1},
                     {'project_id': 'p2', 'credits': 'many'},
                     {'project_id': 'p2', 'credits': 1, 'period': 'yearly'},
                     {'credits': 1}):
            resp = self.request('POST', '/v1/budgets', body)
            self.assertEqual(400, resp.status, (body, resp.text))
        path = '/v1/budgets/%s/adjust' % budget['id']
        for body in ({'amount': 5}, {'amount': 0, 'reason': 'x'},
                     {'amount': -101, 'reason': 'too much'},
                     # Past what a budget holds (a 500 on MariaDB).
                     {'amount': 10 ** 15, 'reason': 'too much'}):
            resp = self.request('POST', path, body)
            self.assertEqual(400, resp.status, (body, resp.text))
        for method, path, body in (
                ('GET', '/v1/budgets/nope', None),
                ('GET', '/v1/budgets/nope/ledger', None),
                ('POST', '/v1/budgets/nope/adjust',
                 {'amount': 1, 'reason': 'x'}),
                ('DELETE', '/v1/budgets/nope', None)):
            resp = self.request(method, path, body)
            self.assertEqual(404, resp.status, (path, resp.text))
            self.assertIn('Budget nope could not be found',
                          resp.json()['error_message'])
        resp = self.request('PUT', '/v1/rates', {'rates': [
            {'resource_type': 'physical:host',
             'properties': '["==", "$gpu"', 'credits_per_hour': 4}]})
        self.assertEqual(400, resp.status, resp.text)
        self.assertIn('rates[0]: properties', resp.json()['error_message'])
        resp = self.request('PUT', '/v1/rates', {'rates': [
            {'resource_type': 'physical:host', 'credits_per_hour': -4}]})
        self.assertEqual(400, resp.status, resp.text)
        self.assertEqual([], self.request('GET', '/v1/rates').json()['rates'])
        self.assertEqual(100.0, self.get_budget(budget['id'])['balance'])
        self.assertEqual(['create'],
                         [e['kind'] for e in self.ledger(budget['id'])])

    def test_rate_that_cannot_test_hosts_is_400_and_leases_still_price(self):
        # It parses; before it was checked at PUT it was stored and every
        # lease create then failed pricing with a message about its own
        # resource_properties.
        budget = self.budget(100)
        resp = self.request('PUT', '/v1/rates', {'rates': [
            {'resource_type': 'physical:host',
             'properties': ['<', '$memory_mb', 'abc'],
             'credits_per_hour': 4}]})
        self.assertEqual(400, resp.status, resp.text)
        self.assertIn('rates[0]: properties: "$memory_mb" is a number',
                      resp.json()['error_message'])
        self.assertEqual([], self.request('GET', '/v1/rates').json()['rates'])
        self.lease(hours=2)
        # 1 host x 2 hours x the default rate.
        self.assertEqual(98.0, self.get_budget(budget['id'])['balance'])

    def test_create_charges_update_and_delete_refund(self):
        budget = self.budget(100)
        lease = self.lease(hours=2, reservations=[host_reservation(max=2)])
        # 2 hosts x 2 hours x 1 credit (no rates).
        self.assertEqual(96.0, self.get_budget(budget['id'])['balance'])
        resp = self.request('PUT', '/v1/leases/%s' % lease['id'],
                            {'end_date': self.hours_after_start(lease, 5)})
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual(90.0, self.get_budget(budget['id'])['balance'])
        resp = self.request('PUT', '/v1/leases/%s' % lease['id'],
                            {'end_date': self.hours_after_start(lease, 1)})
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual(98.0, self.get_budget(budget['id'])['balance'])
        # Deleted before it starts: all of it comes back.
        resp = self.request('DELETE', '/v1/leases/%s' % lease['id'])
        self.assertEqual(204, resp.status, resp.text)
        self.assertEqual(100.0, self.get_budget(budget['id'])['balance'])
        entries = self.ledger(budget['id'])
        self.assertEqual(
            [('create', 100.0), ('charge', -4.0), ('charge', -6.0),
             ('refund', 8.0), ('refund', 2.0)],
            [(e['kind'], e['amount']) for e in entries])
        self.assertEqual({lease['id']}, {e['lease_id'] for e in entries[1:]})

    def test_over_budget_is_403_naming_budget_cost_and_balance(self):
        budget = self.budget(3)
        resp = self.request('POST', '/v1/leases', {
            'name': 'big', 'start_date': _date(60),
            'end_date': _date(60 + 120),
            'reservations': [host_reservation(max=2)]}, headers=P1)
        self.assertEqual(403, resp.status, resp.text)
        message = resp.json()['error_message']
        self.assertIn('Budget %s (project p1)' % budget['id'], message)
        self.assertIn('costs 4 credits and the balance is 3 credits '
                      '(1 short)', message)
        self.assertEqual(['ERROR'], [x['status'] for x in self.request(
            'GET', '/v1/leases').json()['leases']])
        self.assertEqual([], self.allocated_hosts(
            self.request('GET', '/v1/leases').json()['leases'][0]['id']))
        self.assertEqual(3.0, self.get_budget(budget['id'])['balance'])
        self.assertEqual(['create'],
                         [e['kind'] for e in self.ledger(budget['id'])])
        # An update that would cost more than is left is refused too, and
        # leaves the lease and the budget as they were.
        lease = self.lease(hours=1, name='small')
        resp = self.request('PUT', '/v1/leases/%s' % lease['id'],
                            {'end_date': self.hours_after_start(lease, 4)})
        self.assertEqual(403, resp.status, resp.text)
        self.assertIn('3 more than charged already',
                      resp.json()['error_message'])
        self.assertEqual(lease['end_date'], self.show(lease['id'])['end_date'])
        self.assertEqual(2.0, self.get_budget(budget['id'])['balance'])

    def test_user_sub_budget(self):
        project = self.budget(100)
        user = self.budget(2, user_id='u1')
        resp = self.request('POST', '/v1/leases', {
            'name': 'big', 'start_date': _date(60),
            'end_date': _date(60 + 180),
            'reservations': [host_reservation()]}, headers=P1)
        self.assertEqual(403, resp.status, resp.text)
        self.assertIn('Budget %s (project p1, user u1)' % user['id'],
                      resp.json()['error_message'])
        self.lease(hours=2)
        self.assertEqual(0.0, self.get_budget(user['id'])['balance'])
        self.assertEqual(98.0, self.get_budget(project['id'])['balance'])

    def test_rates_first_match_wins(self):
        budget = self.budget(100)
        resp = self.request('PUT', '/v1/rates', {'rates': [
            {'resource_type': 'physical:host',
             'properties': ['==', '$gpu', 'true'], 'credits_per_hour': 4},
            {'resource_type': 'physical:host', 'credits_per_hour': 0.5},
            {'resource_type': 'physical:host',
             'properties': ['==', '$gpu', 'true'], 'credits_per_hour': 99}]})
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual([4.0, 0.5, 99.0], [
            r['credits_per_hour'] for r in resp.json()['rates']])
        self.lease(hours=2, reservations=[host_reservation(max=3)])
        # h3 (gpu) 4 x 2 + h1, h2 0.5 x 2 x 2.
        self.assertEqual(90.0, self.get_budget(budget['id'])['balance'])

    def test_quote_changes_nothing(self):
        budget = self.budget(100)
        self.request('PUT', '/v1/rates', {'rates': [
            {'resource_type': 'physical:host',
             'properties': ['==', '$gpu', 'true'], 'credits_per_hour': 4}]})
        resp = self.request('POST', '/v1/leases/quote', {
            'name': 'q', 'start_date': _date(60), 'end_date': _date(60 + 180),
            'reservations': [host_reservation(max=3)]}, headers=P1)
        self.assertEqual(200, resp.status, resp.text)
        quote = resp.json()['quote']
        self.assertEqual(18.0, quote['cost'])
        # The gpu host at rate 0, the other two at the default rate.
        self.assertEqual([(0, 1, 3.0, 4.0, 12.0), (None, 2, 3.0, 1.0, 6.0)],
                         [(line['rate'], line['count'], line['hours'],
                           line['credits_per_hour'], line['cost'])
                          for line in quote['rate_lines']])
        self.assertEqual([(budget['id'], 100.0, 82.0)], [
            (b['id'], b['balance'], b['balance_after'])
            for b in quote['budgets']])
        self.assertEqual([], self.request('GET', '/v1/leases').json()[
            'leases'])
        self.assertEqual(1, len(self.ledger(budget['id'])))
        resp = self.request('POST', '/v1/leases/quote', {
            'name': 'q', 'start_date': 'tomorrow', 'end_date': _date(60)})
        self.assertEqual(400, resp.status, resp.text)

    def test_no_budget_no_charge(self):
        self.lease(hours=2)

    def test_delete_after_start_refunds_the_unused_part(self):
        budget = self.budget(100)
        lease = self.create(start='now', end=120, headers=P1)
        self.run_events()
        self.assertEqual('ACTIVE', self.show(lease['id'])['status'])
        charged = 100.0 - self.get_budget(budget['id'])['balance']
        self.assertGreater(charged, 1.9)
        resp = self.request('DELETE', '/v1/leases/%s' % lease['id'])
        self.assertEqual(204, resp.status, resp.text)
        [refund] = [e for e in self.ledger(budget['id'])
                    if e['kind'] == 'refund']
        # Some of it was used (the lease started this minute).
        self.assertLess(refund['amount'], charged)
        self.assertGreater(refund['amount'], charged * 0.9)
        self.assertIn('hours unused', refund['reason'])

    def test_period_renews(self):
        budget = self.budget(10, period='daily')
        self.lease(hours=2)
        self.assertEqual(8.0, self.get_budget(budget['id'])['balance'])
        with self.db.engine.begin() as conn:
            conn.execute(sa.text(
                "UPDATE budgets SET period_start = '2020-01-01 00:00:00'"))
        # Shown renewed at once; written renewed at the next charge.
        self.assertEqual(10.0, self.get_budget(budget['id'])['balance'])
        self.lease(hours=3, name='second')
        self.assertEqual(7.0, self.get_budget(budget['id'])['balance'])
        self.assertEqual(['create', 'charge', 'renew', 'charge'],
                         [e['kind'] for e in self.ledger(budget['id'])])

    def test_adjust_in_a_new_period_renews_first(self):
        budget = self.budget(10, period='daily')
        self.lease(hours=2)
        with self.db.engine.begin() as conn:
            conn.execute(sa.text(
                "UPDATE budgets SET period_start = '2020-01-01 00:00:00'"))
        resp = self.request('POST', '/v1/budgets/%s/adjust' % budget['id'],
                            {'amount': 5, 'reason': 'more'})
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual((0.0, 15.0), (resp.json()['budget']['spent'],
                                       resp.json()['budget']['balance']))
        self.assertEqual(
            [('charge', -2.0, 8.0), ('renew', 2.0, 10.0),
             ('adjust', 5.0, 15.0)],
            [(e['kind'], e['amount'], e['balance'])
             for e in self.ledger(budget['id'])][1:])

    def test_healing_keeps_the_charge(self):
        budget = self.budget(100)
        lease = self.lease(hours=2)
        [held] = self.allocated_hosts(lease['id'])
        resp = self.request('PUT', '/v1/os-hosts/%s' % held,
                            {'reservable': False})
        self.assertEqual(200, resp.status, resp.text)
        # Re-placed on another host, at the same price.
        [now_held] = self.allocated_hosts(lease['id'])
        self.assertNotEqual(held, now_held)
        self.assertEqual(['create', 'charge'],
                         [e['kind'] for e in self.ledger(budget['id'])])
        self.assertEqual(98.0, self.get_budget(budget['id'])['balance'])


class TestRequireBudget(BudgetTestCase):

    def configure(self):
        self.conf.set_override('require_budget', True, group='budgets')

    def test_project_without_budget_is_refused(self):
        resp = self.request('POST', '/v1/leases', {
            'name': 'x', 'start_date': _date(60), 'end_date': _date(120),
            'reservations': [host_reservation()]}, headers=P1)
        self.assertEqual(403, resp.status, resp.text)
        self.assertIn('Project p1 has no budget',
                      resp.json()['error_message'])


class TestBudgetConcurrency(BudgetTestCase):
    """Parallel creates against a budget that fits 10: the budget row lock
    lets exactly 10 through; the ledger matches the surviving leases."""

    def test_parallel_creates_never_overdraw(self):
        if getattr(self, 'BACKEND', ''):
            # Between manager processes only row locks serialize. (SQLite
            # serves one manager; its threads share the process lock.)
            self.without_process_lock()
        for i in range(4, 31):
            self.add_host('h%d' % i)
        budget = self.budget(10)
        start, end = _date(60), _date(120)
        outcomes = self.race_creates(
            [{'name': 'c%d' % i, 'start_date': start, 'end_date': end,
              'reservations': [host_reservation()]} for i in range(24)],
            lambda: blazar_context.RequestContext(
                project_id='p1', user_id='u1', roles=['member']))
        self.assertEqual(['EnforcementRejected'] * 14 + ['created'] * 10,
                         outcomes)
        shown = self.get_budget(budget['id'])
        self.assertEqual((10.0, 0.0), (shown['spent'], shown['balance']))
        entries = self.ledger(budget['id'])
        self.assertTrue(all(e['balance'] >= 0 for e in entries), entries)
        live = [x['id'] for x in self.request('GET', '/v1/leases').json()[
            'leases'] if x['status'] != 'ERROR']
        self.assertEqual(10, len(live))
        self.assertEqual(sorted(live), sorted(
            e['lease_id'] for e in entries if e['kind'] == 'charge'))
        self.assertEqual(-10.0, sum(e['amount'] for e in entries
                                    if e['kind'] in ('charge', 'refund')))


TestBudgetsMySQL, TestBudgetsPostgreSQL = backends.on_each_backend(
    TestBudgets)
(TestBudgetConcurrencyMySQL,
 TestBudgetConcurrencyPostgreSQL) = backends.on_each_backend(
    TestBudgetConcurrency)
