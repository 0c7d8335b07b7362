"""[enforcement], [enforcement_external] and [enforcement_keystone] options.

Usage enforcement filters approve or reject lease creates and updates and are
told when a lease ends. Option names follow the usage enforcement spec; the
names upstream Blazar uses for the same settings are accepted as deprecated
aliases so an existing blazar.conf keeps working.
"""

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

GROUP = cfg.OptGroup(
    'enforcement', title='Usage enforcement',
    help='Filters that approve or reject lease creates and updates.')

EXTERNAL_GROUP = cfg.OptGroup(
    'enforcement_external', title='External usage enforcement service',
    help='The ExternalServiceFilter, which delegates decisions to an HTTP '
         'service implementing POST /v1/check-create, /v1/check-update and '
         '/v1/on-end.')

KEYSTONE_GROUP = cfg.OptGroup(
    'enforcement_keystone', title='Keystone credentials for enforcement',
    help='Credentials of the blazar_ext service user, loaded with '
         'keystoneauth. Used for the X-Auth-Token sent to the external '
         'enforcement service and to resolve project names in '
         '[enforcement] exempted_projects. Leave auth_type unset to run '
         'without Keystone.')

ENFORCEMENT_OPTS = [
    cfg.ListOpt(
        'available_filters',
        default=['blazar_ext.enforcement.filters.all_filters'],
        help='Python paths that provide enforcement filters, in addition '
             'to the entry points of the blazar_ext.enforcement.filters '
             'namespace. Each item is a module (its BaseFilter subclasses '
             'become available by class name), a callable returning filter '
             'classes, or a single class ("package.module.ClassName" or '
             '"package.module:ClassName").'),
    cfg.ListOpt(
        'enabled_filters',
        default=['MaximumReservationLengthFilter', 'ExternalServiceFilter'],
        help='Filters to run, in this order. The first filter that rejects '
             'a request stops the chain. An unknown name stops the manager '
             'at start.'),
    cfg.IntOpt(
        'reservation_max_length', default=0, min=0,
        deprecated_opts=[cfg.DeprecatedOpt('max_lease_duration',
                                           group='enforcement')],
        help='Maximum length of a lease in seconds, enforced by '
             'MaximumReservationLengthFilter. 0 means no limit.'),
    cfg.ListOpt(
        'exempted_projects', default=[],
        help='Projects that no enforcement filter applies to: project ids, '
             'or project names with their domain name as name@domain (for '
             'example my-project@Default). Names are resolved through '
             'Keystone with the [enforcement_keystone] credentials; without '
             'credentials a name@domain entry is logged and ignored.'),
]

EXTERNAL_OPTS = [
    cfg.URIOpt(
        'endpoint_url', schemes=['http', 'https'],
        deprecated_opts=[cfg.DeprecatedOpt('external_service_base_endpoint',
                                           group='enforcement')],
        help='Base URL of the external enforcement service, e.g. '
             'http://policy.example.com:8080. The filter posts to '
             '{endpoint_url}/v1/check-create, /v1/check-update and '
             '/v1/on-end (a URL already ending in /v1 is used as it is). '
             'Unset: ExternalServiceFilter allows everything.'),
    cfg.BoolOpt(
        'allow_on_error', default=False,
        help='Allow the request when the service answers anything other '
             'than 204 or 403, times out or cannot be reached. By default '
             'such a request is denied.'),
    cfg.FloatOpt(
        'timeout', default=10.0, min=0.001,
        help='Seconds to wait for the service to connect and to answer '
             'each request. Past it the call counts as an error (see '
             'allow_on_error).'),
    cfg.StrOpt(
        'token', secret=True,
        deprecated_opts=[cfg.DeprecatedOpt('external_service_token',
                                           group='enforcement')],
        help='Static token sent as X-Auth-Token, for deployments without '
             'Keystone. When unset and [enforcement_keystone] has '
             'credentials, a Keystone token of the service user is sent.'),
]

KEYSTONE_OPTS = [
    cfg.StrOpt(
        'region_name',
        help='Region reported to filters in the request context '
             '("region_name" of the payload).'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(GROUP)
    conf.register_opts(ENFORCEMENT_OPTS, group=GROUP)
    conf.register_group(EXTERNAL_GROUP)
    conf.register_opts(EXTERNAL_OPTS, group=EXTERNAL_GROUP)
    conf.register_group(KEYSTONE_GROUP)
    conf.register_opts(KEYSTONE_OPTS, group=KEYSTONE_GROUP)
    ks_loading.register_auth_conf_options(conf, KEYSTONE_GROUP.name)
    ks_loading.register_session_conf_options(conf, KEYSTONE_GROUP.name)


def _keystone_opts() -> list:
    opts = list(KEYSTONE_OPTS)
    opts += ks_loading.get_session_conf_options()
    opts += ks_loading.get_auth_common_conf_options()
    opts += ks_loading.get_auth_plugin_conf_options('password')
    seen = set()
    unique = []
    for opt in opts:
        if opt.dest not in seen:
            seen.add(opt.dest)
            unique.append(opt)
    return unique


def list_opts() -> dict:
    return {GROUP: ENFORCEMENT_OPTS,
            EXTERNAL_GROUP: EXTERNAL_OPTS,
            KEYSTONE_GROUP: _keystone_opts()}
