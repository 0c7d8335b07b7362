"""OpenStackClient commands for budgets, rates and cost quotes, in
python-blazarclient's ``openstack.reservation.v1`` command group
(setup.cfg):

    openstack reservation budget list|show|create|adjust|delete|ledger
    openstack reservation rate list
    openstack reservation rate set --rate '{"resource_type": ...}' ...
    openstack reservation lease quote --reservation ... \\
        --start-date '2030-01-01 10:00' --end-date '2030-01-01 12:00'

They call the /v1/budgets, /v1/rates and /v1/leases/quote endpoints
through the reservation client OpenStackClient builds with
python-blazarclient's plugin. Loaded by OpenStackClient only.
"""

import json

from osc_lib.command import command
from osc_lib import exceptions

from blazar_ext.cli import reservation

BUDGET_COLUMNS = ('id', 'project_id', 'user_id', 'credits', 'spent',
                  'balance', 'period')
LEDGER_COLUMNS = ('id', 'created_at', 'kind', 'amount', 'balance',
                  'lease_id', 'reason')
RATE_COLUMNS = ('resource_type', 'properties', 'credits_per_hour',
                'credits_per_vcpu_hour', 'credits_per_gb_hour')


def _manager(app):
    return app.client_manager.reservation.lease.request_manager


def _budget_id(app, name_or_id: str) -> str:
    """A budget's id from its id or its project's id (the project-wide
    budget, not a user's)."""
    _resp, answer = _manager(app).get('/budgets')
    budgets = answer['budgets']
    if any(b['id'] == name_or_id for b in budgets):
        return name_or_id
    of_project = [b['id'] for b in budgets
                  if b['project_id'] == name_or_id and not b['user_id']]
    # Unknown: the server's 404 names it.
    return of_project[0] if of_project else name_or_id


def _show(budget: dict):
    return zip(*sorted(budget.items()))


class ListBudgets(command.Lister):
    """List budgets (an admin sees all, a member their project's)."""

    def take_action(self, parsed_args):
        _resp, answer = _manager(self.app).get('/budgets')
        return BUDGET_COLUMNS, [tuple(b.get(c) for c in BUDGET_COLUMNS)
                                for b in answer['budgets']]


class _NamesBudget:
    """A command whose first argument names one budget."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('budget', metavar='<budget>',
                            help='ID of the budget, or ID of its project.')
        return parser


class _OneBudget(_NamesBudget, command.ShowOne):
    """Shows one budget."""


class ShowBudget(_OneBudget):
    """Show a budget: its credits, what is spent and the balance."""

    def take_action(self, parsed_args):
        budget_id = _budget_id(self.app, parsed_args.budget)
        _resp, answer = _manager(self.app).get('/budgets/%s' % budget_id)
        return _show(answer['budget'])


class CreateBudget(command.ShowOne):
    """Create a budget for a project, or for one user of it (admin)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('--project', required=True,
                            help='ID of the project.')
        parser.add_argument('--user', help='ID of a user of the project '
                                           '(a sub-budget).')
        parser.add_argument('--credits', type=float, required=True,
                            help='Credits to spend (per period, if any).')
        parser.add_argument('--period', choices=('daily', 'weekly',
                                                 'monthly'),
                            help='The credits renew each period.')
        return parser

    def take_action(self, parsed_args):
        body = {'project_id': parsed_args.project,
                'credits': parsed_args.credits}
        if parsed_args.user:
            body['user_id'] = parsed_args.user
        if parsed_args.period:
            body['period'] = parsed_args.period
        _resp, answer = _manager(self.app).post('/budgets', body=body)
        return _show(answer['budget'])


