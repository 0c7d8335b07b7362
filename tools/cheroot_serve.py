"""Serve a foreign WSGI application (Keystone, upstream Placement) with
cheroot until SIGTERM or SIGINT.

Shared by tools/keystone/serve.py and tools/placement/serve.py, which run
in those projects' own virtualenvs and so import nothing of blazar_ext.
"""

import signal
import threading


def serve(application, host: str, port: int, threads: int,
          banner: str) -> int:
    """Serve ``application`` on host:port; print ``banner`` once
    listening. Returns 0 when stopped by a signal."""
    from cheroot import wsgi

    server = wsgi.Server((host, port), application, numthreads=threads)

    def stop(signum, frame):
        # The handler runs in the main thread, inside the serve loop that
        # stop() waits for: stop from another thread.
        threading.Thread(target=server.stop, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(banner, flush=True)
    try:
        server.start()
    finally:
        server.stop()
    return 0
