"""Checks a service runs before it starts serving, and its metrics.

Each check returns None when all is well, else one sentence saying what is
wrong and what to set; ready() logs the first failure, and the console
script exits non-zero instead of starting a service that would answer
every request with a 500. blazar-ext-status upgrade check runs the same
checks.
"""

import contextlib
import socket
import time

from keystoneauth1 import exceptions as ks_exceptions
from keystoneauth1 import loading as ks_loading
from keystonemiddleware import opts as ksm_opts
from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging
import sqlalchemy as sa

from blazar_ext.api import metrics as api_metrics
from blazar_ext import metrics

LOG = logging.getLogger(__name__)

AUTHTOKEN_GROUP = 'keystone_authtoken'
DEFAULT_AMQP_PORT = 5672
# One attempt waits at most this long (a silently dropped SYN).
_ATTEMPT_TIMEOUT = 5
_POLL_INTERVAL = 1.0


def _redact(url: str) -> str:
    try:
        return sa.engine.make_url(url).render_as_string(hide_password=True)
    except Exception:
        return '<unparsable URL>'


def keystone_problem(conf: cfg.ConfigOpts) -> str | None:
    """Why [keystone_authtoken] cannot validate tokens, or None.

    Usable means what keystonemiddleware needs to validate a token: an
    auth plugin (auth_type) with the options it requires (auth_url and the
    service user's credentials for ``password``). Nothing to check under
    noauth.
    """
    if conf.api.auth_strategy != 'keystone':
        return None
    for group, opts in ksm_opts.list_auth_token_opts():
        conf.register_opts(opts, group=group)
    ks_loading.register_auth_conf_options(conf, AUTHTOKEN_GROUP)
    hint = ('set [keystone_authtoken] auth_type (password), auth_url, '
            'username, password, project_name, user_domain_name, '
            'project_domain_name and www_authenticate_uri, or [api] '
            'auth_strategy = noauth for a test deployment')
    if not conf[AUTHTOKEN_GROUP].auth_type:
        return ('[api] auth_strategy = keystone but [keystone_authtoken] '
                'has no auth_type, so no token can be validated: ' + hint)
    try:
        plugin = ks_loading.load_auth_from_conf_options(conf,
                                                        AUTHTOKEN_GROUP)
    except ks_exceptions.MissingRequiredOptions as exc:
        names = ', '.join(opt.dest for opt in exc.options)
        return ('[keystone_authtoken] auth_type = %s needs %s: set them '
                '(%s)' % (conf[AUTHTOKEN_GROUP].auth_type, names, hint))
    except ks_exceptions.NoMatchingPlugin as exc:
        return '[keystone_authtoken] auth_type: %s' % exc
    except Exception as exc:
        return '[keystone_authtoken] cannot be loaded: %s' % exc
    if plugin is None:
        return ('[keystone_authtoken] gives no auth plugin: ' + hint)
    return None


def _waited(timeout: float) -> str:
    return ' after %ss' % timeout if timeout else ''


def _until(deadline: float, attempt) -> str | None:
    """attempt() until it returns None or the deadline passes; its last
    answer."""
    while True:
        problem = attempt()
        if problem is None or time.monotonic() >= deadline:
            return problem
        time.sleep(min(_POLL_INTERVAL,
                       max(0.0, deadline - time.monotonic())))


def database_problem(conf: cfg.ConfigOpts,
                     timeout: float = 0) -> str | None:
    """Why [database] connection does not answer within ``timeout``
    seconds, or None."""
    url = conf.database.connection
    if not url:
        return '[database] connection is not set'
    try:
        parsed = sa.engine.make_url(url)
    except Exception as exc:
        return '[database] connection cannot be parsed: %s' % exc
    connect_args = {}
    if parsed.get_backend_name() in ('mysql', 'postgresql'):
        connect_args['connect_timeout'] = _ATTEMPT_TIMEOUT
    try:
        engine = sa.create_engine(url, poolclass=sa.pool.NullPool,
                                  connect_args=connect_args)
    except Exception as exc:
        return '[database] connection %s cannot be used: %s' % (
            _redact(url), exc)

    def attempt():
        try:
            with engine.connect() as conn:
                conn.execute(sa.text('SELECT 1'))
        except Exception as exc:
            reason = str(getattr(exc, 'orig', None) or exc).splitlines()
            return ('cannot reach the database at %s%s: %s; check '
                    '[database] connection and that the server is up' % (
                        _redact(url), _waited(timeout),
                        reason[0] if reason else type(exc).__name__))
        return None

    try:
        return _until(time.monotonic() + timeout, attempt)
    finally:
        engine.dispose()


def broker_problem(conf: cfg.ConfigOpts, timeout: float = 0) -> str | None:
    """Why no host of [DEFAULT] transport_url accepts a connection within
    ``timeout`` seconds, or None; fake:// needs nothing. Reachability only:
    credentials and TLS are oslo.messaging's to report."""
    url = conf.transport_url
    if not url or url.startswith('fake:'):
        return None
    try:
        parsed = oslo_messaging.TransportURL.parse(conf, url)
    except Exception as exc:
        return '[DEFAULT] transport_url cannot be parsed: %s' % exc
    addresses = [(host.hostname or '127.0.0.1', host.port or DEFAULT_AMQP_PORT)
                 for host in parsed.hosts] or [('127.0.0.1',
                                                DEFAULT_AMQP_PORT)]

    def attempt():
        reasons = []
        for address in addresses:
            try:
                with socket.create_connection(address,
                                              timeout=_ATTEMPT_TIMEOUT):
                    return None
            except OSError as exc:
                reasons.append('%s:%d (%s)' % (address[0], address[1],
                                               exc.strerror or exc))
        return ('cannot reach the message broker of [DEFAULT] '
                'transport_url%s: %s; check transport_url and that '
                'the broker is up' % (_waited(timeout), ', '.join(reasons)))

    return _until(time.monotonic() + timeout, attempt)


def ready(conf: cfg.ConfigOpts, keystone: bool = False,
          database: bool = True, broker: bool = False) -> bool:
    """Run the checks a service needs; log the first failure as one line
    and return False, or True when it may start."""
    timeout = conf.startup_timeout
    checks = []
    if keystone:
        checks.append(lambda: keystone_problem(conf))
    if database:
        checks.append(lambda: database_problem(conf, timeout))
    if broker:
        checks.append(lambda: broker_problem(conf, timeout))
    for check in checks:
        problem = check()
        if problem:
            LOG.error('Refusing to start: %s.', problem)
            return False
    return True


@contextlib.contextmanager
def metrics_for(conf: cfg.ConfigOpts, workers: int):
    """Prepare metrics for ``workers`` API processes; yields what the
    parent calls once they run (serving [metrics] port, if set)."""
    shared = (metrics.SharedDirectory() if workers > 1 and
              conf.metrics.enabled else contextlib.nullcontext())

    def parent_ready() -> None:
        if conf.metrics.enabled and conf.metrics.port:
            api_metrics.serve(conf.metrics.port, conf.metrics.host)

    with shared:
        yield parent_ready
