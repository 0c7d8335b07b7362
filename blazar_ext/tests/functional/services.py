"""Real services for functional tests: reachability checks, throw-away
databases, and service processes started with their logs captured.

The ``*_unavailable`` functions return None when the service answers and a
sentence saying why not otherwise, ready for ``skipTest``. Defaults match
what OpenStack CI and ``tools/test-setup.sh`` provide; the environment
variables BLAZAR_EXT_TEST_TRANSPORT_URL, BLAZAR_EXT_TEST_MYSQL_URL and
BLAZAR_EXT_TEST_POSTGRESQL_URL (server URLs, no database name) point the
tests elsewhere.
"""

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
import uuid

import fixtures
import kombu
import requests
import sqlalchemy as sa
import testtools.content

TRANSPORT_URL = os.environ.get('BLAZAR_EXT_TEST_TRANSPORT_URL',
                               'rabbit://guest:guest@127.0.0.1:5672/')
DATABASE_SERVER_URLS = {
    'mysql': os.environ.get(
        'BLAZAR_EXT_TEST_MYSQL_URL',
        'mysql+pymysql://openstack_citest:openstack_citest@127.0.0.1/'),
    'postgresql': os.environ.get(
        'BLAZAR_EXT_TEST_POSTGRESQL_URL',
        'postgresql+psycopg2://openstack_citest:openstack_citest@127.0.0.1/'),
}
# The database each server URL connects to for administration.
_ADMIN_DATABASE = {'mysql': 'openstack_citest',
                   'postgresql': 'openstack_citest'}
BIN_DIR = os.path.dirname(sys.executable)


def _kombu_url(transport_url: str) -> str:
    # oslo.messaging spells it rabbit://, kombu amqp://.
    return transport_url.replace('rabbit://', 'amqp://', 1)


# ``tox -e py3`` sets it: the fast path on SQLite and fake:// only.
SQLITE_ONLY_REASON = ('BLAZAR_EXT_TEST_SQLITE_ONLY is set (tox -e py3); '
                      'run tox -e functional for the real services')


def sqlite_only() -> bool:
    return bool(os.environ.get('BLAZAR_EXT_TEST_SQLITE_ONLY'))


def rabbitmq_unavailable(transport_url: str = TRANSPORT_URL,
                         timeout: float = 3.0) -> str | None:
    """None when RabbitMQ accepts a login at transport_url, else why not."""
    if sqlite_only():
        return SQLITE_ONLY_REASON
    try:
        with kombu.Connection(_kombu_url(transport_url),
                              connect_timeout=timeout) as conn:
            conn.ensure_connection(max_retries=1, timeout=timeout)
    except Exception as exc:
        return 'RabbitMQ is not reachable at %s: %s' % (
            _redact(transport_url), exc)
    return None


def rpc_consumers(topic: str, transport_url: str = TRANSPORT_URL) -> int:
    """How many RPC servers consume the topic's queue (0 if none yet).

    oslo.messaging's rabbit driver names a topic's shared queue after the
    topic, so a passive declare counts the servers listening on it.
    """
    with kombu.Connection(_kombu_url(transport_url),
                          connect_timeout=3) as conn:
        channel = conn.channel()
        try:
            _, _, consumers = channel.queue_declare(queue=topic,
                                                    passive=True)
        except conn.channel_errors:
            return 0  # Not declared yet.
        finally:
            try:
                channel.close()
            except Exception:
                pass
        return consumers


def delete_queues(names: list[str], transport_url: str = TRANSPORT_URL
                  ) -> None:
    """Remove a test's RPC queues so runs leave nothing on the broker."""
    with kombu.Connection(_kombu_url(transport_url),
                          connect_timeout=3) as conn:
        for name in names:
            channel = conn.channel()
            try:
                channel.queue_delete(queue=name)
            except conn.channel_errors:
                pass  # Never declared, or already gone.
            finally:
                try:
                    channel.close()
                except Exception:
                    pass


def _redact(url: str) -> str:
    return re.sub(r'://([^:/@]*):[^@]*@', r'://\1:***@', url)


def _server_engine(backend: str) -> sa.engine.Engine:
    url = sa.engine.make_url(DATABASE_SERVER_URLS[backend]).set(
        database=_ADMIN_DATABASE[backend])
    # AUTOCOMMIT: PostgreSQL refuses CREATE/DROP DATABASE in a transaction.
    return sa.create_engine(url, isolation_level='AUTOCOMMIT',
                            poolclass=sa.pool.NullPool,
                            connect_args={'connect_timeout': 3})


