"""The server's Prometheus metrics (``GET /metrics``, text format), in a registry of its own per app.

Prometheus names cannot hold ``/``, so the server's own series are ``planshape_*``; the per-sample values a
trainer logs keep their ``planshape/<name>`` names in the replies. With several front processes each writes its
values to ``PROMETHEUS_MULTIPROC_DIR`` (set before ``prometheus_client`` is imported: ``multiprocess_dir``) and
any front answers ``/metrics`` for all of them, as ``prometheus_client``'s multiprocess mode does for gunicorn.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def multiprocess_dir() -> Path | None:
    """The shared metrics folder of a server with several fronts (None: one front, in-memory metrics)."""
    value = os.environ.get(MULTIPROC_ENV)
    return Path(value) if value else None


class Metrics:
    """Requests by route and status, samples by wire format, failures by category, request latency, and
    the scoring side's state (samples waiting, pool restarts)."""

    def __init__(self) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        self.registry = CollectorRegistry()
        shared = multiprocess_dir() is not None
        into = None if shared else self.registry  # multiprocess values live in files, read by the collector below
        mode: Literal["livesum", "all"] = "livesum" if shared else "all"
        self.requests = Counter("planshape_requests", "HTTP requests answered", ("route", "status"), registry=into)
        self.samples = Counter("planshape_samples", "samples scored", ("format",), registry=into)
        self.failures = Counter("planshape_sample_failures", "scored samples by failure category ('pass' for a "
                                "passing plan)", ("category",), registry=into)
        self.latency = Histogram("planshape_request_seconds", "time from request to reply", ("route",),
                                 buckets=LATENCY_BUCKETS, registry=into)
        self.waiting = Gauge("planshape_samples_waiting", "samples queued for a scoring process", registry=into,
                             multiprocess_mode=mode)
        self.restarts = Gauge("planshape_worker_restarts", "scoring processes replaced (died or past the budget)",
                              registry=into, multiprocess_mode=mode)
        if shared:
            from prometheus_client import multiprocess

            multiprocess.MultiProcessCollector(self.registry)
        self._labels: dict[tuple[str, int], tuple[object, object]] = {}  # each series' child, looked up once
        self._failures: dict[str, object] = {}
        self._formats: dict[str, object] = {}

    def request(self, route: str, status: int, seconds: float) -> None:
        key = (route, status)
        counted = self._labels.get(key)
        if counted is None:
            counted = self._labels[key] = (self.requests.labels(route, str(status)), self.latency.labels(route))
        counted[0].inc()  # type: ignore[attr-defined]
        counted[1].observe(seconds)  # type: ignore[attr-defined]

    def scored(self, wire_format: str, failures: Iterable[str]) -> None:
        count = 0
        for failure in failures:
            counter = self._failures.get(failure)
            if counter is None:
                counter = self._failures[failure] = self.failures.labels(failure or "pass")
            counter.inc()  # type: ignore[attr-defined]
            count += 1
        counter = self._formats.get(wire_format)
        if counter is None:
            counter = self._formats[wire_format] = self.samples.labels(wire_format)
        counter.inc(count)  # type: ignore[attr-defined]

    def pool_state(self, waiting: int, restarts: int) -> None:
        self.waiting.set(waiting)
        self.restarts.set(restarts)

    def text(self) -> bytes:
        from prometheus_client import generate_latest

        return generate_latest(self.registry)
