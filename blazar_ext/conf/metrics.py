"""[metrics] options: Prometheus exposition."""

from oslo_config import cfg

GROUP = cfg.OptGroup('metrics', title='Prometheus metrics')

ALL_OPTS = [
    cfg.BoolOpt('enabled', default=True,
                help='Count API requests and serve Prometheus metrics. '
                     'Without a port below, GET /metrics on the API port '
                     'answers, to callers the blazar:metrics:get policy '
                     'allows (admins by default).'),
    cfg.PortOpt('port',
                help='Serve the metrics on this port of their own (no '
                     'authentication: firewall it) instead of /metrics on '
                     'the API port. With several API workers the parent '
                     'process serves it, for all of them.'),
    cfg.HostAddressOpt('host', default='127.0.0.1',
                       help='Address the metrics port listens on.'),
    cfg.PortOpt('manager_port',
                help='blazar-ext-manager serves its own metrics (database '
                     'retries in the manager, and the state gauges) on '
                     'this port when set.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(GROUP)
    conf.register_opts(ALL_OPTS, group=GROUP)


def list_opts() -> dict:
    return {GROUP: ALL_OPTS}
