"""blazar-ext-manager: the RPC server and the lease event loop."""

import signal
import sys
import threading

from blazar_ext.cmd import common
from blazar_ext.manager import service


def main(argv: list[str] | None = None) -> int:
    common.prepare('blazar-ext-manager', argv)
    manager = service.ManagerService()
    manager.start()
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    signal.signal(signal.SIGINT, lambda *_: stopped.set())
    stopped.wait()
    manager.stop()
    return 0


if __name__ == '__main__':
    sys.exit(main())