def database_unavailable(backend: str) -> str | None:
    """None when the backend's openstack_citest login works, else why not."""
    if sqlite_only():
        return SQLITE_ONLY_REASON
    if backend == 'sqlite':
        return None  # A file: always there.
    if backend not in DATABASE_SERVER_URLS:
        return 'unknown database backend %r' % backend
    try:
        engine = _server_engine(backend)
        with engine.connect() as conn:
            conn.execute(sa.text('SELECT 1'))
    except Exception as exc:
        return ('%s is not reachable as openstack_citest (run '
                'tools/test-setup.sh): %s' % (backend, exc))
    return None


class Database(fixtures.Fixture):
    """A fresh, empty database on a real server, dropped on cleanup;
    ``create_options`` follow CREATE DATABASE <name> (a collation, say)."""

    def __init__(self, backend: str, create_options: str = ''):
        super().__init__()
        self.backend = backend
        self.create_options = create_options

    def _setUp(self):
        self.name = 'blazar_ext_%s' % uuid.uuid4().hex[:12]
        engine = _server_engine(self.backend)
        self.addCleanup(engine.dispose)
        with engine.connect() as conn:
            conn.execute(sa.text('CREATE DATABASE %s %s' % (
                self.name, self.create_options)))
        self.addCleanup(self._drop, engine)
        self.url = sa.engine.make_url(
            DATABASE_SERVER_URLS[self.backend]).set(
                database=self.name).render_as_string(hide_password=False)

    def _drop(self, engine) -> None:
        with engine.connect() as conn:
            if self.backend == 'postgresql':
                # Connections a killed service left behind block the drop.
                conn.execute(sa.text(
                    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity '
                    'WHERE datname = :name AND pid <> pg_backend_pid()'),
                    {'name': self.name})
            conn.execute(sa.text('DROP DATABASE IF EXISTS %s' % self.name))


class SQLiteFile(fixtures.Fixture):
    """A SQLite database file in ``directory`` (which the caller cleans),
    shaped as Database for Deployment."""

    def __init__(self, directory: str):
        super().__init__()
        self.url = 'sqlite:///%s' % os.path.join(directory, 'blazar_ext.db')


def free_port(host: str = '127.0.0.1') -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def script(name: str) -> str:
    """Path of a console script installed beside this Python."""
    path = os.path.join(BIN_DIR, name)
    if not os.path.exists(path):
        raise RuntimeError(
            '%s is not installed in %s; run `pip install -e .` to generate '
            'the console scripts' % (name, BIN_DIR))
    return path


class ServiceProcess(fixtures.Fixture):
    """A long-running process with stdout and stderr in a log file.

    Started in its own session so stop() reaches any worker it forks. The
    log is attached to the test's details, so a failing test shows it.
    """

    def __init__(self, name: str, argv: list[str], log_dir: str,
                 env: dict | None = None):
        super().__init__()
        self.name = name
        self.argv = argv
        self.log_path = os.path.join(log_dir, '%s.log' % name)
        self.env = env

    def _setUp(self):
        self._terminated = False
        self._log = open(self.log_path, 'ab')
        self.addCleanup(self._log.close)
        self.process = subprocess.Popen(
            self.argv, stdout=self._log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
            env=self.env)
        # Cleanups run last-in first-out: stop, then attach the log.
        self.addCleanup(self.attach_log)
        self.addCleanup(self.stop)

    def attach_log(self) -> None:
        self.addDetail('%s-log' % self.name,
                       testtools.content.content_from_file(
                           self.log_path, buffer_now=True))

    def log(self) -> str:
        with open(self.log_path, encoding='utf-8', errors='replace') as f:
            return f.read()

    def running(self) -> bool:
        return self.process.poll() is None

    def terminate(self) -> None:
        """Send SIGTERM to the process group once, without waiting."""
        # Only once: a second SIGTERM landing while Python finalizes (its
        # handlers already reset) would kill a process that was exiting
        # cleanly.
        if self.process.poll() is None and not self._terminated:
            self._terminated = True
            self._signal(signal.SIGTERM)

    def stop(self, timeout: float = 5.0) -> int | None:
        """SIGTERM the process group, SIGKILL it if it lingers."""
        if self.process.poll() is None:
            self.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self._signal(signal.SIGKILL)
                self.process.wait(timeout)
        # Workers forked by the process may outlive it; end them too.
        self._signal(signal.SIGKILL)
        return self.process.returncode

    def _signal(self, signum: int) -> None:
        try:
            os.killpg(self.process.pid, signum)
        except (ProcessLookupError, PermissionError):
            pass


