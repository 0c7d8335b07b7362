"""Shared pieces of the chaos scripts: a deployment of real processes,
a lease load generator, and the checks that count what was lost.

Each script prints what it threw and what was lost and exits 1 when
anything was lost (0 when nothing, 2 when a service it needs is absent).
"""

import collections
import datetime
import os
import random
import shutil
import socket
import subprocess
import sys
import threading
import time
import uuid

import fixtures
import requests
import sqlalchemy as sa

from blazar_ext.tests.functional import services

ADMIN = {'X-Auth-Token': 'admin'}
FMT = '%Y-%m-%d %H:%M'
# Statuses a lease only passes through: none may remain once the dust
# settles.
TRANSITIONAL = ('CREATING', 'STARTING', 'UPDATING', 'TERMINATING',
                'DELETING')
# What a client may be answered under contention (issue 9).
ACCEPTABLE = {200, 201, 202, 204, 403, 404, 409}


def date(minutes: float, now: datetime.datetime | None = None) -> str:
    now = now or datetime.datetime.now(datetime.timezone.utc)
    return (now + datetime.timedelta(minutes=minutes)).strftime(FMT)


def host_spec(low: int = 1, high: int = 1) -> dict:
    return {'resource_type': 'physical:host', 'min': low, 'max': high,
            'hypervisor_properties': '', 'resource_properties': ''}


def skip_reason(backend: str, transport_url: str | None = None
                ) -> str | None:
    broker = transport_url or services.TRANSPORT_URL
    for reason in (services.rabbitmq_unavailable(broker),
                   services.database_unavailable(backend)):
        if reason:
            return reason
    return None


class Deployment(fixtures.Fixture):
    """``apis`` blazar-ext-api and ``managers`` blazar-ext-manager
    processes on a fresh database, sharing a private RPC topic.

    Like services.Deployment, plus: several APIs, extra configuration
    text, and a transport URL or database URL of the caller's choosing
    (a private RabbitMQ or MariaDB).
    """

    def __init__(self, backend: str, managers: int = 2, apis: int = 2,
                 extra_config: str = '', transport_url: str | None = None,
                 database_url: str | None = None, rpc_timeout: int = 30,
                 timeout: float = 60.0):
        super().__init__()
        self.backend = backend
        self.manager_count = managers
        self.api_count = apis
        self.extra_config = extra_config
        self.transport_url = transport_url or services.TRANSPORT_URL
        self.database_url = database_url
        self.rpc_timeout = rpc_timeout
        self.timeout = timeout

    def _setUp(self):
        self.dir = self.useFixture(fixtures.TempDir()).path
        # Runs after the processes stop, before the directory goes.
        self.addCleanup(self._keep_logs)
        if self.database_url is None:
            self.database_url = self.useFixture(
                services.Database(self.backend)).url
        self.topic = 'blazar_ext_chaos_%s' % uuid.uuid4().hex[:12]
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith('OS_')}
        self.config_file = self._write('blazar-ext.conf', (
            '[DEFAULT]\ntransport_url = %s\nstate_path = %s\n'
            'debug = false\n'
            '[manager]\ntopic = %s\nrpc_timeout = %d\n'
            '[database]\nconnection = %s\n'
            '[api]\nhost = 127.0.0.1\nauth_strategy = noauth\n'
            '[oslo_messaging_rabbit]\nrabbit_transient_queues_ttl = 60\n'
            % (self.transport_url, self.dir, self.topic, self.rpc_timeout,
               self.database_url)) + self.extra_config)
        result = services.run([services.script('blazar-ext-db-manage'),
                               '--config-file', self.config_file,
                               'upgrade'], env=self.env)
        if result.returncode != 0:
            raise RuntimeError('db upgrade failed:\n%s%s'
                               % (result.stdout, result.stderr))
        hosts = ['manager-%d' % n for n in range(1, self.manager_count + 1)]
        self.addCleanup(self._delete_queues, hosts)
        self.managers = [self.start_manager(h) for h in hosts]
        self.apis = []
        self.endpoints = []
        for n in range(1, self.api_count + 1):
            port = services.free_port()
            own = self._write('api-%d.conf' % n, '[api]\nport = %d\n' % port)
            self.apis.append(self.useFixture(services.ServiceProcess(
                'api-%d' % n, [services.script('blazar-ext-api'),
                               '--config-file', self.config_file,
                               '--config-file', own],
                self.dir, env=self.env)))
            self.endpoints.append('http://127.0.0.1:%d' % port)
        self.addCleanup(self.terminate_all)
        self.wait_managers()
        for api, endpoint in zip(self.apis, self.endpoints):
            services.wait_for(lambda: services.http_answers(endpoint + '/'),
                              self.timeout, api.name, processes=[api])
        self.engine = sa.create_engine(self.database_url,
                                       poolclass=sa.pool.NullPool)
        self.addCleanup(self.engine.dispose)

    def _keep_logs(self) -> None:
        """Copy the processes' logs to $CHAOS_LOGS (default
        /tmp/chaos-logs)/<topic>."""
        target = os.path.join(os.environ.get('CHAOS_LOGS', '/tmp/chaos-logs'),
                              self.topic)
        os.makedirs(target, exist_ok=True)
        for name in os.listdir(self.dir):
            if name.endswith(('.log', '.conf')):
                shutil.copy(os.path.join(self.dir, name), target)
        print('logs: %s' % target)

    def _write(self, name: str, text: str) -> str:
        path = os.path.join(self.dir, name)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def _delete_queues(self, hosts) -> None:
        try:
            services.delete_queues(
                [self.topic] + ['%s.%s' % (self.topic, h) for h in hosts],
                self.transport_url)
        except Exception:
            pass  # A private broker may be gone already.

    def start_manager(self, host: str) -> services.ServiceProcess:
        """Start (or start again) the manager named ``host``."""
        own = self._write('%s.conf' % host, '[DEFAULT]\nhost = %s\n' % host)
        process = services.ServiceProcess(
            host, [services.script('blazar-ext-manager'),
                   '--config-file', self.config_file, '--config-file', own],
            self.dir, env=self.env)
        return self.useFixture(process)

    def wait_managers(self, count: int | None = None) -> None:
        count = len(self.managers) if count is None else count
        services.wait_for(
            lambda: services.rpc_consumers(self.topic,
                                           self.transport_url) >= count,
            self.timeout, 'managers on %s' % self.topic,
            processes=[m for m in self.managers if m.running()])

    def terminate_all(self) -> None:
        for process in self.apis + self.managers:
            process.terminate()

    def query(self, sql: str, **params) -> list:
        with self.engine.connect() as conn:
            return [tuple(r) for r in conn.execute(sa.text(sql), params)]


