"""Prometheus metrics of the webhooks role (default registry: served at `/metrics`)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

DELIVERIES = Counter(
    "scoreledger_webhook_deliveries_total",
    "Webhook deliveries by how they left the queue: delivered, failed (after the last attempt "
    "or a non-retryable answer), dropped (queue bound), superseded (a newer standings.changed)",
    ["outcome"],
)
ATTEMPTS = Counter("scoreledger_webhook_attempts_total", "HTTP attempts made by webhook deliveries")
QUEUED = Counter("scoreledger_webhook_queued_total", "Deliveries queued by the dispatcher")
QUEUE_DEPTH = Gauge(
    "scoreledger_webhook_queue_depth", "Pending deliveries per endpoint", ["endpoint"]
)
ERRORS = Counter(
    "scoreledger_webhook_loop_errors_total",
    "Failed steps of the webhooks role (Redis away...), retried",
    ["part"],
)
