"""[health] options: where the manager learns that hosts are down, and
[nova] / [ironic]: how it reaches those services (keystoneauth1)."""

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

GROUP = cfg.OptGroup('health', title='Host health options')

ALL_OPTS = [
    cfg.StrOpt('source', default='none',
               help='Health source polled by the manager (entry point in '
                    'the blazar_ext.health_sources namespace): "none" '
                    '(hosts change state only through the operator), '
                    '"nova" (compute service and hypervisor state) or '
                    '"ironic" (maintenance, provision and power state). A '
                    'host the source finds down is taken out of service '
                    'and its reservations healed; it is brought back once '
                    'the same source finds it up.'),
    cfg.FloatOpt('interval', default=60.0, min=0.01,
                 help='Seconds between two health checks of a host, and '
                      'between two retries of degraded reservations. '
                      'Several managers share the hosts: each host is '
                      'claimed by one manager per interval.'),
    cfg.IntOpt('batch_size', default=1000, min=1,
               help='Hosts a manager claims and checks in one request to '
                    'the health source.'),
]

# Services a health source talks to: keystoneauth1 session, auth and
# adapter options (auth_type, endpoint_override, region_name ...).
SERVICE_GROUPS = {'nova': 'compute', 'ironic': 'baremetal'}


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(GROUP)
    conf.register_opts(ALL_OPTS, group=GROUP)
    for group, service_type in SERVICE_GROUPS.items():
        ks_loading.register_session_conf_options(conf, group)
        ks_loading.register_auth_conf_options(conf, group)
        ks_loading.register_adapter_conf_options(conf, group)
        conf.set_default('service_type', service_type, group=group)


def list_opts() -> dict:
    opts = {GROUP: ALL_OPTS}
    for group in SERVICE_GROUPS:
        opts[cfg.OptGroup(group)] = (
            ks_loading.get_session_conf_options() +
            ks_loading.get_auth_common_conf_options() +
            ks_loading.get_adapter_conf_options(include_deprecated=False))
    return opts