class Load:
    """Concurrent lease creates, updates and deletes from many threads,
    spread over several API endpoints; every answer is recorded."""

    def __init__(self, endpoints: list, seed: int = 0,
                 request_timeout: float = 120.0):
        self.endpoints = endpoints
        self.random = random.Random(seed)
        self.request_timeout = request_timeout
        self.lock = threading.Lock()
        self.statuses = collections.Counter()  # (method, status)
        self.bad = []  # (method, path, status or exception, body)
        self.latencies = collections.defaultdict(list)
        self.created = set()  # lease ids answered 201
        self.deleted = set()  # lease ids answered 204
        # Deletes answered 5xx or not at all: done or not, nobody knows.
        self.maybe_deleted = set()
        self.local = threading.local()
        # (monotonic start, method, status or None, seconds) per request.
        self.log = []

    def _session(self) -> requests.Session:
        if not hasattr(self.local, 'session'):
            self.local.session = requests.Session()
            self.local.session.headers.update(ADMIN)
        return self.local.session

    def request(self, method: str, path: str, body=None,
                endpoint: str | None = None):
        """(status or None, json or None); records the outcome."""
        endpoint = endpoint or self.random.choice(self.endpoints)
        started = time.monotonic()
        try:
            resp = self._session().request(
                method, endpoint + path, json=body,
                timeout=self.request_timeout)
        except requests.RequestException as exc:
            with self.lock:
                self.log.append((started, method, None,
                                 time.monotonic() - started))
                self.statuses[(method, 'no answer')] += 1
                self.bad.append((method, path, repr(exc), None))
            return None, None
        elapsed = time.monotonic() - started
        try:
            data = resp.json() if resp.content else None
        except ValueError:
            data = None
        with self.lock:
            self.log.append((started, method, resp.status_code, elapsed))
            self.statuses[(method, resp.status_code)] += 1
            self.latencies[method].append(elapsed)
            if resp.status_code not in ACCEPTABLE:
                self.bad.append((method, path, resp.status_code,
                                 resp.text[:300]))
        return resp.status_code, data

    def create(self, name: str, start: str, end: str, low: int = 1,
               high: int = 1, endpoint: str | None = None):
        status, data = self.request(
            'POST', '/v1/leases',
            {'name': name, 'start_date': start, 'end_date': end,
             'reservations': [host_spec(low, high)], 'events': []},
            endpoint)
        if status == 201:
            with self.lock:
                self.created.add(data['lease']['id'])
            return data['lease']
        return None

    def update(self, lease_id: str, body: dict):
        return self.request('PUT', '/v1/leases/%s' % lease_id, body)

    def delete(self, lease_id: str):
        status, _ = self.request('DELETE', '/v1/leases/%s' % lease_id)
        with self.lock:
            if status == 204:
                self.deleted.add(lease_id)
            elif status is None or status >= 500:
                self.maybe_deleted.add(lease_id)
        return status

    def summary(self) -> str:
        lines = []
        for method in ('POST', 'PUT', 'DELETE', 'GET'):
            counts = {s: n for (m, s), n in self.statuses.items()
                      if m == method}
            if not counts:
                continue
            lat = sorted(self.latencies[method]) or [0]
            lines.append('%-6s %5d  %s  latency p50 %.2fs p99 %.2fs '
                         'max %.2fs' % (
                             method, sum(counts.values()),
                             ' '.join('%s:%d' % kv for kv in sorted(
                                 counts.items(), key=str)),
                             lat[len(lat) // 2],
                             lat[min(len(lat) - 1, int(len(lat) * .99))],
                             lat[-1]))
        return '\n'.join(lines)


class LeasePool:
    """The (lease id, reservation id) pairs a load created and that may
    still be alive, shared by its threads; a lease answered 404 on update
    or gone on delete leaves the pool."""

    def __init__(self, load: Load):
        self.load = load
        self._pairs = []
        self._lock = threading.Lock()

    def pick(self, rnd: random.Random):
        with self._lock:
            return rnd.choice(self._pairs) if self._pairs else None

    def create(self, *args):
        lease = self.load.create(*args)
        if lease:
            with self._lock:
                self._pairs.append((lease['id'],
                                    lease['reservations'][0]['id']))
        return lease

    def update(self, pair: tuple, body: dict) -> None:
        if self.load.update(pair[0], body)[0] == 404:
            self._forget(pair)

    def delete(self, pair: tuple) -> None:
        if self.load.delete(pair[0]) in (204, 404):
            self._forget(pair)

    def _forget(self, pair: tuple) -> None:
        with self._lock:
            if pair in self._pairs:
                self._pairs.remove(pair)


def run_threads(count: int, target, *args) -> None:
    threads = [threading.Thread(target=target, args=(n,) + args,
                                daemon=True) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


# Checks: each returns a list of sentences, one per thing lost.

def overlapping_allocations(deployment: Deployment) -> list:
    """Two allocations of one host whose windows overlap (live leases)."""
    rows = deployment.query(
        'SELECT a.compute_host_id, a.reservation_id, a.start_date, '
        'a.end_date, l.id, l.status FROM computehost_allocations a '
        'JOIN reservations r ON r.id = a.reservation_id '
        'JOIN leases l ON l.id = r.lease_id '
        'ORDER BY a.compute_host_id, a.start_date')
    lost = []
    by_host = collections.defaultdict(list)
    for row in rows:
        by_host[row[0]].append(row)
    for host, allocs in by_host.items():
        for i, a in enumerate(allocs):
            for b in allocs[i + 1:]:
                if a[2] < b[3] and b[2] < a[3]:
                    lost.append('host %s booked twice: lease %s (%s) %s-%s '
                                'and lease %s (%s) %s-%s' % (
                                    host, a[4], a[5], a[2], a[3], b[4],
                                    b[5], b[2], b[3]))
    # The same check in SQL, as an operator would run it.
    sql = deployment.query(
        'SELECT COUNT(*) FROM computehost_allocations a '
        'JOIN computehost_allocations b ON a.compute_host_id = '
        'b.compute_host_id AND a.id < b.id AND a.start_date < b.end_date '
        'AND b.start_date < a.end_date')[0][0]
    if sql and not lost:
        lost.append('%d overlapping allocation pairs (SQL)' % sql)
    return lost


def transitional_leases(deployment: Deployment) -> list:
    rows = deployment.query(
        'SELECT id, status FROM leases WHERE status IN (%s)'
        % ', '.join("'%s'" % s for s in TRANSITIONAL))
    return ['lease %s stuck in %s' % row for row in rows]


def half_made_leases(deployment: Deployment) -> list:
    """Live leases whose host reservations hold fewer than min or more
    than max hosts, or that have no reservation or not three events."""
    lost = []
    rows = deployment.query(
        'SELECT l.id, l.status, r.id, c.count_range, '
        '(SELECT COUNT(*) FROM computehost_allocations a '
        ' WHERE a.reservation_id = r.id) '
        'FROM leases l LEFT JOIN reservations r ON r.lease_id = l.id '
        'LEFT JOIN computehost_reservations c ON c.reservation_id = r.id')
    for lease_id, status, res_id, count_range, held in rows:
        if res_id is None:
            lost.append('lease %s (%s) has no reservation'
                        % (lease_id, status))
            continue
        if status in ('PENDING', 'ACTIVE') and count_range:
            low, high = (int(v) for v in count_range.split('-'))
            if not low <= held <= high:
                lost.append('lease %s (%s) holds %d hosts, wants %s'
                            % (lease_id, status, held, count_range))
        if status in ('TERMINATED', 'ERROR') and held:
            lost.append('lease %s (%s) still holds %d hosts'
                        % (lease_id, status, held))
    for lease_id, events in deployment.query(
            'SELECT l.id, (SELECT COUNT(*) FROM events e '
            'WHERE e.lease_id = l.id) FROM leases l '
            "WHERE l.status <> 'ERROR'"):
        if events != 3:
            lost.append('lease %s has %d events, not 3' % (lease_id, events))
    return lost


def lease_accounting(deployment: Deployment, load: Load) -> list:
    """Leases answered 201 and not deleted exist; deleted ones are gone;
    none exists that no client was told about."""
    in_db = {row[0] for row in deployment.query('SELECT id FROM leases')}
    lost = []
    for lease_id in sorted((load.created - load.deleted -
                            load.maybe_deleted) - in_db):
        lost.append('lease %s answered 201 is missing' % lease_id)
    for lease_id in sorted(load.deleted & in_db):
        lost.append('lease %s answered 204 to DELETE still exists'
                    % lease_id)
    for lease_id in sorted(in_db - load.created):
        lost.append('lease %s exists but no client got a 201 for it'
                    % lease_id)
    return lost


def service_state(deployment: Deployment, load: Load | None = None) -> list:
    """Every check of the service's state after a run: no double booking,
    no stuck or half made lease, every answered lease accounted for (when
    ``load`` is given), every process still running."""
    lost = (overlapping_allocations(deployment) +
            transitional_leases(deployment) +
            half_made_leases(deployment))
    if load is not None:
        lost += lease_accounting(deployment, load)
    for process in deployment.apis + deployment.managers:
        if not process.running():
            lost.append('%s died' % process.name)
    return lost


def lease_statuses(deployment: Deployment) -> dict:
    """{status: number of leases}."""
    return dict(deployment.query(
        'SELECT status, COUNT(*) FROM leases GROUP BY status'))


def bad_answers(load: Load, limit: int = 20) -> list:
    return ['%s %s -> %s %s' % item for item in load.bad[:limit]] + (
        ['... and %d more' % (len(load.bad) - limit)]
        if len(load.bad) > limit else [])


def report(title: str, thrown: list, lost: list) -> int:
    """Print the outcome; the exit status for the script."""
    print('=' * 72)
    print(title)
    print('thrown:')
    for line in thrown:
        for part in line.strip('\n').split('\n'):
            print('  ' + part)
    print('lost: %s' % ('nothing' if not lost else len(lost)))
    for line in lost:
        print('  LOST ' + line)
    sys.stdout.flush()
    return 1 if lost else 0


class PrivateRabbitMQ(fixtures.Fixture):
    """A RabbitMQ node of our own (never the shared one on 5672): its own
    node name, ports, configuration and data in a temporary directory.

    stop_app()/start_app() take the broker down and up under load;
    cleanup halts the node.
    """

    def _setUp(self):
        self.dir = self.useFixture(fixtures.TempDir()).path
        self.port = services.free_port()
        self.node = 'chaos%s@localhost' % uuid.uuid4().hex[:8]
        files = {'rabbitmq.conf': 'listeners.tcp.local = 127.0.0.1:%d\n'
                                  % self.port,
                 'enabled_plugins': '[].\n',
                 # Not /etc/rabbitmq/rabbitmq-env.conf: it names the
                 # shared node.
                 'rabbitmq-env.conf': 'NODENAME=%s\n'
                                      'ERL_EPMD_ADDRESS=127.0.0.1\n'
                                      % self.node}
        for name, text in files.items():
            with open(os.path.join(self.dir, name), 'w') as f:
                f.write(text)
        self.env = dict(
            os.environ, RABBITMQ_NODENAME=self.node,
            RABBITMQ_NODE_PORT=str(self.port),
            RABBITMQ_DIST_PORT=str(services.free_port()),
            RABBITMQ_MNESIA_BASE=os.path.join(self.dir, 'mnesia'),
            RABBITMQ_LOG_BASE=os.path.join(self.dir, 'log'),
            RABBITMQ_CONFIG_FILE=os.path.join(self.dir, 'rabbitmq.conf'),
            RABBITMQ_ENABLED_PLUGINS_FILE=os.path.join(self.dir,
                                                       'enabled_plugins'),
            RABBITMQ_CONF_ENV_FILE=os.path.join(self.dir,
                                                'rabbitmq-env.conf'),
            RABBITMQ_PID_FILE=os.path.join(self.dir, 'pid'))
        if os.geteuid() == 0:
            # The packaged wrapper runs the node as the rabbitmq user.
            services.run(['chown', '-R', 'rabbitmq:', self.dir])
        result = services.run(['rabbitmq-server', '-detached'],
                              env=self.env)
        if result.returncode != 0:
            raise RuntimeError('rabbitmq-server: %s%s'
                               % (result.stdout, result.stderr))
        self.addCleanup(self.ctl, 'stop')
        # Until the node has registered, await_startup fails at once.
        services.wait_for(lambda: self.ctl('await_startup') is None, 60,
                          'RabbitMQ node %s' % self.node, interval=1)
        self.url = 'rabbit://guest:guest@127.0.0.1:%d/' % self.port

    def ctl(self, *args: str) -> None:
        """rabbitmqctl against this node only."""
        result = services.run(['rabbitmqctl', '-n', self.node] + list(args),
                              env=self.env, timeout=90)
        if result.returncode != 0:
            raise RuntimeError('rabbitmqctl %s: %s%s' % (
                ' '.join(args), result.stdout, result.stderr))

    def stop_app(self) -> None:
        self.ctl('stop_app')

    def start_app(self) -> None:
        self.ctl('start_app')


class PrivateMariaDB(fixtures.Fixture):
    """A mariadbd of our own (never the shared one on 3306): datadir,
    port and socket in a temporary directory, a ``chaos`` user and an
    empty ``blazar`` database. stop()/start() restart it under load;
    kill() crashes it (SIGKILL) so that start() runs crash recovery.
    """

    def _setUp(self):
        self.dir = self.useFixture(fixtures.TempDir()).path
        self.datadir = os.path.join(self.dir, 'data')
        self.socket = os.path.join(self.dir, 'mysqld.sock')
        self.port = services.free_port()
        self.log_path = os.path.join(self.dir, 'mariadbd.log')
        user = ['--user=mysql'] if os.geteuid() == 0 else []
        if user:
            services.run(['chown', 'mysql:', self.dir])
        result = services.run(
            ['mariadb-install-db', '--no-defaults', '--datadir=%s'
             % self.datadir, '--auth-root-authentication-method=socket',
             '--skip-test-db'] + user, timeout=120)
        if result.returncode != 0:
            raise RuntimeError('mariadb-install-db: %s%s'
                               % (result.stdout, result.stderr))
        self.argv = ['mariadbd', '--no-defaults',
                     '--datadir=%s' % self.datadir,
                     '--port=%d' % self.port, '--socket=%s' % self.socket,
                     '--bind-address=127.0.0.1',
                     '--pid-file=%s' % os.path.join(self.dir, 'pid'),
                     '--skip-log-bin', '--innodb-buffer-pool-size=64M',
                     '--log-error=%s' % self.log_path] + user
        self.process = None
        self.addCleanup(self.stop)
        self.start()
        import pymysql
        conn = pymysql.connect(unix_socket=self.socket, user='root')
        with conn.cursor() as cur:
            cur.execute("CREATE USER 'chaos'@'%' IDENTIFIED BY 'chaos'")
            cur.execute("GRANT ALL ON *.* TO 'chaos'@'%'")
            cur.execute('CREATE DATABASE blazar')
        conn.close()
        self.url = ('mysql+pymysql://chaos:chaos@127.0.0.1:%d/blazar'
                    % self.port)

    def _answers(self) -> bool:
        try:
            with socket.create_connection(('127.0.0.1', self.port), 1):
                return True
        except OSError:
            return False

    def start(self) -> None:
        log = open(os.path.join(self.dir, 'stdout.log'), 'ab')
        self.process = subprocess.Popen(
            self.argv, stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()
        services.wait_for(lambda: self._answers() and
                          os.path.exists(self.socket), 120,
                          'mariadbd on port %d' % self.port)

    def stop(self) -> None:
        """A clean shutdown (SIGTERM), waited for."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(120)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def kill(self) -> None:
        """A crash: SIGKILL."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
