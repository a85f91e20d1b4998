"""The shard feeds on Redis (`services.ports.feeds.ShardFeeds`): one stream per shard,
`Keys.feed(shard)`, fields `game`, `seq`, `data` (written by the append script).

`read` is one `XREAD BLOCK` over the feeds asked (on a Cluster a pipeline of one-stream reads,
`fanout.xread_streams`). `read_soon` sends a non-blocking XREAD in the pipeline of this
event-loop turn's script calls (`coalesce.ScriptCoalescer`): the projector's next read rides
with a batch's writes (docs/decisions/0012-hot-reads-and-off-loop-replays.md: one round trip less per batch). Single node only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from services.adapters.redis.coalesce import ScriptCoalescer
from services.adapters.redis.connect import RedisClient, is_cluster
from services.adapters.redis.fanout import xread_streams
from services.adapters.redis.feed import ReadEntries, feed_entries, live_read
from services.adapters.redis.keys import Keys
from services.adapters.redis.unavailable import unavailable
from services.ports.feeds import FeedBatch

_XREAD = b"XREAD"
"""XREAD named in bytes: redis-py looks its reply callbacks up by the command's str name, so
this read's reply comes as Redis sent it, each entry's fields a flat list, without a dict
built per entry (`pairs_to_dict`: about a third of reading an entry,
docs/profiles/hot-path-profiles.md); `feed_entries` reads them by place. Were a callback
applied after all, the fields would be dicts, which `feed_entries` reads too."""


class RedisShardFeeds:
    """`client`: the process's client (bytes replies); `keys`: its shard count names the feeds."""

    def __init__(self, client: RedisClient, keys: Keys) -> None:
        self.client = client
        self.keys = keys
        self._shard_of = {keys.feed(s): s for s in range(keys.shards)}

    def _batches(self, reply: Any) -> list[FeedBatch]:
        out = []
        streams = reply.items() if isinstance(reply, dict) else reply or []  # RESP3, RESP2
        for stream, entries in streams:
            name = stream.decode() if isinstance(stream, bytes) else str(stream)
            shard = self._shard_of[name]
            live = live_read(entries, shard, self.keys.shards)
            if live is not None:  # entries built only if the batch is folded after all
                lazy = ReadEntries(entries, shard, self.keys.shards)
                out.append(FeedBatch(shard, live.last_id, lazy, (), live))
                continue
            good, bad = feed_entries(entries, shard, self.keys.shards)
            out.append(FeedBatch(shard, entries[-1][0].decode(), good, bad))
        return out

    async def read(self, after: Mapping[int, str], count: int, block_ms: int) -> list[FeedBatch]:
        """See `ShardFeeds.read`. Raises: StoreUnavailable."""
        positions = {self.keys.feed(s): pos for s, pos in after.items()}
        with unavailable():
            reply = await read_feeds(self.client, positions, count, block_ms)
        return self._batches(reply)

    def read_soon(
        self, after: Mapping[int, str], count: int
    ) -> asyncio.Future[list[FeedBatch]] | None:
        """See `ShardFeeds.read_soon`; None on a cluster (each feed is read on its own there)."""
        if is_cluster(self.client):
            return None
        feeds = [self.keys.feed(s) for s in after]
        raw = ScriptCoalescer.of(self.client).command(
            _XREAD, "COUNT", count, "STREAMS", *feeds, *after.values()
        )
        parsed = asyncio.ensure_future(self._parsed(raw))
        parsed.add_done_callback(_retrieved)  # an unused failed read is not an error
        return parsed

    async def _parsed(self, raw: asyncio.Future[Any]) -> list[FeedBatch]:
        with unavailable():
            reply = await raw
        return self._batches(reply)


async def read_feeds(
    client: RedisClient, positions: Mapping[str, str], count: int, block_ms: int
) -> Any:
    """`XREAD COUNT count [BLOCK block_ms] STREAMS ...` of the feeds at `positions` (feed key ->
    last id read): on a single node one command answered as Redis sent it (`_XREAD`), on a
    cluster `fanout.xread_streams`. `block_ms` 0 or less: no BLOCK (`BLOCK 0` waits forever).
    None or empty when nothing is new. Raises: the client's errors."""
    if is_cluster(client):
        return await xread_streams(client, positions, count=count, block_ms=block_ms)
    block = ("BLOCK", block_ms) if block_ms > 0 else ()
    streams = ("STREAMS", *positions, *positions.values())
    return await client.execute_command(_XREAD, "COUNT", count, *block, *streams)


def _retrieved(reply: asyncio.Future[Any]) -> None:
    if not reply.cancelled():
        reply.exception()  # marks it retrieved: no "never retrieved" warning when unused
