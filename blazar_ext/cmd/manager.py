"""blazar-ext-manager: the RPC server and the lease event loop."""

import signal
import sys
import threading

from oslo_log import log as logging

from blazar_ext.api import metrics
from blazar_ext.cmd import startup
from blazar_ext import enforcement
from blazar_ext.enforcement.filters import budget as budget_filter
from blazar_ext.manager import service as manager_service
from blazar_ext import service

LOG = logging.getLogger(__name__)


def main(argv: list[str] | None = None) -> int:
    service.prepare('blazar-ext-manager', argv)
    # Handlers first: a SIGTERM that arrives while the manager connects to
    # the broker must still stop it cleanly.
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    signal.signal(signal.SIGINT, lambda *_: stopped.set())
    if not startup.ready(service.CONF, broker=True):
        return 1
    if service.CONF.metrics.manager_port:
        metrics.serve(service.CONF.metrics.manager_port,
                      service.CONF.metrics.host)
    try:
        manager = manager_service.ManagerService()
        manager.start()
    except enforcement.FilterLoadError as exc:
        LOG.error('Cannot start: %s', exc)
        return 1
    # SIGHUP: the rates file is read again (kept as it was if bad).
    signal.signal(signal.SIGHUP, lambda *_: budget_filter.reload_rates(
        manager.endpoint.leases.enforcement))
    stopped.wait()
    manager.stop()
    return 0


if __name__ == '__main__':
    sys.exit(main())
