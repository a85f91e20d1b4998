"""Prometheus metrics of the query service, in a registry per app (tests build many apps).

Names follow docs/decisions/0018-observability-at-the-edges.md (observability), all `scoreledger_*`:
`scoreledger_projection_lag_events` plus HTTP request counts and latencies labelled by route template (never by raw path: bounded labels).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from services.doors.asgi.http_errors import storage_fault


class QueryMetrics:
    """The query service's collectors, registered in `self.registry`."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "scoreledger_query_requests",
            "HTTP requests served",
            ["route", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "scoreledger_query_request_seconds",
            "HTTP request latency (seconds)",
            ["route"],
            registry=self.registry,
        )
        self.lag = Gauge(
            "scoreledger_projection_lag_events",
            "feed entries not yet projected, all shards (each counted up to max_lag_events + 1)",
            registry=self.registry,
        )
        # The labelled children, looked up once per (route, status): `labels()` takes a lock
        # and builds the key on every call (about a tenth of a lean standings GET).
        self._counts: dict[tuple[str, int], Any] = {}
        self._times: dict[str, Any] = {}

    def observe(self, template: str, status: int, seconds: float) -> None:
        """Count one request of the route `template` answered `status`, and time it
        (`seconds`, wall clock)."""
        count = self._counts.get((template, status))
        if count is None:
            count = self._counts[template, status] = self.requests.labels(template, str(status))
        timer = self._times.get(template)
        if timer is None:
            timer = self._times[template] = self.latency.labels(template)
        count.inc()
        timer.observe(seconds)


@dataclass(eq=False, slots=True)
class MetricsMiddleware:
    """Pure ASGI middleware counting and timing each HTTP request under its route template
    (`/games/{game_id}/standings`). Pure ASGI rather than `BaseHTTPMiddleware`, which cost
    about 0.5 ms a request in the read benchmark (docs/benchmarks.md, item 5) and sits
    between every server-sent event and its client."""

    app: ASGIApp
    metrics: QueryMetrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 0  # no response started yet

        async def send_and_note_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_and_note_status)
        except Exception as exc:
            if not status:  # answered outside this middleware: as `internal_handler` does
                status = 503 if storage_fault(exc) is not None else 500
            raise
        finally:
            status = status or 500
            template = getattr(scope.get("route"), "path", "unmatched")
            self.metrics.observe(template, status, time.perf_counter() - start)
