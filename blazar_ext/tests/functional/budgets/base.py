"""The test case the budget and fair-use tests share: a manager and an
API with the enforcement chain configured first, three hosts, and
helpers for budgets, their ledgers and leases."""

import datetime

from blazar_ext.tests import base
from blazar_ext.tests import fixtures

host_reservation = base.host_reservation

P1 = fixtures.user_headers(project='p1', user='u1')


class BudgetTestCase(base.LeaseTestCase):
    """The manager starts after the chain is configured."""

    FILTERS = ['BudgetFilter']

    def setUp(self):
        base.DBTestCase.setUp(self)
        self.conf.set_override('event_interval', 3600, group='manager')
        self.conf.set_override('enabled_filters', self.FILTERS,
                               group='enforcement')
        self.configure()
        self.manager = self.useFixture(fixtures.ManagerFixture())
        self.api = self.useFixture(fixtures.APIFixture())
        for name in ('h1', 'h2', 'h3'):
            self.add_host(name, gpu='true' if name == 'h3' else 'false')

    def configure(self) -> None:
        """Options to set before the manager starts."""

    def budget(self, credits=100, expect=201, **values) -> dict:
        body = dict({'project_id': 'p1', 'credits': credits}, **values)
        resp = self.request('POST', '/v1/budgets', body)
        self.assertEqual(expect, resp.status, resp.text)
        return resp.json().get('budget', resp.json())

    def get_budget(self, budget_id: str, headers=None) -> dict:
        resp = self.request('GET', '/v1/budgets/%s' % budget_id,
                            headers=headers)
        self.assertEqual(200, resp.status, resp.text)
        return resp.json()['budget']

    def ledger(self, budget_id: str) -> list:
        resp = self.request('GET', '/v1/budgets/%s/ledger' % budget_id)
        self.assertEqual(200, resp.status, resp.text)
        return resp.json()['ledger']

    @staticmethod
    def hours_after_start(lease: dict, hours: int) -> str:
        """A date ``hours`` after the lease's start (not after now: a
        minute may have passed since it was created)."""
        start = datetime.datetime.fromisoformat(lease['start_date'])
        return (start + datetime.timedelta(hours=hours)).strftime(base.FMT)

    def lease(self, hours=2, expect=201, name='lease-1', **values):
        values.setdefault('reservations', [host_reservation()])
        return self.create(name=name, start=60, end=60 + 60 * hours,
                           expect=expect, headers=P1, **values)
