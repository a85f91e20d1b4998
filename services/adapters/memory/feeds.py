"""The shard feeds in memory (`ports.feeds.ShardFeeds`, `FeedTrimming`) on a `MemoryBackend`:
the feed entries its event log appended. Same behaviour as Redis: reads after a position, at
most `count` per shard, waiting up to `block_ms` (woken by the next append); trimming keeps
what the checkpoint has not passed; a rebuilt shard whose feed was trimmed is refolded from
the game logs first."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from services.adapters.memory.store import MemoryBackend
from services.ports.feeds import FeedBatch, Reseed, ShardThrottle
from services.ports.projections import START_ID, feed_id_key


class MemoryShardFeeds:
    """`ShardFeeds` in memory (no read-ahead: `read_soon` answers None)."""

    def __init__(self, backend: MemoryBackend) -> None:
        self.b = backend

    def _after(self, after: Mapping[int, str], count: int) -> list[FeedBatch]:
        out = []
        for shard, pos in after.items():
            key = feed_id_key(pos)
            fresh = [e for e in self.b.feeds.get(shard, []) if feed_id_key(e.feed_id) > key]
            if fresh:
                out.append(FeedBatch(shard, fresh[:count][-1].feed_id, fresh[:count]))
        return out

    async def read(self, after: Mapping[int, str], count: int, block_ms: int) -> list[FeedBatch]:
        """See `ShardFeeds.read`."""
        out = self._after(after, count)
        if not out and block_ms > 0:
            await self.b.changed(block_ms / 1000)
            out = self._after(after, count)
        return out

    def read_soon(
        self, after: Mapping[int, str], count: int
    ) -> asyncio.Future[list[FeedBatch]] | None:
        """None: nothing to save, a memory read costs no round trip."""
        return None


class MemoryFeedRetention:
    """`FeedTrimming` in memory (see `adapters.redis.retention.FeedRetention`).

    Args:
        keep_s: applied entries kept before the checkpoint (memory feed ids all carry the
            millisecond 1, so any positive `keep_s` keeps every applied entry).
        every_s: least time between two trims of one shard.
        reseed: refolds a shard from the game logs (`Reseed.shard`).
    """

    def __init__(self, backend: MemoryBackend, keep_s: float, every_s: float, reseed: Reseed):
        self.b = backend
        self.keep_ms = int(keep_s * 1000)
        self.throttle = ShardThrottle(every_s)
        self.reseed = reseed

    async def advanced(self, shard: int, checkpoint: str | None = None) -> int:
        """See `FeedTrimming.advanced`."""
        if not self.throttle.due(shard):
            return 0
        checkpoint = checkpoint or self.b.checkpoints.get(shard, START_ID)
        if checkpoint == START_ID:
            return 0
        ms, seq = feed_id_key(checkpoint)
        bound = (ms, seq + 1) if self.keep_ms <= 0 else (ms - self.keep_ms, 0)
        feed = self.b.feeds.get(shard, [])
        gone = [e for e in feed if feed_id_key(e.feed_id) < bound]
        if gone:
            self.b.feeds[shard] = feed[len(gone) :]
            self.b.trimmed_to[shard] = gone[-1].feed_id
        return len(gone)

    async def resume(self, shard: int, checkpoint: str) -> str:
        """See `FeedTrimming.resume`."""
        if checkpoint != START_ID:
            return checkpoint
        point = self.b.trimmed_to.get(shard)
        if point is None:
            return checkpoint
        await self.reseed(shard, point)
        return point
