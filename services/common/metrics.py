"""Prometheus metrics of every service (prometheus-client), served over HTTP on
``--metrics-port`` / ``CARDROOM_<SERVICE>_METRICS_PORT`` (0, the default, serves none).

* Every service: calls by method and status code, and a latency histogram per method,
  recorded by the shared runner's interceptor (services/common/server.py).
* Services add their own: counters and histograms declared here (one place for the names),
  and gauges computed at scrape time by a collector (:func:`add_source`), e.g. the
  matchmaker's queue and table figures read from its database.

Several workers share one port (SO_REUSEPORT), so a scrape would reach a random one.  With
more than one worker the runner's parent process serves the metrics instead, in
prometheus-client's multiprocess mode: it points ``PROMETHEUS_MULTIPROC_DIR`` at a fresh
directory before it spawns the workers, each worker's counters and histograms live in files
there, and the parent's endpoint sums them.  Scrape-time sources are per process and so only
served with one worker (the matchmaker always runs one).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    start_http_server,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

#: Bucket bounds in seconds: from sub-millisecond engine calls to multi-second verifications.
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)

CALLS = Counter(
    "cardroom_rpc_calls",
    "gRPC calls handled, by service, method and final status code",
    ["service", "method", "code"],
)
LATENCY = Histogram(
    "cardroom_rpc_latency_seconds",
    "gRPC call latency (for a stream: until it ends), by service and method",
    ["service", "method"],
    buckets=LATENCY_BUCKETS,
)
REPLAY_APPENDS = Counter(
    "cardroom_replay_appended_events", "Events appended to the replay store (new, not replayed)"
)
REPLAY_VERIFY = Histogram(
    "cardroom_replay_verify_seconds",
    "Time to verify one game (hash chain and re-execution)",
    buckets=LATENCY_BUCKETS,
)


def observe_call(service: str, method: str, code: str, seconds: float) -> None:
    """One finished call (the runner's interceptor calls this)."""
    CALLS.labels(service, method, code).inc()
    LATENCY.labels(service, method).observe(seconds)


# --------------------------------------------------------------------------- scrape-time gauges
#: A source answers ``{metric name: (help, value)}`` when scraped, for one instance.
Source = Callable[[], dict[str, tuple[str, float]]]


class _Sources(Collector):
    """Gauges computed when scraped, labelled with the instance that computed them.  One
    collector for every source, so several servers in one process (tests) do not register a
    metric name twice."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sources: dict[str, Source] = {}

    def add(self, instance: str, source: Source) -> None:
        with self._lock:
            self._sources[instance] = source

    def remove(self, instance: str) -> None:
        with self._lock:
            self._sources.pop(instance, None)

    def collect(self) -> Iterator[Any]:
        with self._lock:
            sources = list(self._sources.items())
        families: dict[str, GaugeMetricFamily] = {}
        for instance, source in sources:
            try:
                values = source()
            except Exception:  # a database outage: no figures this scrape, never a 500
                continue
            for name, (help_text, value) in values.items():
                family = families.get(name)
                if family is None:
                    family = families[name] = GaugeMetricFamily(
                        name, help_text, labels=["instance"]
                    )
                family.add_metric([instance], value)
        yield from families.values()

    def describe(self) -> list[Any]:
        return []  # computed at scrape time; nothing to check at registration


_SOURCES = _Sources()
REGISTRY.register(_SOURCES)


def add_source(instance: str, source: Source) -> None:
    """Serve ``source``'s gauges, labelled ``instance``, on this process's endpoint."""
    _SOURCES.add(instance, source)


def remove_source(instance: str) -> None:
    _SOURCES.remove(instance)


# --------------------------------------------------------------------------- the endpoint
_serving: dict[int, Any] = {}  # port -> its HTTP server, so that a process serves a port once


def serve_here(port: int, host: str = "0.0.0.0") -> None:
    """Serve this process's metrics on ``port`` (one worker, or in-process servers)."""
    if port and port not in _serving:
        server, _thread = start_http_server(port, addr=host)
        _serving[port] = server


def serve_for_workers(port: int, host: str = "0.0.0.0") -> Callable[[], None]:
    """In the parent of several workers, before they are spawned: multiprocess mode (module
    docstring).  Returns the clean-up to run once every worker has stopped."""
    from prometheus_client import multiprocess

    directory = tempfile.mkdtemp(prefix="cardroom-metrics-")
    os.environ[MULTIPROC_ENV] = directory  # spawned workers inherit it before any import
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=directory)  # type: ignore[no-untyped-call]
    server, _thread = start_http_server(port, addr=host, registry=registry)

    def close() -> None:
        server.shutdown()
        os.environ.pop(MULTIPROC_ENV, None)
        shutil.rmtree(directory, ignore_errors=True)

    return close


def stop_here(port: int) -> None:
    server = _serving.pop(port, None)
    if server is not None:
        server.shutdown()
