"""Serve a foreign WSGI application (Keystone, upstream Placement) with
cheroot until SIGTERM or SIGINT.

Shared by tools/keystone/serve.py and tools/placement/serve.py, which run
in those projects' own virtualenvs and so import nothing of blazar_ext.
"""

import importlib.util
import os
import signal
import threading

# blazar_ext's own block writer (standard library only), loaded by path:
# the foreign application's large bodies reach cheroot as blazar_ext's do,
# so a side-by-side run compares the applications, not the writes.
_BLOCKS = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), 'blazar_ext', 'wsgi', 'blocks.py')


def _in_blocks(application):
    spec = importlib.util.spec_from_file_location('_blocks', _BLOCKS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.in_blocks(application)


def serve(application, host: str, port: int, threads: int,
          banner: str) -> int:
    """Serve ``application`` on host:port; print ``banner`` once
    listening. Returns 0 when stopped by a signal."""
    from cheroot import wsgi

    server = wsgi.Server((host, port), _in_blocks(application),
                         numthreads=threads)

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