def wait_for(predicate, timeout: float, what: str,
             processes: list[ServiceProcess] = (),
             interval: float = 0.2):
    """Poll predicate until it returns a true value; returns that value.

    Raises RuntimeError naming ``what`` on timeout, or at once when one of
    ``processes`` exits, with the end of its log.
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            result = predicate()
        except Exception:
            result = None
        if result:
            return result
        for process in processes:
            if not process.running():
                raise RuntimeError(
                    '%s exited with %s while waiting for %s:\n%s'
                    % (process.name, process.process.returncode, what,
                       process.log()[-4000:]))
        if time.monotonic() > deadline:
            tails = ''.join('\n%s log:\n%s' % (p.name, p.log()[-4000:])
                            for p in processes)
            raise RuntimeError('timed out after %ss waiting for %s%s'
                               % (timeout, what, tails))
        time.sleep(interval)


def http_answers(url: str) -> bool:
    """True when an HTTP server answers at url (any status)."""
    try:
        requests.get(url, timeout=2)
    except requests.RequestException:
        return False
    return True


class AllInOne(fixtures.Fixture):
    """blazar-ext-all-in-one (the README's first command) on a free port,
    its state and configuration file in ``state_path``, answering.

    ``options`` is more configuration, written right after the [api]
    section's host and port (so it may go on with [api] options before
    starting sections of its own).
    """

    def __init__(self, state_path: str, options: str = '',
                 env: dict | None = None, name: str = 'all-in-one'):
        super().__init__()
        self.state_path = state_path
        self.options = options
        self.env = env
        self.name = name

    def _setUp(self):
        port = free_port()
        self.url = 'http://127.0.0.1:%d' % port
        self.config_file = os.path.join(self.state_path, 'blazar-ext.conf')
        with open(self.config_file, 'w') as f:
            f.write('[DEFAULT]\nstate_path = %s\n[api]\nhost = 127.0.0.1\n'
                    'port = %d\n%s' % (self.state_path, port, self.options))
        self.process = self.useFixture(ServiceProcess(
            self.name, [script('blazar-ext-all-in-one'),
                        '--config-file', self.config_file],
            self.state_path, env=self.env))
        wait_for(lambda: http_answers(self.url + '/'), 60,
                 'blazar-ext-all-in-one on %s' % self.url,
                 processes=[self.process])


def children(pid: int) -> list[int]:
    """The pids of a process's children, sorted (Linux /proc)."""
    with open('/proc/%d/task/%d/children' % (pid, pid)) as f:
        return sorted(int(child) for child in f.read().split())


def api_workers(pid: int, count: int, timeout: float = 30) -> list[int]:
    """The ``count`` worker pids of ``blazar-ext-api --workers`` ``pid``,
    once it has forked them all."""
    return wait_for(lambda: len(children(pid)) == count and children(pid),
                    timeout, '%d API workers' % count)


