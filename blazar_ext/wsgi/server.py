"""A multi-threaded WSGI server (cheroot) with optional worker processes."""

import os
import signal
import threading

from cheroot import wsgi
from oslo_log import log as logging

LOG = logging.getLogger(__name__)


def _serve_one(app, host: str, port: int, threads: int,
               reuse_port: bool) -> None:
    server = wsgi.Server((host, port), app, numthreads=threads,
                         server_name='blazar-ext-api', reuse_port=reuse_port,
                         request_queue_size=128)

    def _stop(signum, frame):
        # The handler runs in the main thread, inside server.start(); stop()
        # waits for that loop to end, so it must run in another thread.
        threading.Thread(target=server.stop, daemon=True).start()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    LOG.info('blazar-ext-api (pid %d) serving on http://%s:%d with %d '
             'threads', os.getpid(), host, port, threads)
    try:
        server.start()
    finally:
        server.stop()


def serve(app_factory, host: str, port: int, workers: int = 1,
          threads: int = 16) -> None:
    """Serve until SIGTERM/SIGINT; workers > 1 forks processes that share
    the port through SO_REUSEPORT, each building its own app."""
    if workers <= 1:
        _serve_one(app_factory(), host, port, threads, reuse_port=False)
        return
    children = []
    for _ in range(workers):
        pid = os.fork()
        if pid == 0:
            try:
                _serve_one(app_factory(), host, port, threads,
                           reuse_port=True)
            finally:
                os._exit(0)
        children.append(pid)

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
