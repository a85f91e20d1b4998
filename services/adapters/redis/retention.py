"""Retention of the inbox and the dead-letter stream (docs/decisions/0019-hostile-input-at-every-door.md: `sl:inbox` and
`sl:deadletter` were never trimmed under `noeviction`, so anyone who could XADD filled Redis).

* The inbox keeps a settled entry (delivered to the consumer group and acked) for
  `keep_inbox_s` (one that may name a player was deleted when it was settled: docs/forget.md),
  and while the stream holds more than `max_len` entries (the per-stream cap,
  `IngestSettings.inbox_max_len`) no settled entry at all; an entry not yet delivered or still
  pending is never trimmed, whatever its age or the stream's length (`XTRIM MINID` below the
  oldest unsettled id). Each inbox stream (the shared one, each
  integration's own) is trimmed alone, below its own group's oldest unsettled id.
* The dead-letter stream keeps a letter for `keep_letters_s`: the raw input is kept that long
  for an operator to read, then dropped (`XTRIM MINID`).

* A shard feed (a second copy of every event, for the projector) keeps what its checkpoint has
  not passed, and the applied entries of the last `keep_s` before the checkpoint (docs/decisions/0011-faults-are-answered-not-crashed.md:
  "the shard feeds keep a second full copy of every event"); the game streams remain the
  record. The checkpoint is one per shard, whoever owns it, so an entry it has passed is
  applied for good. Trimmed by the projector after a checkpoint advance, at most once per
  `every_s` per shard (`FeedRetention`). A shard without a checkpoint (a rebuild) whose feed
  was trimmed is resumed by refolding its games from their streams
  (`services.usecases.reseed`), not from the feed.

Trimmed entries are counted in `scoreledger_stream_trimmed_entries_total{stream}`.
Source: docs/operating/security.md#what-is-kept-how-long ("retention for the inbox and the dead-letter stream"); docs/decisions/0011-faults-are-answered-not-crashed.md; Redis
XTRIM, XINFO GROUPS, XPENDING, XINFO STREAM (`entries-added`, Redis >= 7.0).
"""

from __future__ import annotations

from typing import Any

import structlog
from prometheus_client import Counter
from redis.exceptions import ResponseError

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.keys import Keys
from services.ports.feeds import Reseed, ShardThrottle
from services.ports.projections import START_ID

STREAM_TRIMMED = Counter(
    "scoreledger_stream_trimmed_entries_total",
    "Settled inbox entries, old dead letters and applied feed entries trimmed by retention",
    ["stream"],
)


def _id(value: Any) -> tuple[int, int]:
    text = value.decode() if isinstance(value, bytes) else str(value)
    ms, _, seq = text.partition("-")
    return int(ms), int(seq or 0)


def _text(entry_id: tuple[int, int]) -> str:
    return f"{entry_id[0]}-{entry_id[1]}"


MAX_ID_PART = 2**64 - 1
"""The largest millisecond time and sequence number of a stream id (unsigned 64-bit)."""


def _after(entry_id: tuple[int, int]) -> tuple[int, int]:
    """The smallest valid stream id above `entry_id`; `entry_id` itself for the largest id
    (nothing is above it, so its entry is kept). An XADD may name `<ms>-18446744073709551615`,
    and `<ms>-18446744073709551616` is refused by XTRIM ("Invalid stream ID")."""
    ms, seq = entry_id
    if seq < MAX_ID_PART:
        return (ms, seq + 1)
    return (ms + 1, 0) if ms < MAX_ID_PART else entry_id


async def oldest_unsettled(client: RedisClient, stream: str, group: str) -> tuple[int, int]:
    """The smallest id `group` has not settled: its oldest pending entry, else the one after
    its last delivered id. `(0, 0)` when the group does not exist (nothing is settled)."""
    groups: Any = await client.xinfo_groups(stream)
    info = next((g for g in groups if _text_of(g.get("name")) == group), None)
    if info is None:
        return (0, 0)
    bound = _after(_id(info["last-delivered-id"]))
    if int(info.get("pending") or 0) > 0:
        summary: Any = await client.xpending(stream, group)
        if summary.get("min") is not None:
            bound = min(bound, _id(summary["min"]))
    return bound