class AdjustBudget(_OneBudget):
    """Add credits to a budget (or take them away) with a reason (admin)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('--amount', type=float, required=True,
                            help='Credits to add; negative to take away.')
        parser.add_argument('--reason', required=True,
                            help='Why, kept in the ledger.')
        return parser

    def take_action(self, parsed_args):
        budget_id = _budget_id(self.app, parsed_args.budget)
        _resp, answer = _manager(self.app).post(
            '/budgets/%s/adjust' % budget_id,
            body={'amount': parsed_args.amount,
                  'reason': parsed_args.reason})
        return _show(answer['budget'])


class DeleteBudget(_NamesBudget, command.Command):
    """Delete a budget (admin)."""

    def take_action(self, parsed_args):
        budget_id = _budget_id(self.app, parsed_args.budget)
        _manager(self.app).delete('/budgets/%s' % budget_id)


class ShowLedger(_NamesBudget, command.Lister):
    """List a budget's ledger: every charge, refund and adjustment."""

    def take_action(self, parsed_args):
        budget_id = _budget_id(self.app, parsed_args.budget)
        _resp, answer = _manager(self.app).get('/budgets/%s/ledger'
                                               % budget_id)
        return LEDGER_COLUMNS, [tuple(e.get(c) for c in LEDGER_COLUMNS)
                                for e in answer['ledger']]


class ListRates(command.Lister):
    """List the rates in force, first match first."""

    def take_action(self, parsed_args):
        _resp, answer = _manager(self.app).get('/rates')
        return RATE_COLUMNS, [tuple(r.get(c) for c in RATE_COLUMNS)
                              for r in answer['rates']]


def _rate(text: str) -> dict:
    try:
        rate = json.loads(text)
    except ValueError as exc:
        raise exceptions.CommandError('invalid --rate %r: %s' % (text, exc))
    if not isinstance(rate, dict):
        raise exceptions.CommandError(
            'invalid --rate %r: a JSON object' % text)
    return rate


class SetRates(command.Lister):
    """Replace the rates (admin; not when they come from a rates file)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--rate', metavar='<json>', action='append', dest='rates',
            default=[],
            help='A rate as JSON: {"resource_type": "physical:host", '
                 '"properties": ["==", "$gpu", "true"], '
                 '"credits_per_hour": 4}; repeat in order, first match '
                 'wins.')
        parser.add_argument('--no-rate', action='store_true',
                            help='Clear the rates (every resource at the '
                                 'default rate).')
        return parser

    def take_action(self, parsed_args):
        if not parsed_args.rates and not parsed_args.no_rate:
            raise exceptions.CommandError('give --rate or --no-rate')
        rates = [_rate(text) for text in parsed_args.rates]
        _resp, answer = _manager(self.app).put('/rates',
                                               body={'rates': rates})
        return RATE_COLUMNS, [tuple(r.get(c) for c in RATE_COLUMNS)
                              for r in answer['rates']]


class QuoteLease(command.ShowOne):
    """Price a lease before creating it: its cost, the rate lines and each
    budget's balance after (creates nothing)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('name', metavar='<name>', nargs='?',
                            default='quote', help='Name of the lease.')
        parser.add_argument(
            '--reservation', metavar='<key=value>', action='append',
            dest='reservations', default=[], required=True,
            help='A reservation, as for "openstack reservation lease '
                 'create"; repeat for several.')
        parser.add_argument('--start-date', required=True,
                            metavar='<YYYY-MM-DD HH:MM>',
                            help='Start of the lease (UTC), or "now".')
        parser.add_argument('--end-date', required=True,
                            metavar='<YYYY-MM-DD HH:MM>',
                            help='End of the lease (UTC).')
        return parser

    def take_action(self, parsed_args):
        start = parsed_args.start_date
        body = {'name': parsed_args.name,
                'start_date': start if start == 'now' else
                reservation.lease_date(start),
                'end_date': reservation.lease_date(parsed_args.end_date),
                'reservations': [
                    reservation.ReservationParser().parse(text)
                    for text in parsed_args.reservations]}
        _resp, answer = _manager(self.app).post('/leases/quote', body=body)
        return _show(answer['quote'])
