#!/usr/bin/env python3
"""blazar_ext as production runs it, on one machine: three MariaDB Galera
nodes behind HAProxy (one writer, two backups, an HTTP health check per
node), three clustered RabbitMQ nodes with quorum queues, two
``blazar-ext-api --workers 2`` (directly, and behind HAProxy as
OpenStack's APIs are) and two ``blazar-ext-manager``.

    python3 tools/ha/cluster.py up [--dir /tmp/blazar-ha]
    python3 tools/ha/cluster.py status
    python3 tools/ha/cluster.py kill galera-1     # SIGKILL one piece
    python3 tools/ha/cluster.py start galera-1    # and bring it back
    python3 tools/ha/cluster.py down              # nothing left running

Pieces: galera-1..3, rabbit-1..3, api-1..2, manager-1..2, haproxy,
clustercheck. Standard library only (the services run from a virtualenv
of this repository, made on first use unless ``--venv`` names one).
Needs root, Debian's mariadb-server, galera-4, rsync and rabbitmq-server;
installs haproxy with apt-get when it is missing. The machine's own
MariaDB (3306) and RabbitMQ (rabbit@localhost) are never touched: every
process here is started and stopped by its own pid or node name.
"""

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
DEFAULT_DIR = os.environ.get('BLAZAR_HA_DIR', '/tmp/blazar-ha')
GALERA_PROVIDER = '/usr/lib/galera/libgalera_smm.so'
DB_USER = DB_PASSWORD = 'blazar'
GALERA_NODES = 3
RABBIT_NODES = 3
APIS = 2
MANAGERS = 2


def log(message: str) -> None:
    print('[ha %s] %s' % (time.strftime('%H:%M:%S'), message), flush=True)


