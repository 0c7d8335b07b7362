"""[placement_api] options: the Placement-compatible API family.

The family is served under /placement by blazar-ext-api and the
all-in-one, and alone at the root of its own endpoint by
blazar-ext-placement-api (or blazar_ext.wsgi.placement:application), as
upstream Placement's placement-api is deployed.
"""

from oslo_config import cfg

GROUP = cfg.OptGroup('placement_api', title='Placement-compatible API')

# Placement's own default for consumers made without a project or user.
INCOMPLETE_CONSUMER_ID = '00000000-0000-0000-0000-000000000000'
# Well above what Nova asks (a group per port with a QoS policy, per PCI
# or accelerator request), low enough that one request holds a worker for
# about half a second: 128 groups took 0.5 s, 256 took 1.4 s and 2,000
# took 13 s on SQLite (tests/functional/placement/test_request_groups.py).
MAX_REQUEST_GROUPS = 128

ALL_OPTS = [
    cfg.HostAddressOpt('host',
                       help='Address blazar-ext-placement-api listens on. '
                            'Unset, it follows [api] host: 0.0.0.0 with '
                            'auth_strategy = keystone and 127.0.0.1 with '
                            'auth_strategy = noauth.'),
    cfg.PortOpt('port', default=8778,
                help='Port blazar-ext-placement-api listens on. Point the '
                     'Keystone catalog\'s placement endpoint at it '
                     '(http://HOST:8778, no path).'),
    cfg.IntOpt('workers', default=1, min=1,
               help='Worker processes of blazar-ext-placement-api; each '
                    'runs [api] threads request threads.'),
    cfg.IntOpt('max_request_groups', default=MAX_REQUEST_GROUPS, min=1,
               help='Most request groups one GET /allocation_candidates '
                    'may name (the unsuffixed group and each distinct '
                    'suffix of resources, required, member_of and '
                    'in_tree); above it the request is a 400. Each group '
                    'is a join of the candidates query, so thousands of '
                    'them hold a worker for seconds. Upstream Placement '
                    'has no limit.'),
    cfg.StrOpt('incomplete_consumer_project_id',
               default=INCOMPLETE_CONSUMER_ID,
               help='Project id recorded for a consumer whose allocations '
                    'were written before microversion 1.8 without one, '
                    'as Placement\'s option of the same name.'),
    cfg.StrOpt('incomplete_consumer_user_id',
               default=INCOMPLETE_CONSUMER_ID,
               help='User id recorded for a consumer whose allocations '
                    'were written before microversion 1.8 without one, '
                    'as Placement\'s option of the same name.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(GROUP)
    conf.register_opts(ALL_OPTS, group=GROUP)


def list_opts() -> dict:
    return {GROUP: ALL_OPTS}
