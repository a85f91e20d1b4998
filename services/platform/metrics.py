"""Prometheus metrics of the write side (default registry; the query service exposes /metrics).

Counters are labelled by `source` (`http`, `inbox`) or `shard`; units are in the names.
Source: issue brief (metrics: appended, applied, rejected / dead-lettered, lag, apply latency).
"""

from __future__ import annotations

from operator import attrgetter
from typing import TYPE_CHECKING, Any

from prometheus_client import Counter, Gauge, Histogram

if TYPE_CHECKING:
    from services.ports.eventlog import AppendResult

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
    "scoreledger_projector_lag_seconds",
    "Age of the newest feed entry the shard's last batch applied (now minus its feed id's "
    "time), seconds; it stays at its last value while the shard is idle",
    ["shard"],
)
APPLY_LATENCY = Histogram(
    "scoreledger_projector_apply_seconds",
    "Seconds to fold and write one projector batch",
    ["shard"],
)

FEED_MALFORMED = Counter(
    "scoreledger_feed_entries_malformed_total",
    "Shard feed entries that are not an event's entry, dead-lettered alone by the projector",
    ["shard", "rule"],
)
HELD_GAMES = Gauge(
    "scoreledger_held_games",
    "Games held by the projector (an event its rules refused), as last read from Redis",
)


_REASONS = {
    "invalid": "validation",
    "rule": "rule",
    "conflict": "version_conflict",
    "unauthorized": "auth",
    "forbidden": "auth",
}


_DUPLICATE = attrgetter("duplicate")


_APPENDED: dict[str, tuple[Any, Any]] = {}
"""A source's two children of `EVENTS_APPENDED` and `EVENTS_DUPLICATE`: the ones `labels`
returns for it every time (nothing here removes a child), looked up once."""


def count_appended(result: AppendResult, source: str) -> None:
    """Count an append's new and duplicate events."""
    dups = sum(map(_DUPLICATE, result.events))  # in C: no Python frame an event
    counters = _APPENDED.get(source)
    if counters is None:
        counters = _APPENDED[source] = (
            EVENTS_APPENDED.labels(source=source),
            EVENTS_DUPLICATE.labels(source=source),
        )
    counters[0].inc(len(result.events) - dups)
    counters[1].inc(dups)


def count_refused(kind: str, source: str) -> None:
    """Count a refused write by its kind (a `Refusal.kind`: `validation`, `rule`,
    `version_conflict`, `auth`)."""
    EVENTS_REJECTED.labels(source=source, reason=_REASONS[kind]).inc()


INBOX_STREAM_RECOVERED = Counter(
    "scoreledger_inbox_stream_recovered_total",
    "Inbox streams found deleted (or without their group) or exhausted, and recovered in place",
    ["inbox", "why"],
)
