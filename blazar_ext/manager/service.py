"""The manager process: RPC server (threading executor) and its workers."""

from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging

from blazar_ext.manager import delivery
from blazar_ext.manager import endpoint
from blazar_ext.manager import events
from blazar_ext.manager import health
from blazar_ext.manager import maintenance
from blazar_ext.manager import series
from blazar_ext import rpc

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


class ManagerService:
    """Owns the RPC server; start() returns at once, stop() waits."""

    def __init__(self):
        self.endpoint = endpoint.ManagerEndpoint()
        target = messaging.Target(topic=CONF.manager.topic, server=CONF.host)
        self._server = messaging.get_rpc_server(
            rpc.get_transport(), target,
            [self.endpoint, self.endpoint.budgets],
            executor='threading', serializer=rpc.ContextSerializer())
        self.event_loop = events.EventLoop(self.endpoint.leases)
        self.health_monitor = health.HealthMonitor(self.endpoint.healer)
        self.delivery_loop = delivery.DeliveryLoop(
            self.endpoint.leases.outbox)
        self.series_task = series.SeriesTask(self.endpoint.series)
        self.maintenance_task = maintenance.MaintenanceTask(
            self.endpoint.maintenance)

    def start(self) -> None:
        LOG.info('Manager listening on topic %s as %s',
                 CONF.manager.topic, CONF.host)
        self._server.start()
        self.event_loop.start()
        self.health_monitor.start()
        self.delivery_loop.start()
        self.series_task.start()
        self.maintenance_task.start()

    def stop(self) -> None:
        self.maintenance_task.stop()
        self.series_task.stop()
        self.delivery_loop.stop()
        self.health_monitor.stop()
        self.event_loop.stop()
        self._server.stop()
        self._server.wait()
