"""Prometheus metrics: what each worker counts, and the text `GET /metrics` answers with.

Under gunicorn every worker is its own process, so a scrape reaching one worker must still
report the whole instance. prometheus-client's multiprocess mode does that: each worker
writes its values into small mmap'd files in `PROMETHEUS_MULTIPROC_DIR`, and the scrape sums
the files of every worker, living or exited. `app/server/serving.py` creates (or empties) that
directory in the gunicorn master before any worker starts and removes a dead worker's
gauges when it exits; the variable must be set before `prometheus_client` is first
imported, which the master guarantees by setting it before it forks. Without the variable
(the Flask test client, `gunicorn wsgi:app` without our config) the values are this
process's own.

The objects below are module-level because prometheus-client registers each metric name
once per process; every app built in one process (tests build many) shares them.

Cost on the hot path: a cached read adds one histogram observation and one cache hit to an
in-process batch (see `_Batch`), through label children looked up once and kept.
"""
from __future__ import annotations

import atexit
import functools
import os
import threading
import time
from bisect import bisect_left
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client import REGISTRY as PROCESS_REGISTRY

from app.core.access import COMMITTED, INCOMPATIBLE, WriteEvent
from app.core.cache import CacheStats

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
TEXT_CONTENT_TYPE = CONTENT_TYPE_LATEST

# Cached reads answer in well under a millisecond, registrations in a few; a request near
# gunicorn's 30 s timeout is stuck. The default buckets start at 5 ms and would hide the former.
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

REQUESTS = Histogram(
    "sqlregistry_http_request_duration_seconds",
    "HTTP requests by method, route template and status; _count is the number of requests.",
    ("method", "route", "status"),
    buckets=LATENCY_BUCKETS,
)
WRITES = Counter(
    "sqlregistry_writes_total", "Committed writes (registrations, deletes, config and mode changes).", ("operation",)
)
REGISTRATIONS = Counter(
    "sqlregistry_registrations_total", "Successful registrations (a new version, or an existing one returned)."
)
COMPATIBILITY_FAILURES = Counter(
    "sqlregistry_compatibility_failures_total",
    "Schemas found incompatible: registrations refused (operation=register) and checks answering false.",
    ("operation",),
)
CACHE_LOOKUPS = Counter(
    "sqlregistry_cache_lookups_total",
    "In-process cache lookups: reply (hot reads), content, parsed and formatted schemas.",
    ("cache", "result"),
)
POOL_CHECKED_OUT = Gauge(
    "sqlregistry_db_connections_in_use", "Pooled database connections checked out right now.",
    multiprocess_mode="livesum",
)
POOL_OPEN = Gauge(
    "sqlregistry_db_connections_open", "Database connections open (pooled, in use or idle).",
    multiprocess_mode="livesum",
)
POOL_INVALIDATED = Counter(
    "sqlregistry_db_connections_invalidated_total",
    "Pooled connections discarded as dead (server restart, network cut) and replaced.",
)
DB_ERRORS = Counter(
    "sqlregistry_db_errors_total",
    "Database errors: connect (could not open a connection), disconnect (lost one), statement (others, "
    "including lost write races that are retried).",
    ("kind",),
)
AUTH_RELOAD_FAILURES = Counter(
    "sqlregistry_auth_reload_failures_total",
    "Changed auth files that did not load (the previous file stayed in force); each worker counts each bad version.",
)


