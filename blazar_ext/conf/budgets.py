"""[budgets] and [fair_use] options: the BudgetFilter, its rates, and the
fair-use enforcement filters (enable them in [enforcement] enabled_filters).
"""

from oslo_config import cfg

GROUP = cfg.OptGroup(
    'budgets', title='Budgets and rates',
    help='BudgetFilter: leases are charged in credits to their project\'s '
         'budget (and their user\'s sub-budget, if there is one).')

FAIR_USE_GROUP = cfg.OptGroup(
    'fair_use', title='Fair-use rules',
    help='Options of the fair-use enforcement filters. A rule whose option '
         'is 0 does nothing.')

BUDGET_OPTS = [
    cfg.StrOpt(
        'rates_file',
        help='YAML file of rates (see the admin guide, "Budgets and fair '
             'use"). Checked when the manager starts (an error names the '
             'line and stops it) and read again on SIGHUP (a bad file then '
             'keeps the rates in force and logs why). Unset: the rates set '
             'through PUT /v1/rates.'),
    cfg.FloatOpt(
        'default_rate', default=1.0, min=0,
        help='Credits per resource-hour of a resource no rate matches.'),
    cfg.BoolOpt(
        'require_budget', default=False,
        help='Refuse leases of projects without a budget. By default they '
             'are not charged.'),
    cfg.IntOpt(
        'low_balance_percent', default=10, min=0, max=100,
        help='A charge that takes a budget\'s balance below this share of '
             'its credits records the budget.low event (0: never).'),
]

FAIR_USE_OPTS = [
    cfg.IntOpt(
        'max_concurrent_hosts', default=0, min=0,
        help='MaxConcurrentUsageFilter: most hosts a project may hold at '
             'any one time, over all its leases.'),
    cfg.IntOpt(
        'max_concurrent_vcpus', default=0, min=0,
        help='MaxConcurrentUsageFilter: most vCPUs (of hosts and of '
             'instance reservations) a project may hold at any one time.'),
    cfg.IntOpt(
        'max_future_leases', default=0, min=0,
        help='MaxFutureLeasesFilter: most leases not yet started a user '
             'may have.'),
    cfg.IntOpt(
        'max_advance_hours', default=0, min=0,
        help='MaxAdvanceBookingFilter: how far ahead, in hours, a lease '
             'may start.'),
    cfg.IntOpt(
        'stacking_max_hours', default=0, min=0,
        help='AntiStackingFilter: most hours a project may hold the same '
             'host within any stacking_window_hours, counting back-to-back '
             'and overlapping leases together.'),
    cfg.IntOpt(
        'stacking_window_hours', default=168, min=1,
        help='AntiStackingFilter: the window stacking_max_hours applies '
             'to.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(GROUP)
    conf.register_opts(BUDGET_OPTS, group=GROUP)
    conf.register_group(FAIR_USE_GROUP)
    conf.register_opts(FAIR_USE_OPTS, group=FAIR_USE_GROUP)


def list_opts() -> dict:
    return {GROUP: BUDGET_OPTS, FAIR_USE_GROUP: FAIR_USE_OPTS}
