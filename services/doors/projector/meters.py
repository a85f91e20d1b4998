"""One held shard's projector metrics, looked up once (`labels()` takes a lock and a dict
lookup per call; it was 1.5% of the projector's samples at 1,000 events/s, docs/decisions/0012-hot-reads-and-off-loop-replays.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.platform.metrics import APPLY_LATENCY, EVENTS_APPLIED, PROJECTOR_LAG


@dataclass(frozen=True, slots=True)
class ShardMeters:
    """The shard's children of `EVENTS_APPLIED`, `APPLY_LATENCY` and `PROJECTOR_LAG`; drop it
    when the shard is lost (its lag child is removed from the gauge then)."""

    applied: Any
    latency: Any
    lag: Any

    @classmethod
    def of(cls, shard: int) -> ShardMeters:
        """Look the shard's children up (made on first use)."""
        label = str(shard)
        return cls(
            EVENTS_APPLIED.labels(shard=label),
            APPLY_LATENCY.labels(shard=label),
            PROJECTOR_LAG.labels(shard=label),
        )
