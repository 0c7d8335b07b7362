"""A multi-threaded WSGI server (cheroot) with optional worker processes.

With several workers the parent binds the listening socket once and forks;
every worker accepts on that one socket, so a busy or stuck worker leaves
new connections to the others (SO_REUSEPORT would give each worker its
own queue, and a stuck worker's connections would wait). A worker holding
more open connections than another lets it take the next one first
(_Balance), so keep-alive clients spread over the workers.
"""

import gc
import multiprocessing
import os
import queue
import signal
import socket
import threading
import time

from cheroot import server as cheroot_server
from cheroot import wsgi
from oslo_log import log as logging

from blazar_ext.wsgi import blocks

LOG = logging.getLogger(__name__)

BACKLOG = 128

# How long a worker holding more open connections than another waits
# before it tries to accept a new one, leaving it to the other.
ACCEPT_DEFER = 0.002


class _Balance:
    """Open connections of each worker, in memory shared across the fork.

    Every worker is woken for each new connection and the first to call
    accept() gets it, often the same one: 8 keep-alive connections split
    8/0 or 7/1, and one process (one core, one GIL) served nearly all of
    them while the other idled. A worker ahead of another defers its
    accept() by ACCEPT_DEFER; if the others do not take the connection
    meanwhile (stuck or busy), it takes it itself.
    """

    def __init__(self, workers: int):
        # Each worker writes its own slot only; reads need no lock.
        self._counts = multiprocessing.RawArray('i', workers)
        self.index = 0

    def opened(self) -> None:
        self._counts[self.index] += 1

    def closed(self) -> None:
        self._counts[self.index] -= 1

    def ahead(self) -> bool:
        """Whether this worker holds more connections than another."""
        return self._counts[self.index] > min(self._counts)


class _Listener(socket.socket):
    """The workers' listening socket; accept() defers while its worker
    is ahead (see _Balance)."""

    balance: _Balance | None = None

    def accept(self):
        if self.balance is not None and self.balance.ahead():
            time.sleep(ACCEPT_DEFER)
        return super().accept()


class _CountedConnection(cheroot_server.HTTPConnection):
    """A connection counted in its worker's _Balance while open."""

    def __init__(self, server, sock, *args, **kwargs):
        super().__init__(server, sock, *args, **kwargs)
        self._balance = server.balance
        self._balance.opened()

    def close(self) -> None:
        try:
            super().close()
        finally:
            balance, self._balance = self._balance, None
            if balance is not None:
                balance.closed()


class _SharedSocketServer(wsgi.Server):
    """A cheroot server accepting on a socket bound by its parent."""

    ConnectionClass = _CountedConnection

    def __init__(self, listening: socket.socket, balance: _Balance, *args,
                 **kwargs):
        super().__init__(*args, **kwargs)
        self._listening = listening
        self.balance = balance

    def bind(self, family, type, proto=0):
        self.socket = self._listening
        self.bind_addr = self.resolve_real_bind_addr(self.socket)
        return self.socket

    def prepare(self) -> None:
        """cheroot's prepare, then a non-blocking accept.

        cheroot gives its listening socket a 1 s timeout. Every worker is
        woken for each new connection and only one gets it: the others
        waited in accept() up to that second, their selector loop with
        them, so requests on their open keep-alive connections stalled
        (a p99 near 1 s). Non-blocking, the loser's accept() fails at
        once with EAGAIN, which cheroot takes as "nothing to accept".
        """
        super().prepare()
        self.socket.setblocking(False)


def _freeze_startup_objects() -> None:
    """Leave the objects of start-up out of the cyclic collector's walks.

    A serving process holds about 200,000 long-lived objects (modules,
    configuration, policies, SQLAlchemy's statements and caches); each
    full collection, once in a few hundred small requests, walked them
    all: about 100 ms added to whichever request triggered it. Frozen,
    they are never collected (they live as long as the process) and
    collections walk only what requests allocate.
    """
    gc.collect()
    gc.freeze()


def _serve_one(server: wsgi.Server, threads: int, name: str) -> None:
    def _stop(signum, frame):
        # The handler runs in the main thread, inside server.start(); stop()
        # waits for that loop to end, so it must run in another thread.
        threading.Thread(target=server.stop, daemon=True).start()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    host, port = server.bind_addr[:2]
    LOG.info('%s (pid %d) serving on http://%s:%d with %d threads', name,
             os.getpid(), host, port, threads)
    _freeze_startup_objects()
    try:
        server.start()
    finally:
        server.stop()


