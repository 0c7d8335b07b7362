"""Prometheus metrics: the instruments a process updates as it works.

(blazar_ext.api.metrics adds the state gauges and serves them.) Two kinds
of metric:

- Counters and histograms a process updates as it works (API requests,
  database deadlock retries). Under ``blazar-ext-api --workers N`` each
  worker writes its own files in a directory the parent creates
  (prometheus_client's multiprocess mode) and a scrape of any worker sums
  them all. Under uwsgi or gunicorn, set PROMETHEUS_MULTIPROC_DIR to an
  empty directory before they start.
- Gauges of the service's state (leases by status, resources reserved now,
  overdue events), read from the database at scrape time, so they are the
  same whatever process is scraped.

The instruments are made on first use: prometheus_client picks the value
class (in memory, or files for several processes) when a metric's value
is created, which must come after use_multiprocess_dir().
"""

import functools
import os
import shutil
import tempfile
import threading

import prometheus_client
from prometheus_client import core
from prometheus_client import multiprocess
from prometheus_client import values

PREFIX = 'blazar_ext'
MULTIPROC_ENV = 'PROMETHEUS_MULTIPROC_DIR'
CONTENT_TYPE = prometheus_client.CONTENT_TYPE_LATEST
# Request latency buckets, in seconds: a small GET takes a few ms, a
# candidates query or a lease create on a busy database up to seconds.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                   10.0, 30.0)

# The instruments' own registry: the default one would collect them twice
# beside the multiprocess collector.
_INSTRUMENTS = core.CollectorRegistry(auto_describe=True)
_LOCK = threading.Lock()


@functools.cache
def _requests() -> tuple:
    with _LOCK:
        labels = ['family', 'method', 'route', 'status']
        return (
            prometheus_client.Counter(
                PREFIX + '_api_requests', 'API requests answered, by API '
                'family, method, route template and status code.',
                labels, registry=_INSTRUMENTS),
            prometheus_client.Histogram(
                PREFIX + '_api_request_duration_seconds', 'Time to answer '
                'an API request (until the body is returned).',
                labels[:3], buckets=LATENCY_BUCKETS,
                registry=_INSTRUMENTS))


@functools.cache
def _db_retries():
    with _LOCK:
        return prometheus_client.Counter(
            PREFIX + '_db_retries', 'Database transactions rolled back '
            'and retried: deadlock victims (a Galera certification failure '
            'is one) and lost allocation races, by reason.', ['reason'],
            registry=_INSTRUMENTS)


@functools.cache
def _heals():
    with _LOCK:
        return prometheus_client.Counter(
            PREFIX + '_heals', 'Reservations healed off a resource out of '
            'service: a resource replaced by another (replaced), or a '
            'reservation left waiting for one (missing).', ['outcome'],
            registry=_INSTRUMENTS)


def count_heal(outcome: str) -> None:
    """Count one heal: ``replaced`` (a resource) or ``missing`` (a
    reservation newly waiting)."""
    _heals().labels(outcome).inc()


def prepare() -> None:
    """Make the instruments, so a scrape lists every family (with zeros)
    before the first request or retry."""
    _requests()
    _heals().labels('replaced')
    _heals().labels('missing')
    _db_retries().labels('deadlock')


# (counter, histogram) children of each (family, method, route, status):
# prometheus_client validates and looks up the labels on every labels()
# call. As bounded as the series themselves (route templates, not paths).
_REQUEST_SERIES: dict = {}


def observe_request(family: str, method: str, route: str, status: int,
                    seconds: float) -> None:
    """Count one answered API request and its latency."""
    key = (family, method, route, status)
    series = _REQUEST_SERIES.get(key)
    if series is None:
        counter, histogram = _requests()
        series = _REQUEST_SERIES[key] = (
            counter.labels(family, method, route, str(status)),
            histogram.labels(family, method, route))
    series[0].inc()
    series[1].observe(seconds)


def count_db_retry(reason: str) -> None:
    """Count one transaction the database rolled back that is retried."""
    _db_retries().labels(reason).inc()


# Several processes

def multiprocess_dir() -> str | None:
    """The directory several processes share their metrics in, if any."""
    return os.environ.get(MULTIPROC_ENV)


def use_multiprocess_dir(path: str) -> None:
    """Keep this process's (and its children's) metrics in files in
    ``path``; before any instrument is used."""
    os.environ[MULTIPROC_ENV] = path
    values.ValueClass = values.get_value_class()


class SharedDirectory:
    """A fresh multiprocess directory for a parent and the workers it forks;
    removed on exit. An operator's PROMETHEUS_MULTIPROC_DIR is used as it
    is (cleaning it is theirs to do, as for uwsgi and gunicorn)."""

    def __init__(self):
        self.path = None

    def __enter__(self):
        if multiprocess_dir() is None:
            self.path = tempfile.mkdtemp(prefix='blazar-ext-metrics-')
            use_multiprocess_dir(self.path)
        return self

    def __exit__(self, *exc_info):
        if self.path is not None:
            shutil.rmtree(self.path, ignore_errors=True)
            os.environ.pop(MULTIPROC_ENV, None)


def collectors() -> list:
    """What a scrape of this process reports of the instruments: every
    process's under multiprocess mode, this one's otherwise."""
    path = multiprocess_dir()
    if path:
        return [multiprocess.MultiProcessCollector(None, path=path)]
    return [_Instruments()]


class _Instruments:
    """This process's instruments, as a collector of another registry."""

    def collect(self):
        return _INSTRUMENTS.collect()
