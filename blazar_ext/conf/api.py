"""[api] options: the WSGI server and authentication."""

from oslo_config import cfg

GROUP = cfg.OptGroup('api', title='API server options')

ALL_OPTS = [
    cfg.HostAddressOpt('host',
                       help='Address the API server listens on. Unset, '
                            'it is 0.0.0.0 with auth_strategy = keystone '
                            'and 127.0.0.1 with auth_strategy = noauth.'),
    cfg.BoolOpt('allow_insecure_noauth', default=False,
                help='Let blazar-ext-api and blazar-ext-all-in-one start '
                     'with auth_strategy = noauth on an address other '
                     'than loopback. Under noauth anyone who reaches the '
                     'port may act as an admin; they refuse to start '
                     'unless this is true.'),
    cfg.PortOpt('port', default=1234,
                help='Port the API server listens on.'),
    cfg.IntOpt('workers', default=1, min=1,
               help='Number of API worker processes.'),
    cfg.IntOpt('threads', default=16, min=1,
               help='Number of request threads in each API worker.'),
    cfg.IntOpt('keep_alive_connections', default=100, min=1,
               help='Idle keep-alive connections each API worker keeps '
                    'open between requests. Past it, a response closes '
                    'its connection and the client connects again; the '
                    'WSGI server\'s own limit, 10, made clients with more '
                    'connections than that reconnect on about one '
                    'request in four.'),
    cfg.StrOpt('auth_strategy', default='keystone',
               choices=[('keystone', 'Validate tokens with '
                         'keystonemiddleware.auth_token.'),
                        ('noauth', 'Trust X-User-Id, X-Project-Id and '
                         'X-Roles headers, or a token "user:project" '
                         '(roles member,reader) or "admin". For tests and '
                         'the embedded default only.')],
               help='How API requests are authenticated.'),
    cfg.IntOpt('rpc_retry', default=2, min=-1,
               help='How many times the API retries to reach the message '
                    'broker before answering 503 (-1 retries forever).'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(GROUP)
    conf.register_opts(ALL_OPTS, group=GROUP)


def list_opts() -> dict:
    return {GROUP: ALL_OPTS}
