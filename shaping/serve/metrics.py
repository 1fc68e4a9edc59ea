"""The server's Prometheus metrics (``GET /metrics``, text format), in a registry of its own per app.

Prometheus names cannot hold ``/``, so the server's own series are ``planshape_*``; the per-sample values a
trainer logs keep their ``planshape/<name>`` names in the replies.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from ..facade import SampleScore

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
CONTENT_TYPE = CONTENT_TYPE_LATEST


class Metrics:
    """Requests by route and status, samples by wire format, failures by category, request latency, and
    the scoring side's state (samples waiting, pool restarts)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter("planshape_requests", "HTTP requests answered", ("route", "status"),
                                registry=self.registry)
        self.samples = Counter("planshape_samples", "samples scored", ("format",), registry=self.registry)
        self.failures = Counter("planshape_sample_failures", "scored samples by failure category ('pass' for a "
                                "passing plan)", ("category",), registry=self.registry)
        self.latency = Histogram("planshape_request_seconds", "time from request to reply", ("route",),
                                 buckets=LATENCY_BUCKETS, registry=self.registry)
        self.waiting = Gauge("planshape_samples_waiting", "samples queued for the scoring thread",
                             registry=self.registry)
        self.restarts = Gauge("planshape_worker_restarts", "scoring processes replaced (died or past the budget)",
                              registry=self.registry)

    def scored(self, wire_format: str, scores: list[SampleScore]) -> None:
        self.samples.labels(wire_format).inc(len(scores))
        for score in scores:
            self.failures.labels(score.failure or "pass").inc()

    def text(self) -> bytes:
        return generate_latest(self.registry)
