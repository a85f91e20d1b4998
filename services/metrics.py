"""Prometheus metrics of the write side (default registry; the query service exposes /metrics).

Counters are labelled by `source` (`http`, `inbox`) or `shard`; units are in the names.
Source: issue brief (metrics: appended, applied, rejected / dead-lettered, lag, apply latency).
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

EVENTS_APPENDED = Counter(
    "scoreledger_events_appended_total",
    "Events written to the store (duplicates excluded)",
    ["source"],
)
EVENTS_DUPLICATE = Counter(
    "scoreledger_events_duplicate_total",
    "Appends of an event id already stored (no-ops)",
    ["source"],
)
EVENTS_REJECTED = Counter(
    "scoreledger_events_rejected_total", "Events refused at ingest", ["source", "reason"]
)
EVENTS_DEAD_LETTERED = Counter(
    "scoreledger_events_dead_lettered_total",
    "Messages written to the dead-letter stream",
    ["source"],
)
EVENTS_APPLIED = Counter(
    "scoreledger_events_applied_total", "Feed events applied to projections", ["shard"]
)
PROJECTOR_LAG = Gauge(
    "scoreledger_projector_lag_events",
    "Feed entries after the shard's checkpoint, at the last batch",
    ["shard"],
)
APPLY_LATENCY = Histogram(
    "scoreledger_projector_apply_seconds",
    "Seconds to fold and write one projector batch",
    ["shard"],
)
