"""Prometheus metrics of the query service, in a registry per app (tests build many apps).

Names follow research/anchors.md §3 (observability): `projection_lag_events` plus HTTP
request counts and latencies labelled by route template (never by raw path: bounded labels).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from fastapi import Request, Response
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram


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
            "projection_lag_events",
            "feed entries not yet projected, all shards (each counted up to max_lag_events + 1)",
            registry=self.registry,
        )

    async def middleware(
        self, request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        """Count and time each request under its route template (`/games/{game_id}/standings`)."""
        start = time.perf_counter()
        response = await call_next(request)
        route = request.scope.get("route")
        template = getattr(route, "path", "unmatched")
        self.requests.labels(template, str(response.status_code)).inc()
        self.latency.labels(template).observe(time.perf_counter() - start)
        return response