def _listen(host: str, port: int) -> socket.socket:
    """The workers' listening socket, with what cheroot's own bind() would
    set: TCP_NODELAY, which accepted connections inherit. Without it the
    last small segment of a response waits for the client's delayed ACK
    (40 ms on Linux) on every keep-alive request after the first."""
    family = socket.AF_INET6 if ':' in host else socket.AF_INET
    listening = _Listener(family, socket.SOCK_STREAM)
    try:
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listening.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        listening.bind((host, port))
        listening.listen(BACKLOG)
    except OSError:
        listening.close()
        raise
    return listening


class _LastWaiterFirst(threading.Condition):
    """A condition whose notify() wakes the thread that began waiting
    last, not first (CPython's Condition keeps its waiters in a deque)."""

    def notify(self, n: int = 1) -> None:
        if not self._is_owned():
            raise RuntimeError('cannot notify on un-acquired lock')
        waiters = self._waiters
        while waiters and n > 0:
            waiter = waiters.pop()
            try:
                waiter.release()
            except RuntimeError:  # released already (see Condition)
                continue
            n -= 1


class _WorkQueue(queue.Queue):
    """cheroot's queue of connections ready to be served, each taken by
    the worker thread that went idle last.

    With a FIFO wake-up (threading.Condition's) a lone client's requests
    go round all the workers in turn, each request on the thread idle
    the longest: its stack and the interpreter's state for it are cold
    in the CPU's caches every time. Last idle, first woken, one client's
    requests keep to one thread. Measured on a 100-candidate page (16
    threads, one client, a busy machine): 1 to 3% less CPU, up to 8%
    less wall time; one thread instead of 16 gave up to 7% less CPU.
    """

    def __init__(self, maxsize: int = 0):
        super().__init__(maxsize)
        self.not_empty = _LastWaiterFirst(self.mutex)


def _server(cls, *args, keep_alive: int, **options) -> wsgi.Server:
    """A cheroot server keeping up to ``keep_alive`` idle keep-alive
    connections (cheroot's own limit is 10), its workers woken last idle
    first (_WorkQueue)."""
    server = cls(*args, **options)
    server.keep_alive_conn_limit = keep_alive
    pool = server.requests
    if type(getattr(pool, '_queue', None)) is queue.Queue:
        # cheroot's ThreadPool as of 10.x; another keeps its own order.
        pool._queue = _WorkQueue(maxsize=pool._queue.maxsize)
        pool.get = pool._queue.get
    return server


def serve(app_factory, host: str, port: int, workers: int = 1,
          threads: int = 16, name: str = 'blazar-ext-api',
          parent_ready=None, keep_alive: int = 100) -> None:
    """Serve until SIGTERM/SIGINT; workers > 1 forks processes that share
    one listening socket, each building its own app after the fork.
    ``parent_ready()`` runs in the serving (or parent) process, after any
    fork, before it waits. Each process keeps up to ``keep_alive`` idle
    keep-alive connections."""
    options = dict(numthreads=threads, server_name=name,
                   request_queue_size=BACKLOG, keep_alive=keep_alive)
    parent_ready = parent_ready or (lambda: None)
    if workers <= 1:
        parent_ready()
        _serve_one(_server(wsgi.Server, (host, port),
                           blocks.in_blocks(app_factory()), **options),
                   threads, name)
        return
    listening = _listen(host, port)
    balance = _Balance(workers)
    children = []
    for index in range(workers):
        pid = os.fork()
        if pid == 0:
            try:
                balance.index = index
                listening.balance = balance
                _serve_one(_server(
                    _SharedSocketServer, listening, balance, (host, port),
                    blocks.in_blocks(app_factory()), **options),
                    threads, name)
            finally:
                os._exit(0)
        children.append(pid)
    listening.close()
    parent_ready()
    LOG.info('%s: %d workers (pids %s) on one socket', name,
             workers, ', '.join(str(pid) for pid in children))

    def _forward(signum, frame):
        for child in children:
            try:
                os.kill(child, signal.SIGTERM)
            except ProcessLookupError:
                pass

    signal.signal(signal.SIGTERM, _forward)
    signal.signal(signal.SIGINT, _forward)
    for child in children:
        os.waitpid(child, 0)
