"""[plan] options: the slot search (POST /v1/leases/plan), flexible
leases and extension advice."""

from oslo_config import cfg

GROUP = cfg.OptGroup('plan', title='Slot search and flexible leases')

ALL_OPTS = [
    cfg.IntOpt('max_window_days', default=366, min=1,
               help='Longest search window (not_before to not_after) and '
                    'longest duration a slot search or a flexible lease '
                    'may ask for, in days; longer is a 400.'),
    cfg.IntOpt('max_checks', default=400, min=1,
               help='Most candidate start times one search tries before '
                    'it answers with the options found so far: each '
                    'candidate costs one query per reservation.'),
    cfg.IntOpt('max_limit', default=50, min=1,
               help='Most options one search may ask for (limit).'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(GROUP)
    conf.register_opts(ALL_OPTS, group=GROUP)


def list_opts() -> dict:
    return {GROUP: ALL_OPTS}