@contextlib.contextmanager
def stopped(pid: int):
    """The process ``pid`` stopped (SIGSTOP) meanwhile, so that its
    siblings serve alone."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


def run(argv: list[str], timeout: float = 60.0,
        env: dict | None = None) -> subprocess.CompletedProcess:
    """Run a command to completion, capturing its output as text."""
    return subprocess.run(argv, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL,
                          env=env)


class Deployment(fixtures.Fixture):
    """blazar-ext at scale on this machine: one blazar-ext-api and several
    blazar-ext-manager processes over RabbitMQ, on a fresh database.

    Each deployment gets its own database and RPC topic, so concurrent
    runs do not see each other. Callers check rabbitmq_unavailable() and
    database_unavailable() first and skip when either answers.
    """

    def __init__(self, backend: str, managers: int = 2,
                 api_workers: int = 1, timeout: float = 30.0,
                 rpc_timeout: int = 20, extra_config: str = ''):
        super().__init__()
        # Config file text appended to every process's configuration.
        self.extra_config = extra_config
        self.backend = backend
        self.manager_count = managers
        self.api_workers = api_workers
        self.timeout = timeout
        self.rpc_timeout = rpc_timeout

    def _setUp(self):
        self.dir = self.useFixture(fixtures.TempDir()).path
        self.database = self.useFixture(
            SQLiteFile(self.dir) if self.backend == 'sqlite'
            else Database(self.backend))
        self.topic = 'blazar_ext_test_%s' % uuid.uuid4().hex[:12]
        self.port = free_port()
        self.endpoint = 'http://127.0.0.1:%d' % self.port
        self.config_file = self._write_config()
        # Child processes must not pick up the caller's OS_* settings.
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith('OS_')}

        result = self.db_manage('upgrade')
        if result.returncode != 0:
            raise RuntimeError('blazar-ext-db-manage upgrade failed (%s):\n%s'
                               % (result.returncode,
                                  result.stdout + result.stderr))

        hosts = ['manager-%d' % n for n in range(1, self.manager_count + 1)]
        # Registered before the processes start, so it runs after they stop.
        self.addCleanup(delete_queues,
                        [self.topic] + ['%s.%s' % (self.topic, host)
                                        for host in hosts])
        # Started together: each takes seconds to import and connect.
        self.managers = [self._start_manager(host) for host in hosts]
        self.api = self.useFixture(ServiceProcess(
            'api', [script('blazar-ext-api'),
                    '--config-file', self.config_file],
            self.dir, env=self.env))
        # Runs before the processes' own cleanups: every process gets its
        # SIGTERM at once instead of one after the other.
        self.addCleanup(self.terminate_all)
        wait_for(lambda: rpc_consumers(self.topic) >= len(self.managers),
                 self.timeout, 'the managers to consume %s' % self.topic,
                 processes=self.managers)
        wait_for(lambda: http_answers(self.endpoint + '/'), self.timeout,
                 'blazar-ext-api on %s' % self.endpoint,
                 processes=[self.api])

    def _write_config(self) -> str:
        path = os.path.join(self.dir, 'blazar-ext.conf')
        with open(path, 'w') as f:
            f.write(
                '[DEFAULT]\n'
                'transport_url = %(transport)s\n'
                'state_path = %(dir)s\n'
                'debug = true\n'
                '[manager]\n'
                'topic = %(topic)s\n'
                'rpc_timeout = %(rpc_timeout)d\n'
                '[database]\n'
                'connection = %(db)s\n'
                '[api]\n'
                'host = 127.0.0.1\n'
                'port = %(port)d\n'
                'workers = %(workers)d\n'
                'auth_strategy = noauth\n'
                # Reply and fanout queues a killed process leaves behind
                # expire after a minute instead of oslo.messaging's 30.
                '[oslo_messaging_rabbit]\n'
                'rabbit_transient_queues_ttl = 60\n'
                % {'transport': TRANSPORT_URL, 'dir': self.dir,
                   'topic': self.topic, 'db': self.database.url,
                   'port': self.port, 'workers': self.api_workers,
                   'rpc_timeout': self.rpc_timeout})
            f.write(self.extra_config)
        return path

    def _start_manager(self, host: str) -> ServiceProcess:
        # A config file of its own gives each manager a distinct [DEFAULT]
        # host, hence a distinct server queue on the topic.
        own = os.path.join(self.dir, '%s.conf' % host)
        with open(own, 'w') as f:
            f.write('[DEFAULT]\nhost = %s\n' % host)
        return self.useFixture(ServiceProcess(
            host, [script('blazar-ext-manager'),
                   '--config-file', self.config_file, '--config-file', own],
            self.dir, env=self.env))

    def start_api(self, name: str, overrides: str = ''
                  ) -> tuple[ServiceProcess, str]:
        """Another blazar-ext-api on a port of its own, the deployment's
        configuration overridden by ``overrides`` (config file text).

        Returns the process, already answering, and its endpoint.
        """
        port = free_port()
        own = os.path.join(self.dir, '%s.conf' % name)
        with open(own, 'w') as f:
            f.write('[api]\nport = %d\n%s\n' % (port, overrides))
        api = self.useFixture(ServiceProcess(
            name, [script('blazar-ext-api'),
                   '--config-file', self.config_file, '--config-file', own],
            self.dir, env=self.env))
        endpoint = 'http://127.0.0.1:%d' % port
        wait_for(lambda: http_answers(endpoint + '/'), self.timeout,
                 '%s on %s' % (name, endpoint), processes=[api])
        return api, endpoint

    def terminate_all(self) -> None:
        """SIGTERM the API and every manager, without waiting."""
        for process in [self.api] + self.managers:
            process.terminate()

    def db_manage(self, *args: str) -> subprocess.CompletedProcess:
        """Run blazar-ext-db-manage on this deployment's configuration."""
        return run([script('blazar-ext-db-manage'),
                    '--config-file', self.config_file] + list(args),
                   env=self.env)
