"""Retention of the inbox and the dead-letter stream (issue #11: `sl:inbox` and
`sl:deadletter` were never trimmed under `noeviction`, so anyone who could XADD filled Redis).

* The inbox keeps a settled entry (delivered to the consumer group and acked) for
  `keep_inbox_s`; an entry not yet delivered or still pending is never trimmed, whatever its
  age (`XTRIM MINID` below the oldest unsettled id).
* The dead-letter stream keeps a letter for `keep_letters_s`: the raw input is kept that long
  for an operator to read, then dropped (`XTRIM MINID`).

Trimmed entries are counted in `scoreledger_stream_trimmed_entries_total{stream}`.
Source: issue #11 ("retention for the inbox and the dead-letter stream"); Redis XTRIM, XINFO
GROUPS, XPENDING.
"""

from __future__ import annotations

from typing import Any

from prometheus_client import Counter

from services.adapters.redis.connect import RedisClient

STREAM_TRIMMED = Counter(
    "scoreledger_stream_trimmed_entries_total",
    "Settled inbox entries and old dead letters trimmed by retention",
    ["stream"],
)


def _id(value: Any) -> tuple[int, int]:
    text = value.decode() if isinstance(value, bytes) else str(value)
    ms, _, seq = text.partition("-")
    return int(ms), int(seq or 0)


def _text(entry_id: tuple[int, int]) -> str:
    return f"{entry_id[0]}-{entry_id[1]}"


async def oldest_unsettled(client: RedisClient, stream: str, group: str) -> tuple[int, int]:
    """The smallest id `group` has not settled: its oldest pending entry, else the one after
    its last delivered id. `(0, 0)` when the group does not exist (nothing is settled)."""
    groups: Any = await client.xinfo_groups(stream)
    info = next((g for g in groups if _text_of(g.get("name")) == group), None)
    if info is None:
        return (0, 0)
    ms, seq = _id(info["last-delivered-id"])
    bound = (ms, seq + 1)
    if int(info.get("pending") or 0) > 0:
        summary: Any = await client.xpending(stream, group)
        if summary.get("min") is not None:
            bound = min(bound, _id(summary["min"]))
    return bound


def _text_of(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


async def trim_inbox(
    client: RedisClient, stream: str, group: str, keep_s: float, now_ms: int
) -> int:
    """Trim settled inbox entries older than `keep_s`; returns how many were trimmed."""
    bound = min(await oldest_unsettled(client, stream, group), (now_ms - int(keep_s * 1000), 0))
    if bound <= (0, 0):
        return 0
    trimmed = int(await client.xtrim(stream, minid=_text(bound), approximate=False))
    STREAM_TRIMMED.labels(stream="inbox").inc(trimmed)
    return trimmed


async def trim_dead_letters(client: RedisClient, stream: str, keep_s: float, now_ms: int) -> int:
    """Trim dead letters older than `keep_s`; returns how many were trimmed."""
    bound = now_ms - int(keep_s * 1000)
    if bound <= 0:
        return 0
    trimmed = int(await client.xtrim(stream, minid=_text((bound, 0)), approximate=False))
    STREAM_TRIMMED.labels(stream="deadletter").inc(trimmed)
    return trimmed