def run(argv: list, env: dict | None = None, timeout: float = 300,
        check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run(argv, env=env, timeout=timeout, text=True,
                            capture_output=True, stdin=subprocess.DEVNULL)
    if check and result.returncode != 0:
        raise RuntimeError('%s failed (%d):\n%s%s' % (
            ' '.join(argv), result.returncode, result.stdout,
            result.stderr))
    return result


def free_ports(count: int, taken: set) -> list:
    """``count`` free TCP ports on loopback, each with its successor
    free too (Galera's IST defaults to the group port + 1)."""
    ports = []
    while len(ports) < count:
        with socket.socket() as s:
            s.bind(('127.0.0.1', 0))
            port = s.getsockname()[1]
        if port in taken or port + 1 in taken or port > 64000:
            continue
        try:
            with socket.socket() as s:
                s.bind(('127.0.0.1', port + 1))
        except OSError:
            continue
        taken.update((port, port + 1))
        ports.append(port)
    return ports


def answers(port: int, timeout: float = 1.0) -> bool:
    try:
        with socket.create_connection(('127.0.0.1', port), timeout):
            return True
    except OSError:
        return False


def wait_for(predicate, timeout: float, what: str,
             interval: float = 0.5) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(interval)
    raise RuntimeError('timed out after %ds waiting for %s' % (timeout, what))


def alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie of ours is not alive.
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().split(') ', 1)[1][0] != 'Z'
    except (OSError, IndexError):
        return False


def spawn(argv: list, log_path: str, env: dict | None = None) -> int:
    """Start ``argv`` in a session of its own (so its process group can
    be signalled whole); the pid."""
    with open(log_path, 'ab') as out:
        process = subprocess.Popen(
            argv, stdout=out, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, env=env, start_new_session=True)
    return process.pid


def signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def stop_pid(pid: int | None, timeout: float = 60) -> None:
    """SIGTERM the process group of ``pid``, SIGKILL after ``timeout``."""
    if not alive(pid):
        return
    signal_group(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while alive(pid) and time.monotonic() < deadline:
        _reap(pid)
        time.sleep(0.2)
    if alive(pid):
        signal_group(pid, signal.SIGKILL)
        time.sleep(0.5)
    _reap(pid)


# Servers a cluster runs, by their /proc/<pid>/comm.
SERVERS = frozenset(['beam.smp', 'mariadbd', 'haproxy'])


def strays(workdir: str) -> list:
    """Pids of servers still running from ``workdir`` (their command line
    or environment names it). A RabbitMQ node restarted after a kill can
    outlive its wrapper's process group, and so the pid kept for it.
    Only a path under ``workdir`` counts (``workdir`` + '/')."""
    mark = workdir.rstrip('/').encode() + b'/'
    found = []
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/comm' % entry) as f:
                if f.read().strip() not in SERVERS:
                    continue
            with open('/proc/%s/cmdline' % entry, 'rb') as f:
                cmdline = f.read()
            with open('/proc/%s/environ' % entry, 'rb') as f:
                environ = f.read()
        except OSError:
            continue
        if mark in cmdline or mark in environ:
            found.append(int(entry))
    return found


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


class Cluster:
    """The state of one cluster: ports, pids and node names in
    ``<dir>/state.json``; every method saves what it changes."""

    def __init__(self, directory: str = DEFAULT_DIR,
                 venv: str | None = None, extra_config: str = ''):
        self.dir = os.path.abspath(directory)
        # Appended to blazar-ext.conf (the chaos run's notifications).
        self.extra_config = extra_config
        self.state_path = os.path.join(self.dir, 'state.json')
        self.state = {}
        if os.path.exists(self.state_path):
            with open(self.state_path) as f:
                self.state = json.load(f)
        self.venv = venv or self.state.get('venv')

    # --- state -----------------------------------------------------------

    def save(self) -> None:
        tmp = self.state_path + '.tmp'
        with open(tmp, 'w') as f:
            json.dump(self.state, f, indent=1, sort_keys=True)
        os.replace(tmp, self.state_path)

    def path(self, *parts: str) -> str:
        return os.path.join(self.dir, *parts)

    @property
    def pids(self) -> dict:
        return self.state.setdefault('pids', {})

    def pieces(self) -> list:
        return (['galera-%d' % n for n in range(1, GALERA_NODES + 1)] +
                ['clustercheck', 'haproxy'] +
                ['rabbit-%d' % n for n in range(1, RABBIT_NODES + 1)] +
                ['manager-%d' % n for n in range(1, MANAGERS + 1)] +
                ['api-%d' % n for n in range(1, APIS + 1)])

    # --- prerequisites ---------------------------------------------------

    def install(self) -> None:
        if os.geteuid() != 0:
            raise SystemExit('tools/ha/cluster.py runs as root (mariadbd '
                             'and rabbitmq-server drop to their users).')
        for tool, package in (('mariadbd', 'mariadb-server'),
                              ('rsync', 'rsync'),
                              ('rabbitmq-server', 'rabbitmq-server'),
                              ('haproxy', 'haproxy')):
            if shutil.which(tool) is None:
                self._apt(package)
        if not os.path.exists(GALERA_PROVIDER):
            self._apt('galera-4')
        self.venv = self._virtualenv()
        self.state['venv'] = self.venv

    def _apt(self, package: str) -> None:
        log('installing %s from the distribution' % package)
        env = dict(os.environ, DEBIAN_FRONTEND='noninteractive')
        run(['apt-get', 'install', '-y', '--no-install-recommends',
             package], env=env, timeout=900)

    def _virtualenv(self) -> str:
        """A virtualenv holding this repository: the one given, the one
        running this script if it has blazar_ext, or <repo>/.ha-venv."""
        if self.venv:
            return self.venv
        here = sys.prefix
        if os.path.exists(os.path.join(here, 'bin', 'blazar-ext-api')):
            return here
        venv = os.path.join(REPO, '.ha-venv')
        if not os.path.exists(os.path.join(venv, 'bin', 'blazar-ext-api')):
            log('making the virtualenv %s' % venv)
            run([sys.executable, '-m', 'venv', venv])
            run([os.path.join(venv, 'bin', 'pip'), 'install', '-q',
                 '-e', REPO], timeout=1800)
        return venv

    def bin(self, name: str) -> str:
        return os.path.join(self.venv, 'bin', name)

    # --- up / down -------------------------------------------------------

    def up(self) -> None:
        if self.state.get('pids') and any(
                alive(p) for p in self.pids.values()):
            raise SystemExit('a cluster runs in %s already: %s down first'
                             % (self.dir, sys.argv[0]))
        if os.path.exists(self.dir):
            shutil.rmtree(self.dir)
        os.makedirs(self.dir)
        os.chmod(self.dir, 0o755)
        self.state = {'pids': {}}
        self.install()
        self._plan()
        self.save()
        started = time.monotonic()
        self.galera_up()
        self.clustercheck_up()
        self.haproxy_up()
        self.rabbit_up()
        self.blazar_up()
        log('up in %.0fs; %s' % (time.monotonic() - started,
                                 self.path('blazar-ext.conf')))

    def _plan(self) -> None:
        taken = set()
        suffix = uuid.uuid4().hex[:6]
        self.state['galera'] = [
            {'name': 'galera-%d' % n, 'port': p[0], 'group_port': p[1],
             'sst_port': p[2], 'ist_port': p[3], 'check_port': p[4]}
            for n, p in enumerate(
                [free_ports(5, taken) for _ in range(GALERA_NODES)], 1)]
        self.state['haproxy_port'] = free_ports(1, taken)[0]
        self.state['api_lb_port'] = free_ports(1, taken)[0]
        self.state['rabbit'] = [
            {'name': 'rabbit-%d' % n, 'node': 'bha%s%d@localhost'
             % (suffix, n), 'port': p[0], 'dist_port': p[1]}
            for n, p in enumerate(
                [free_ports(2, taken) for _ in range(RABBIT_NODES)], 1)]
        self.state['api_ports'] = free_ports(APIS, taken)
        self.state['topic'] = 'blazar_ext_ha_%s' % suffix

    def down(self, keep: bool = False) -> None:
        for piece in reversed(self.pieces()):
            self.stop(piece)
        leftovers = [p for p, pid in self.pids.items() if alive(pid)]
        if leftovers:
            raise SystemExit('still running: %s' % leftovers)
        for pid in strays(self.dir):
            log('stopping stray server pid %d' % pid)
            stop_pid(pid, timeout=20)
        if keep or not os.path.exists(self.dir):
            return
        shutil.rmtree(self.dir)
        log('down; %s removed' % self.dir)

    # --- one piece -------------------------------------------------------

    def start(self, piece: str) -> None:
        kind, _, number = piece.rpartition('-')
        if piece in ('haproxy', 'clustercheck'):
            getattr(self, piece + '_up')()
        elif kind == 'galera':
            self.galera_join(int(number) - 1)
        elif kind == 'rabbit':
            self.rabbit_start(int(number) - 1)
            self.rabbit_wait(int(number) - 1)
        elif kind == 'manager':
            self.manager_start(int(number))
        elif kind == 'api':
            self.api_start(int(number))
            self.api_wait(int(number))
        else:
            raise SystemExit('no piece %r: %s' % (piece, self.pieces()))

    def kill(self, piece: str) -> None:
        """SIGKILL, the crash of a node (a RabbitMQ node's whole Erlang
        VM)."""
        pid = self.pids.get(piece)
        if not alive(pid):
            raise RuntimeError('%s is not running' % piece)
        signal_group(pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while alive(pid) and time.monotonic() < deadline:
            _reap(pid)
            time.sleep(0.1)
        log('killed %s (pid %d)' % (piece, pid))

    def stop(self, piece: str) -> None:
        kind = piece.rpartition('-')[0]
        if kind == 'rabbit':
            node = self.state['rabbit'][int(piece[-1]) - 1]
            if alive(self.pids.get(piece)):
                self.rabbitmqctl(node, 'stop', check=False, timeout=120)
        stop_pid(self.pids.get(piece), timeout=120)
        # mariadbd's rsync SST daemon lives in its own group.
        if kind == 'galera':
            pidfile = self.path(piece, 'rsync_sst.pid')
            if os.path.exists(pidfile):
                with open(pidfile) as f:
                    stop_pid(int(f.read().strip() or 0), timeout=10)

    # --- Galera ----------------------------------------------------------

    def galera_up(self) -> None:
        for i, node in enumerate(self.state['galera']):
            self._galera_prepare(node)
        self.galera_start(0, new_cluster=True)
        self.galera_wait_synced(0)
        self.galera_sql(0, (
            "CREATE USER IF NOT EXISTS '%s'@'%%' IDENTIFIED BY '%s'; "
            "GRANT ALL ON *.* TO '%s'@'%%'; "
            "CREATE DATABASE IF NOT EXISTS blazar CHARACTER SET utf8mb4"
            % (DB_USER, DB_PASSWORD, DB_USER)))
        for i in range(1, len(self.state['galera'])):
            self.galera_join(i)
        size = self.galera_status(0).get('wsrep_cluster_size')
        log('Galera: %s nodes' % size)

    def _galera_prepare(self, node: dict) -> None:
        home = self.path(node['name'])
        os.makedirs(home)
        shutil.chown(home, 'mysql', 'mysql')
        run(['mariadb-install-db', '--no-defaults', '--user=mysql',
             '--datadir=%s' % os.path.join(home, 'data'),
             '--auth-root-authentication-method=socket', '--skip-test-db'])
        nodes = self.state['galera']
        text = '\n'.join([
            '[mysqld]',
            'user = mysql',
            'datadir = %s' % os.path.join(home, 'data'),
            'socket = %s' % os.path.join(home, 'mysqld.sock'),
            'pid-file = %s' % os.path.join(home, 'mysqld.pid'),
            'log-error = %s' % os.path.join(home, 'error.log'),
            'port = %d' % node['port'],
            'bind-address = 127.0.0.1',
            'skip-name-resolve',
            'max_connections = 400',
            'innodb_buffer_pool_size = 64M',
            'innodb_log_file_size = 32M',
            'innodb_flush_log_at_trx_commit = 2',
            'performance_schema = OFF',
            'character-set-server = utf8mb4',
            'binlog_format = ROW',
            'default_storage_engine = InnoDB',
            'innodb_autoinc_lock_mode = 2',
            'wsrep_on = ON',
            'wsrep_provider = %s' % GALERA_PROVIDER,
            'wsrep_cluster_name = blazar_ha',
            'wsrep_cluster_address = gcomm://%s' % ','.join(
                '127.0.0.1:%d' % n['group_port'] for n in nodes),
            'wsrep_node_name = %s' % node['name'],
            'wsrep_node_address = 127.0.0.1:%d' % node['group_port'],
            'wsrep_provider_options = "base_port=%d; gmcast.listen_addr='
            'tcp://127.0.0.1:%d; ist.recv_addr=127.0.0.1:%d; '
            'gcache.size=64M"' % (node['group_port'], node['group_port'],
                                  node['ist_port']),
            'wsrep_sst_method = rsync',
            'wsrep_sst_receive_address = 127.0.0.1:%d' % node['sst_port'],
            'wsrep_slave_threads = 2',
            # Reads see the writes certified before them (the writer may
            # move to another node under the service's feet).
            'wsrep_sync_wait = 1',
            ''])
        conf = os.path.join(home, 'my.cnf')
        with open(conf, 'w') as f:
            f.write(text)
        os.chmod(conf, 0o644)
        run(['chown', '-R', 'mysql:mysql', home])

    def galera_start(self, index: int, new_cluster: bool = False) -> None:
        node = self.state['galera'][index]
        home = self.path(node['name'])
        argv = ['mariadbd', '--defaults-file=%s' % os.path.join(
            home, 'my.cnf')]
        if new_cluster:
            argv.append('--wsrep-new-cluster')
        else:
            argv += self._galera_position(argv)
        self.pids[node['name']] = spawn(argv, os.path.join(home, 'out.log'))
        self.save()
        log('started %s (port %d)' % (node['name'], node['port']))

    def galera_join(self, index: int, attempts: int = 3) -> None:
        """Start a node that joins the others and wait until it is
        Synced; again when its state transfer fails (the rsync daemon
        loses a race for its port now and then)."""
        for attempt in range(1, attempts + 1):
            self.galera_start(index)
            try:
                self.galera_wait_synced(index)
                return
            except RuntimeError as exc:
                if attempt == attempts:
                    raise
                log('%s; starting it again' % exc)
                stop_pid(self.pids.get(self.state['galera'][index]['name']))

    def _galera_position(self, argv: list) -> list:
        """After a crash the node's grastate.dat says seqno -1: recover
        the last committed position from InnoDB (what mysqld_safe and
        galera_recovery do) so that the node rejoins with an incremental
        transfer from a donor's gcache instead of a full rsync, which
        blocks the donor."""
        home = os.path.dirname(argv[1].split('=', 1)[1])
        if not os.path.exists(os.path.join(home, 'data', 'grastate.dat')):
            return []
        recover_log = os.path.join(home, 'recover.log')
        if os.path.exists(recover_log):
            os.unlink(recover_log)
        run(argv + ['--wsrep-recover', '--log-error=%s' % recover_log],
            timeout=300, check=False)
        with open(recover_log, errors='replace') as f:
            for line in f:
                if 'WSREP: Recovered position:' in line:
                    position = line.rsplit(':', 2)
                    return ['--wsrep-start-position=%s:%s' % (
                        position[-2].split()[-1], position[-1].strip())]
        return []

    def galera_sql(self, index: int, sql: str) -> str:
        node = self.state['galera'][index]
        return run(['mariadb', '--no-defaults', '-uroot', '-N', '-B',
                    '--socket=%s' % self.path(node['name'], 'mysqld.sock'),
                    '-e', sql], timeout=60).stdout

    def galera_status(self, index: int) -> dict:
        try:
            out = self.galera_sql(index, "SHOW STATUS LIKE 'wsrep_%'")
        except (RuntimeError, subprocess.TimeoutExpired):
            return {}
        return dict(line.split('\t', 1) for line in out.splitlines()
                    if '\t' in line)

    def galera_wait_synced(self, index: int, timeout: float = 300) -> None:
        node = self.state['galera'][index]
        pid = self.pids[node['name']]

        def synced():
            if not alive(pid):
                raise RuntimeError('%s exited; see %s' % (
                    node['name'], self.path(node['name'], 'error.log')))
            status = self.galera_status(index)
            return (status.get('wsrep_local_state_comment') == 'Synced' and
                    status.get('wsrep_ready') == 'ON')
        wait_for(synced, timeout, '%s synced' % node['name'], interval=1)

    def galera_writer(self) -> int:
        """The index of the node HAProxy sends writes to now."""
        for row in self.haproxy_stat():
            if (row.get('pxname') == 'galera' and row.get('status') == 'UP'
                    and row.get('act') == '1'):
                return int(row['svname'].rpartition('-')[2]) - 1
        for row in self.haproxy_stat():
            if row.get('pxname') == 'galera' and row.get('status') == 'UP':
                return int(row['svname'].rpartition('-')[2]) - 1
        return -1

    # --- health check and HAProxy ----------------------------------------

    def clustercheck_up(self) -> None:
        argv = [self.bin('python'),
                os.path.join(REPO, 'tools', 'ha', 'clustercheck.py')]
        for node in self.state['galera']:
            argv += ['%d:%s' % (node['check_port'],
                                self.path(node['name'], 'mysqld.sock'))]
        self.pids['clustercheck'] = spawn(argv, self.path('clustercheck.log'))
        self.save()
        first = self.state['galera'][0]['check_port']
        wait_for(lambda: answers(first), 30, 'clustercheck')

    def haproxy_up(self) -> None:
        cfg = self.path('haproxy.cfg')
        servers = []
        for i, node in enumerate(self.state['galera']):
            # As OpenStack deployments (kolla-ansible, openstack-ansible)
            # do: one active server, the others backup, so that every
            # writer certifies on one node and Galera's certification
            # conflicts stay rare.
            servers.append(
                '    server %s 127.0.0.1:%d check port %d inter 1s '
                'rise 2 fall 2 observe layer4 error-limit 1 '
                'on-error mark-down on-marked-down shutdown-sessions%s' % (
                    node['name'], node['port'], node['check_port'],
                    ' backup' if i else ''))
        with open(cfg, 'w') as f:
            f.write('\n'.join([
                'global',
                '    maxconn 2000',
                '    stats socket %s mode 600 level admin'
                % self.path('haproxy.sock'),
                'defaults',
                '    mode tcp',
                '    timeout connect 5s',
                '    timeout client 3600s',
                '    timeout server 3600s',
                '    timeout check 2s',
                'listen galera',
                '    bind 127.0.0.1:%d' % self.state['haproxy_port'],
                '    option httpchk',
                '    option tcpka',
                # A connection refused by a node gone marks it down at
                # once and goes to the next server.
                '    option redispatch',
                '    retries 2',
            ] + servers + self._api_frontend() + ['']))
        self.pids['haproxy'] = spawn(['haproxy', '-db', '-f', cfg],
                                     self.path('haproxy.log'))
        self.save()
        wait_for(lambda: self.galera_writer() == 0, 30,
                 'HAProxy marking galera-1 up')
        log('HAProxy on 127.0.0.1:%d' % self.state['haproxy_port'])

    def _api_frontend(self) -> list:
        """The APIs behind HAProxy too, as OpenStack's APIs are: round
        robin, a health check on /, and a request that found an API gone
        (connection refused: it reached no process) sent to the other."""
        return [
            'listen blazar_api',
            '    bind 127.0.0.1:%d' % self.state['api_lb_port'],
            '    mode http',
            '    balance roundrobin',
            '    option httpchk GET /',
            '    http-check expect rstatus ^[23]',
            '    option redispatch',
            '    retries 3',
            '    retry-on conn-failure',
            '    timeout client 300s',
            '    timeout server 300s',
        ] + ['    server api-%d 127.0.0.1:%d check inter 1s rise 2 fall 2 '
             'observe layer4 error-limit 1 on-error mark-down' % (n, port)
             for n, port in enumerate(self.state['api_ports'], 1)]

    def api_url(self) -> str:
        """The APIs through HAProxy."""
        return 'http://127.0.0.1:%d' % self.state['api_lb_port']

    def haproxy_stat(self) -> list:
        try:
            with socket.socket(socket.AF_UNIX) as s:
                s.settimeout(2)
                s.connect(self.path('haproxy.sock'))
                s.sendall(b'show stat\n')
                data = b''
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    data += chunk
        except OSError:
            return []
        lines = data.decode().splitlines()
        if not lines:
            return []
        header = lines[0].lstrip('# ').split(',')
        return [dict(zip(header, line.split(','))) for line in lines[1:]
                if line]

    # --- RabbitMQ --------------------------------------------------------

    def rabbit_env(self, node: dict) -> dict:
        home = self.path(node['name'])
        return dict(
            os.environ, RABBITMQ_NODENAME=node['node'],
            RABBITMQ_NODE_PORT=str(node['port']),
            RABBITMQ_DIST_PORT=str(node['dist_port']),
            RABBITMQ_MNESIA_BASE=os.path.join(home, 'mnesia'),
            RABBITMQ_LOG_BASE=os.path.join(home, 'log'),
            RABBITMQ_CONFIG_FILE=os.path.join(home, 'rabbitmq.conf'),
            RABBITMQ_ENABLED_PLUGINS_FILE=os.path.join(home,
                                                       'enabled_plugins'),
            RABBITMQ_CONF_ENV_FILE=os.path.join(home, 'rabbitmq-env.conf'),
            RABBITMQ_PID_FILE=os.path.join(home, 'pid'))

    def rabbitmqctl(self, node: dict, *args: str, check: bool = True,
                    timeout: float = 90) -> subprocess.CompletedProcess:
        return run(['rabbitmqctl', '-n', node['node']] + list(args),
                   env=self.rabbit_env(node), check=check, timeout=timeout)

    def rabbit_up(self) -> None:
        nodes = self.state['rabbit']
        for node in nodes:
            self._rabbit_prepare(node)
        for i in range(len(nodes)):
            self.rabbit_start(i)
        for i in range(len(nodes)):
            self.rabbit_wait(i)
        for node in nodes[1:]:
            self.rabbitmqctl(node, 'stop_app')
            self.rabbitmqctl(node, 'join_cluster', nodes[0]['node'])
            self.rabbitmqctl(node, 'start_app')
        out = self.rabbitmqctl(nodes[0], 'cluster_status',
                               '--formatter', 'json').stdout
        running = json.loads(out).get('running_nodes', [])
        log('RabbitMQ: %d nodes running: %s' % (len(running), running))

    def _rabbit_prepare(self, node: dict) -> None:
        home = self.path(node['name'])
        os.makedirs(home)
        files = {
            'rabbitmq.conf': 'listeners.tcp.local = 127.0.0.1:%d\n'
                             'loopback_users = none\n'
                             'cluster_partition_handling = pause_minority\n'
                             % node['port'],
            'enabled_plugins': '[].\n',
            # Not /etc/rabbitmq/rabbitmq-env.conf: it names the machine's
            # own node.
            'rabbitmq-env.conf': 'NODENAME=%s\nERL_EPMD_ADDRESS=127.0.0.1\n'
                                 % node['node']}
        for name, text in files.items():
            with open(os.path.join(home, name), 'w') as f:
                f.write(text)
        run(['chown', '-R', 'rabbitmq:rabbitmq', home])

    def rabbit_start(self, index: int) -> None:
        node = self.state['rabbit'][index]
        # Not -detached: the pid is then the Erlang VM's own, and a
        # SIGKILL of it is the node's crash.
        argv = ['rabbitmq-server']
        self.pids[node['name']] = spawn(
            argv, self.path(node['name'], 'out.log'),
            env=self.rabbit_env(node))
        self.save()
        log('started %s (%s, port %d)' % (node['name'], node['node'],
                                          node['port']))

    def rabbit_wait(self, index: int, timeout: float = 120) -> None:
        node = self.state['rabbit'][index]
        wait_for(lambda: self.rabbitmqctl(
            node, 'await_startup', check=False,
            timeout=60).returncode == 0, timeout,
            'RabbitMQ node %s' % node['node'], interval=1)

    def transport_url(self) -> str:
        return 'rabbit://%s/' % ','.join(
            'guest:guest@127.0.0.1:%d' % n['port']
            for n in self.state['rabbit'])

    def database_url(self, port: int | None = None) -> str:
        return 'mysql+pymysql://%s:%s@127.0.0.1:%d/blazar?charset=utf8mb4' % (
            DB_USER, DB_PASSWORD, port or self.state['haproxy_port'])

    # --- blazar_ext ------------------------------------------------------

    def config_text(self, database_url: str | None = None) -> str:
        return '\n'.join([
            '[DEFAULT]',
            'transport_url = %s' % self.transport_url(),
            'state_path = %s' % self.dir,
            'startup_timeout = 120',
            '[api]',
            'host = 127.0.0.1',
            'auth_strategy = noauth',
            '[manager]',
            'topic = %s' % self.state['topic'],
            'rpc_timeout = 60',
            'event_interval = 1',
            'minutes_before_end_lease = 0',
            '[database]',
            'connection = %s' % (database_url or self.database_url()),
            # Below HAProxy's timeout client/server (3600s).
            'connection_recycle_time = 600',
            'max_pool_size = 10',
            'max_overflow = 20',
            'pool_timeout = 30',
            'max_retries = -1',
            'retry_interval = 1',
            '[oslo_messaging_rabbit]',
            'rabbit_quorum_queue = true',
            # Replies and fanouts stay classic and transient: they are
            # per-process and die with it.
            'rabbit_transient_quorum_queue = false',
            'rabbit_transient_queues_ttl = 300',
            'heartbeat_timeout_threshold = 15',
            'heartbeat_rate = 3',
            'heartbeat_in_pthread = false',
            'kombu_failover_strategy = round-robin',
            'rabbit_retry_interval = 1',
            'rabbit_retry_backoff = 1',
            'rabbit_interval_max = 5',
            'kombu_reconnect_delay = 1',
            '']) + self.extra_config

    def blazar_restart(self, database_url: str | None = None) -> None:
        """Stop the APIs and managers and start them again on
        ``database_url`` (default: the Galera cluster behind HAProxy)."""
        for n in range(1, APIS + 1):
            self.stop('api-%d' % n)
        for n in range(1, MANAGERS + 1):
            self.stop('manager-%d' % n)
        self.blazar_up(database_url)

    def blazar_up(self, database_url: str | None = None) -> None:
        conf = self.path('blazar-ext.conf')
        with open(conf, 'w') as f:
            f.write(self.config_text(database_url))
        run([self.bin('blazar-ext-db-manage'), '--config-file', conf,
             'upgrade'], timeout=600)
        for n in range(1, MANAGERS + 1):
            self.manager_start(n)
        for n in range(1, APIS + 1):
            self.api_start(n)
        for n in range(1, APIS + 1):
            self.api_wait(n)
        wait_for(lambda: all(alive(self.pids.get('manager-%d' % n))
                             for n in range(1, MANAGERS + 1)) and
                 self.rpc_consumers() >= MANAGERS, 120, 'managers')
        log('blazar_ext: APIs on %s; through HAProxy %s' % (
            ', '.join(self.endpoints()), self.api_url()))

    def blazar_env(self) -> dict:
        return {k: v for k, v in os.environ.items()
                if not k.startswith('OS_')}

    def manager_start(self, n: int) -> None:
        own = self.path('manager-%d.conf' % n)
        with open(own, 'w') as f:
            f.write('[DEFAULT]\nhost = manager-%d\n' % n)
        self.pids['manager-%d' % n] = spawn(
            [self.bin('blazar-ext-manager'), '--config-file',
             self.path('blazar-ext.conf'), '--config-file', own],
            self.path('manager-%d.log' % n), env=self.blazar_env())
        self.save()

    def api_start(self, n: int, workers: int = 2) -> None:
        own = self.path('api-%d.conf' % n)
        with open(own, 'w') as f:
            f.write('[api]\nport = %d\n' % self.state['api_ports'][n - 1])
        self.pids['api-%d' % n] = spawn(
            [self.bin('blazar-ext-api'), '--workers', str(workers),
             '--config-file', self.path('blazar-ext.conf'),
             '--config-file', own],
            self.path('api-%d.log' % n), env=self.blazar_env())
        self.save()

    def api_wait(self, n: int, timeout: float = 120) -> None:
        url = self.endpoints()[n - 1] + '/'
        pid = self.pids['api-%d' % n]

        def answering():
            if not alive(pid):
                raise RuntimeError('api-%d exited; see %s' % (
                    n, self.path('api-%d.log' % n)))
            try:
                urllib.request.urlopen(url, timeout=2)
                return True
            except OSError as exc:
                return getattr(exc, 'code', None) is not None
        wait_for(answering, timeout, 'api-%d' % n)

    def endpoints(self) -> list:
        return ['http://127.0.0.1:%d' % p for p in self.state['api_ports']]

    def rpc_consumers(self) -> int:
        """Consumers on the managers' shared topic queue."""
        for node in self.state['rabbit']:
            result = self.rabbitmqctl(
                node, 'list_queues', 'name', 'consumers', '--formatter',
                'json', check=False, timeout=30)
            if result.returncode:
                continue
            for queue in json.loads(result.stdout or '[]'):
                if queue.get('name') == self.state['topic']:
                    return int(queue.get('consumers', 0))
            return 0
        return 0

    # --- status ----------------------------------------------------------

    def status(self) -> dict:
        report = {'dir': self.dir, 'pieces': {}}
        for piece in self.pieces():
            report['pieces'][piece] = ('running (pid %d)' % self.pids[piece]
                                       if alive(self.pids.get(piece))
                                       else 'stopped')
        report['galera'] = {}
        for i, node in enumerate(self.state.get('galera', [])):
            if alive(self.pids.get(node['name'])):
                s = self.galera_status(i)
                report['galera'][node['name']] = '%s, cluster size %s' % (
                    s.get('wsrep_local_state_comment'),
                    s.get('wsrep_cluster_size'))
        report['haproxy'] = {'%s/%s' % (row['pxname'], row['svname']):
                             row['status'] for row in self.haproxy_stat()
                             if row.get('svname') not in ('FRONTEND',
                                                          'BACKEND')}
        rabbits = [n for n in self.state.get('rabbit', [])
                   if alive(self.pids.get(n['name']))]
        if rabbits:
            out = self.rabbitmqctl(rabbits[0], 'cluster_status',
                                   '--formatter', 'json', check=False)
            try:
                report['rabbitmq_running'] = json.loads(out.stdout).get(
                    'running_nodes')
            except ValueError:
                report['rabbitmq_running'] = out.stderr.strip()
        if self.state.get('api_ports'):
            report['endpoints'] = self.endpoints()
            report['api_via_haproxy'] = self.api_url()
            report['database'] = self.database_url()
            report['transport_url'] = self.transport_url()
        return report


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--dir', default=DEFAULT_DIR,
                        help='state, data and logs (default %(default)s)')
    parser.add_argument('--venv', help='a virtualenv with blazar_ext '
                        'installed (default: made in <repo>/.ha-venv)')
    sub = parser.add_subparsers(dest='command', required=True)
    sub.add_parser('up')
    down = sub.add_parser('down')
    down.add_argument('--keep', action='store_true',
                      help='keep the directory (data and logs)')
    sub.add_parser('status')
    for name in ('kill', 'start', 'stop'):
        sub.add_parser(name).add_argument('piece')
    args = parser.parse_args()
    cluster = Cluster(args.dir, args.venv)
    if args.command == 'up':
        try:
            cluster.up()
        except BaseException:
            log('up failed; stopping what started (logs kept in %s)'
                % cluster.dir)
            cluster.down(keep=True)
            raise
    elif args.command == 'down':
        cluster.down(keep=args.keep)
    elif args.command == 'status':
        print(json.dumps(cluster.status(), indent=1))
    else:
        getattr(cluster, args.command)(args.piece)
    return 0


if __name__ == '__main__':
    sys.exit(main())
