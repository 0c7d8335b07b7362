"""The metrics a scrape reads: the instruments of blazar_ext.metrics and
gauges of the service's state, read from the database at scrape time (so
they are the same whatever process is scraped); exposition on a port of
their own."""

import datetime

from oslo_log import log as logging
from oslo_utils import timeutils
import prometheus_client
from prometheus_client import core

from blazar_ext import context as blazar_context
from blazar_ext.db.api import metrics as metrics_db
from blazar_ext.db.api import outbox as outbox_api
from blazar_ext import metrics
from blazar_ext.plugins import loader

LOG = logging.getLogger(__name__)

PREFIX = metrics.PREFIX
CONTENT_TYPE = metrics.CONTENT_TYPE


# The state, at scrape time

class StateCollector:
    """Gauges of the database's state, read when scraped."""

    def describe(self):
        return []

    def collect(self):
        up = core.GaugeMetricFamily(
            PREFIX + '_database_up', 'Whether the state gauges could be '
            'read from the database at this scrape (1) or not (0).')
        try:
            state = metrics_db.state(blazar_context.get_admin_context(),
                                     sources=_own_resources())
        except Exception as exc:
            LOG.warning('Metrics: cannot read the state from the '
                        'database: %s', exc)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield from _state_families(state, timeutils.utcnow())


# Every status is reported, zero included, so alerts need no absent().
DELIVERY_STATUSES = outbox_api.OPEN + (outbox_api.DELIVERED, outbox_api.DEAD)


def _own_resources() -> list:
    """Each enabled type's own resources and allocations (its plugin's
    ``lost_sources`` of its own type): what the reservable and reserved
    gauges count."""
    return [source for plugin in loader.get()
            for source in plugin.lost_sources()
            if source.resource_type == plugin.resource_type]


def _gauge(name: str, documentation: str, labels: list, samples) -> object:
    family = core.GaugeMetricFamily(PREFIX + '_' + name, documentation,
                                    labels=labels)
    for label_values, value in samples:
        family.add_metric(list(label_values), value)
    return family


def _state_families(state: dict, now: datetime.datetime):
    yield _gauge('leases', 'Leases, by status.', ['status'],
                 [((status,), n) for status, n in sorted(
                     state['leases'].items())])
    yield _gauge('leases_degraded', 'Leases a reservation of which lost a '
                 'resource and could not be healed yet.', [],
                 [((), state['degraded_leases'])])
    yield _gauge('reservations', 'Reservations, by resource type and '
                 'status.', ['resource_type', 'status'],
                 sorted(state['reservations'].items()))
    yield _gauge('reservations_missing_resources', 'Live reservations '
                 'waiting to be healed (a resource they held is out of '
                 'service).', [], [((), state['missing_resources'])])
    yield _gauge('resources_reservable', 'Resources that can be reserved '
                 '(registered, reservable, enabled), by type.',
                 ['resource_type'],
                 [((rtype,), n) for rtype, n in sorted(
                     state['reservable'].items())])
    yield _gauge('resources_reserved', 'Resources a live reservation holds '
                 'now, by type.', ['resource_type'],
                 [((rtype,), n) for rtype, n in sorted(
                     state['reserved'].items())])
    yield _gauge('events_overdue', 'Lease events due and not started yet '
                 '(the event loop is behind when this stays above zero).',
                 [], [((), state['overdue_events'])])
    oldest = state['oldest_overdue_event']
    lag = max(0.0, (now - oldest).total_seconds()) if oldest else 0.0
    yield _gauge('event_loop_lag_seconds', 'How long the oldest overdue '
                 'lease event has been due.', [], [((), lag)])
    yield _gauge('notifications_pending', 'Outbox events whose '
                 'oslo.messaging notification is not sent yet (the backlog).',
                 [], [((), state['notifications_pending'])])
    yield _gauge('webhook_deliveries', 'Webhook deliveries, by status '
                 '(PENDING and IN_PROGRESS: the backlog; DEAD: failed for '
                 'good, in the dead letters).', ['status'],
                 [((status,), state['deliveries'].get(status, 0))
                  for status in DELIVERY_STATUSES])


# Exposition

def registry() -> core.CollectorRegistry:
    """What a scrape of this process reports: every process's instruments
    (this one's alone without multiprocess mode) and the state."""
    scraped = core.CollectorRegistry()
    for collector in metrics.collectors() + [StateCollector()]:
        scraped.register(collector)
    return scraped


def exposition() -> bytes:
    """The text a scraper reads."""
    return prometheus_client.generate_latest(registry())


def serve(port: int, host: str) -> None:
    """Serve the metrics on a port of their own, from a daemon thread."""
    metrics.prepare()
    prometheus_client.start_http_server(port, addr=host,
                                        registry=_Scrape())
    LOG.info('Prometheus metrics on http://%s:%d/metrics', host, port)


class _Scrape:
    """A registry-like object that builds a fresh registry per scrape, so
    workers started after the server are counted."""

    def collect(self):
        return registry().collect()

    def restricted_registry(self, names):
        return registry().restricted_registry(names)