class _Batch:
    """Increments summed in this process and handed to prometheus-client once a second (and
    before a scrape this process answers). In multiprocess mode each prometheus increment is
    an mmap write under a process-wide lock, several times what a dict update costs, and the
    hot reads make two or three per request. A scrape may therefore miss the last second of
    other workers' requests, never more; a worker that exits flushes first."""

    def __init__(self, seconds: float = 1.0):
        self._pending: dict[Any, float] = {}
        self._lock = threading.Lock()
        self._flushing = threading.Lock()
        self._seconds = seconds
        self._running = False
        os.register_at_fork(after_in_child=self._forked)

    def add(self, value: Any, amount: float = 1.0) -> None:
        """`value`: anything with prometheus' `inc(amount)` (a counter child, a histogram's bucket)."""
        with self._lock:
            pending = self._pending
            pending[value] = pending.get(value, 0.0) + amount
        if not self._running:
            self._start()

    def add_two(self, first: Any, second: Any, amount: float) -> None:
        """One observation of a histogram: its bucket counts one, its sum `amount`."""
        with self._lock:
            pending = self._pending
            pending[first] = pending.get(first, 0.0) + 1.0
            pending[second] = pending.get(second, 0.0) + amount
        if not self._running:
            self._start()

    def flush(self) -> None:
        # One flush at a time, so a scrape's flush waits for the thread's to be applied.
        with self._flushing:
            with self._lock:
                pending, self._pending = self._pending, {}
            for value, amount in pending.items():
                value.inc(amount)

    def _start(self) -> None:
        with self._lock:
            if self._running:
                return
            self._running = True
        threading.Thread(target=self._loop, name="sqlregistry-metrics", daemon=True).start()
        atexit.register(self.flush)

    def _loop(self) -> None:
        while True:
            time.sleep(self._seconds)
            self.flush()

    def _forked(self) -> None:
        """A forked child has no flushing thread and must not count its parent's increments."""
        self._lock = threading.Lock()
        self._flushing = threading.Lock()
        self._pending = {}
        self._running = False


BATCH = _Batch()


class _Counting:
    """A cache's `CacheStats`: bound counter children, so a lookup costs one batched add."""

    def __init__(self, cache: str):
        self.hit = functools.partial(BATCH.add, CACHE_LOOKUPS.labels(cache, "hit"))
        self.miss = functools.partial(BATCH.add, CACHE_LOOKUPS.labels(cache, "miss"))


def cache_stats(name: str) -> CacheStats:
    """The core's `CacheStatsFactory`."""
    return _Counting(name)  # type: ignore[return-value]


def record_event(event: WriteEvent) -> None:
    """The core's `EventSink`."""
    if event.outcome == INCOMPATIBLE:
        COMPATIBILITY_FAILURES.labels(event.operation).inc()
    elif event.outcome == COMMITTED:
        WRITES.labels(event.operation).inc()
        if event.operation == "register":
            REGISTRATIONS.inc()


class PoolMetrics:
    """`app.storage.pool_events.PoolObserver` reporting into the gauges and counters above."""

    def connected(self) -> None:
        POOL_OPEN.inc()

    def closed(self) -> None:
        POOL_OPEN.dec()

    # Every request that reads the database checks a connection out and in: batched.
    def checked_out(self) -> None:
        BATCH.add(POOL_CHECKED_OUT, 1.0)

    def checked_in(self) -> None:
        BATCH.add(POOL_CHECKED_OUT, -1.0)

    def invalidated(self) -> None:
        POOL_INVALIDATED.inc()

    def failed(self, kind: str) -> None:
        DB_ERRORS.labels(kind).inc()


class RequestTimer:
    """Observes one request's latency under its (method, route template, status) labels,
    through the batch; the children are looked up once per label set (prometheus' own
    lookup takes a lock)."""

    def __init__(self) -> None:
        self._series: dict[tuple[str, str, int], tuple[list[Any], Any]] = {}
        self._lock = threading.Lock()

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        key = (method, route, status)
        series = self._series.get(key)
        if series is None:
            with self._lock:
                child = REQUESTS.labels(method, route, str(status))
                # prometheus' own Histogram.observe increments the first bucket whose bound
                # is >= the value, and the sum; these are those same value objects.
                series = self._series[key] = (child._buckets, child._sum)
        buckets, total = series
        BATCH.add_two(buckets[bisect_left(_BOUNDS, seconds)], total, seconds)


_BOUNDS = (*LATENCY_BUCKETS, float("inf"))


def exposition() -> bytes:
    """The text format for a scrape: every worker's values in multiprocess mode, else this
    process's (including its CPU and memory collectors)."""
    BATCH.flush()
    if os.environ.get(MULTIPROC_ENV):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry)
    return generate_latest(PROCESS_REGISTRY)