def _text_of(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


async def trim_inbox(
    client: RedisClient,
    stream: str,
    group: str,
    keep_s: float,
    now_ms: int,
    max_len: int | None = None,
) -> int:
    """Trim settled inbox entries older than `keep_s`, and every settled entry while the stream
    holds more than `max_len` (None: no cap); returns how many were trimmed. An unsettled entry
    (undelivered or pending) is never trimmed, so the cap bounds what is kept after settling,
    not a backlog (which `maxmemory` bounds: deploy/redis.conf)."""
    unsettled = await oldest_unsettled(client, stream, group)
    bound = min(unsettled, (now_ms - int(keep_s * 1000), 0))
    if max_len is not None and int(await client.xlen(stream)) > max_len:
        bound = unsettled  # over the cap: every settled entry goes, whatever its age
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


def feed_min_id(checkpoint: str | None, keep_ms: int) -> str | None:
    """The XTRIM MINID that keeps what `checkpoint` has not passed and the applied entries of
    the last `keep_ms` before it (0: none); None when nothing may be trimmed."""
    if not checkpoint or checkpoint == START_ID:
        return None
    ms, seq = _id(checkpoint)
    if keep_ms <= 0:
        return _text((ms, seq + 1))
    return _text((ms - keep_ms, 0)) if ms - keep_ms > 0 else None


log = structlog.get_logger("projector")


async def trimmed_resume_point(client: RedisClient, feed: str) -> str | None:
    """For a shard with no checkpoint: None when nothing was ever trimmed from `feed` (read it
    from the start), else an id just before its first kept entry (its last id when it is
    empty), from which the feed is read once the games are refolded from their streams.
    (`XINFO STREAM`: `entries-added` counts every entry ever added; Redis >= 7.0.)"""
    try:
        info: Any = await client.xinfo_stream(feed)
    except ResponseError:  # no such key: nothing was ever added
        return None
    if int(info.get("entries-added") or 0) <= int(info["length"]):
        return None
    first = info.get("first-entry")
    if not first:
        return _text_of(info["last-generated-id"])
    ms, seq = _id(first[0])
    return _text((ms, seq - 1) if seq > 0 else (ms - 1, 0))


class FeedRetention:
    """The projector's feed retention: trims after checkpoint advances and resumes a shard
    whose checkpoint is behind its feed's trim point (module docstring).

    Args:
        keep_s: applied entries kept before the checkpoint (seconds of feed ids).
        every_s: least time between two trims of one shard.
        reseed: refolds a shard from the game streams (`Reseed.shard`).
    """

    def __init__(
        self, client: RedisClient, keys: Keys, keep_s: float, every_s: float, reseed: Reseed
    ) -> None:
        self.client = client
        self.keys = keys
        self.keep_ms = int(keep_s * 1000)
        self.throttle = ShardThrottle(every_s)
        self.reseed = reseed

    async def advanced(self, shard: int, checkpoint: str | None = None) -> int:
        """After a checkpoint advance of `shard` (to `checkpoint`, None: read it): trim its
        feed unless trimmed within `every_s`; returns the entries trimmed."""
        if not self.throttle.due(shard):
            return 0
        # No script: the checkpoint only moves forward, so a MINID from the one this process
        # just wrote (or read) stays safe; and the projector's ACL user may XTRIM the feeds but
        # run no script on them. Given the written one, the trim is one command, not two.
        if checkpoint is None:
            stored: Any = await self.client.get(self.keys.checkpoint(shard))
            checkpoint = _text_of(stored) if stored else None
        min_id = feed_min_id(checkpoint, self.keep_ms)
        if min_id is None:
            return 0
        feed = self.keys.feed(shard)
        trimmed = int(await self.client.xtrim(feed, minid=min_id, approximate=False))
        STREAM_TRIMMED.labels(stream="feed").inc(trimmed)
        return trimmed

    async def resume(self, shard: int, checkpoint: str) -> str:
        """The position to read `shard`'s feed from: `checkpoint`; but a shard without one (a
        rebuild) whose feed was trimmed is first refolded from the game streams, and read from
        just before the first entry its feed kept."""
        if checkpoint != START_ID:
            return checkpoint  # it only moves forward, and the feed is trimmed behind it
        point = await trimmed_resume_point(self.client, self.keys.feed(shard))
        if point is None:
            return checkpoint
        log.warning("projector.rebuild_from_game_streams", shard=shard, resume_at=point)
        await self.reseed(shard, point)
        return point
