"""[manager] options: the RPC server and the lease event loop."""

from oslo_config import cfg

GROUP = cfg.OptGroup('manager', title='Manager options')

ALL_OPTS = [
    cfg.StrOpt('topic', default='blazar_ext.manager',
               help='RPC topic the manager listens on.'),
    cfg.IntOpt('rpc_timeout', default=30, min=1,
               help='Seconds the API waits for the manager to answer an RPC '
                    'call before answering 503.'),
    cfg.StrOpt('rpc_version', regex=r'^[0-9]+\.[0-9]+$',
               help='Highest manager RPC API version the API sends (for '
                    'example 1.0). Set it to the version of the oldest '
                    'manager during a rolling upgrade, and unset it once '
                    'every manager is upgraded; a call newer than the pin '
                    'is answered 503 meanwhile. Unset: the version the API '
                    'speaks.'),
    cfg.StrOpt('host_inventory', default='static',
               help='Name of the host inventory source (entry point in the '
                    'blazar_ext.host_inventory namespace). "static" takes '
                    'the host description from the request.'),
    cfg.ListOpt('plugins',
                default=['physical.host.plugin',
                         'virtual.instance.plugin',
                         'virtual.floatingip.plugin',
                         'flavor.instance.plugin'],
                help='Resource types that may be reserved: names of entry '
                     'points in the blazar_ext.resource.plugins namespace '
                     '(physical.host.plugin, virtual.instance.plugin, '
                     'virtual.floatingip.plugin, flavor.instance.plugin). '
                     'A type left out has its API routes unmounted and its '
                     'reservations refused. The API reads it too.'),
    cfg.StrOpt('compute_driver', default='none',
               help='What virtual:instance reservations ask of a compute '
                    'service at lease start and end (entry point in the '
                    'blazar_ext.compute_drivers namespace): "none" (the '
                    'Placement reservation providers only) or "nova" (a '
                    'private flavor and, with affinity, a server group, '
                    'through the [nova] options).'),
    cfg.StrOpt('flavor_source', default='static',
               help='Where flavor:instance reservations find flavors (entry '
                    'point in the blazar_ext.flavor_sources namespace): '
                    '"static" (the YAML file flavors_file) or "nova" (the '
                    'flavors of the Nova the [nova] options name).'),
    cfg.StrOpt('flavors_file', default='/etc/blazar-ext/flavors.yaml',
               help='The static flavor source\'s YAML file (an example '
                    'ships as etc/blazar-ext/flavors.yaml).'),
    cfg.FloatOpt('event_interval', default=10.0, min=0.01,
                 help='Seconds between two runs of the lease event loop, '
                      'which starts and ends leases when their time comes.'),
    cfg.IntOpt('event_claim_timeout', default=300, min=1,
               help='Seconds after which an event left IN_PROGRESS (its '
                    'manager died while running it) may be claimed again by '
                    'another manager.'),
    cfg.IntOpt('cleaning_time', default=0, min=0,
               help='Minutes a host stays unavailable before and after each '
                    'of its allocations (time to clean it between leases).'),
    cfg.IntOpt('minutes_before_end_lease', default=60, min=0,
               help='Minutes before the end of a lease at which its '
                    'before_end_lease event runs, unless the lease gives '
                    'before_end_date.'),
    # Lease series and maintenance windows (issue 30).
    cfg.IntOpt('series_horizon_days', default=28, min=1,
               help='Days ahead up to which the occurrences of a lease '
                    'series are booked; the manager books further ones as '
                    'time passes.'),
    cfg.IntOpt('series_max_days', default=400, min=1,
               help='Days ahead within which the last occurrence of a lease '
                    'series must start; a longer series is refused.'),
    cfg.FloatOpt('series_interval', default=600.0, min=0.01,
                 help='Seconds between two runs of the task that books the '
                      'occurrences of lease series entering the horizon.'),
    cfg.FloatOpt('maintenance_interval', default=60.0, min=0.01,
                 help='Seconds between two runs of the task that takes '
                      'hosts out of service when their maintenance window '
                      'starts and back when it ends.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(GROUP)
    conf.register_opts(ALL_OPTS, group=GROUP)


def list_opts() -> dict:
    return {GROUP: ALL_OPTS}
