"""Where the API listens: safe by default under noauth.

Under noauth any caller may send the token "admin", so the API servers
bind loopback unless told otherwise, and refuse another address unless
``[api] allow_insecure_noauth`` says the operator means it.
"""

import ipaddress
import socket

from oslo_config import cfg
from oslo_log import log as logging

LOG = logging.getLogger(__name__)

LOOPBACK = '127.0.0.1'
ANY = '0.0.0.0'

# --host and --port of the API servers. Their dests differ from the names,
# as [DEFAULT] host is oslo.messaging's name of this machine.
CLI_OPTS = [
    cfg.HostAddressOpt('host', dest='listen_host', metavar='ADDRESS',
                       help='Address to listen on; overrides the '
                            'configuration file ([api] host, or '
                            '[placement_api] host for '
                            'blazar-ext-placement-api).'),
    cfg.PortOpt('port', dest='listen_port', metavar='PORT',
                help='Port to listen on; overrides the configuration file '
                     '([api] port, default 1234, or [placement_api] port, '
                     'default 8778, for blazar-ext-placement-api).'),
]


def apply_cli_opts(conf: cfg.ConfigOpts, group: str = 'api') -> None:
    """Let --host and --port (CLI_OPTS, registered before parsing)
    override ``group``'s host and port options."""
    if conf.listen_host is not None:
        conf.set_override('host', conf.listen_host, group=group)
    if conf.listen_port is not None:
        conf.set_override('port', conf.listen_port, group=group)


class InsecureNoAuth(Exception):
    """noauth on an address other hosts can reach, not allowed."""


def is_loopback(host: str) -> bool:
    """True when every address ``host`` names is a loopback address."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except socket.gaierror:
        return False
    return bool(infos) and all(
        ipaddress.ip_address(info[4][0].split('%')[0]).is_loopback
        for info in infos)


def api_host(conf: cfg.ConfigOpts, host: str | None = None,
             port: int | None = None) -> str:
    """The address to bind, or InsecureNoAuth; logs one line under noauth.

    ``host`` and ``port`` are a server's own (blazar-ext-placement-api's);
    unset, [api] host and port.
    """
    noauth = conf.api.auth_strategy == 'noauth'
    host = host or conf.api.host or (LOOPBACK if noauth else ANY)
    port = conf.api.port if port is None else port
    if not noauth:
        return host
    if is_loopback(host):
        LOG.info('auth_strategy = noauth: listening on %s (loopback) only; '
                 'set [api] host and allow_insecure_noauth = true to serve '
                 'other hosts.', host)
    elif conf.api.allow_insecure_noauth:
        LOG.warning('auth_strategy = noauth on %s, allowed by [api] '
                    'allow_insecure_noauth: anyone who reaches port %d may '
                    'act as an admin.', host, port)
    else:
        raise InsecureNoAuth(
            'Refusing to start: auth_strategy = noauth on %s would let '
            'anyone who reaches port %d act as an admin. Listen on '
            '127.0.0.1, use auth_strategy = keystone, or set [api] '
            'allow_insecure_noauth = true.' % (host, port))
    return host
