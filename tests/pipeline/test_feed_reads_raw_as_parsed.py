"""The projector's feed reads take XREAD's reply as Redis sent it (`feeds.read_feeds`,
`read_soon`: fields as flat lists); on a real Redis they read every shape of entry exactly as
the same XREAD parsed by redis-py (`fanout.xread_streams`, a dict per entry) reads: the append
script's fields, extra and repeated fields, fields out of order, missing ones, a game of
another shard, bad seqs and `live` values, not UTF-8, a trimmed feed, nothing new."""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis

from services.adapters.redis.fanout import xread_streams
from services.adapters.redis.feeds import RedisShardFeeds
from services.adapters.redis.keys import Keys, shard_of
from services.ports.feeds import FeedBatch
from services.ports.projections import START_ID

SHARDS = 4
KEYS = Keys(SHARDS)


def _two_games() -> tuple[str, str, int]:
    """A game of shard `s` and a game of another shard."""
    first = "g0"
    shard = shard_of(first, SHARDS)
    other = next(f"g{i}" for i in range(1, 100) if shard_of(f"g{i}", SHARDS) != shard)
    return first, other, shard


async def _both(client: aioredis.Redis, after: dict[int, str]) -> tuple[Any, Any, Any]:
    feeds = RedisShardFeeds(client, KEYS)
    raw = await feeds.read(after, 100, 0)
    positions = {KEYS.feed(s): pos for s, pos in after.items()}
    parsed = feeds._batches(await xread_streams(client, positions, count=100, block_ms=0))
    soon = feeds.read_soon(after, 100)
    ahead = await soon if soon is not None else parsed
    return raw, parsed, ahead


def _shape(batches: list[FeedBatch]) -> list[tuple[object, ...]]:
    return [(b.shard, b.last_id, list(b.entries), list(b.malformed)) for b in batches]


async def test_every_shape_of_entry_reads_as_redis_py_parses_it(
    redis_client: aioredis.Redis,
) -> None:
    game, other, shard = _two_games()
    feed = KEYS.feed(shard)
    rows: list[list[Any]] = [
        ["game", game, "seq", 1, "data", '{"a":1}'],
        ["game", game, "seq", 2, "data", '{"a":2}', "live", "1"],
        ["game", game, "seq", 3, "data", "x", "live", "0"],
        ["game", game, "seq", 4, "data", "x", "live", "yes"],
        ["game", game, "seq", 5, "data", "x", "extra", "1"],
        ["game", game, "seq", 6, "data", "x", "live", "1", "extra", "1"],
        ["seq", 7, "game", game, "data", "x"],
        ["data", "x", "seq", 8, "game", game],
        ["game", game, "seq", 9, "data", "x", "data", "y"],
        ["game", game, "seq", 10, "data", "x", "game", other],
        ["game", game, "game", other, "seq", 11, "data", "x"],
        ["game", game, "seq", 12],
        ["seq", 13, "data", "x"],
        ["game", game, "data", "x"],
        ["game", other, "seq", 14, "data", "x"],
        ["game", game, "seq", 0, "data", "x"],
        ["game", game, "seq", "", "data", "x"],
        ["game", game, "seq", "abc", "data", "x"],
        ["game", game, "seq", "01", "data", "x"],
        ["game", b"\xff\xfe", "seq", 15, "data", "x"],
        ["game", game, "seq", b"\xff", "data", "x"],
        ["game", "bad id!", "seq", 16, "data", "x"],
        ["game", game, "seq", 17, "data", ""],
        ["game", game, "seq", 18, "data", b"\xff"],
        ["not", "an entry"],
        ["game", game, "seq", 19, "data", "x", "live", "1"],
    ]
    for row in rows:
        await redis_client.execute_command("XADD", feed, "*", *row)  # type: ignore[no-untyped-call]
    raw, parsed, ahead = await _both(redis_client, {shard: START_ID})
    assert _shape(raw) == _shape(parsed) == _shape(ahead)
    [batch] = raw
    assert batch.size == len(rows)
    assert [e.seq for e in batch.entries][:4] == [1, 2, 3, 4]

    # trimmed: the first entries gone, read from the start and from a position before them
    await redis_client.execute_command("XTRIM", feed, "MAXLEN", 5)  # type: ignore[no-untyped-call]
    raw, parsed, ahead = await _both(redis_client, {shard: START_ID})
    assert _shape(raw) == _shape(parsed) == _shape(ahead)
    assert raw[0].size == 5

    # nothing new, on one feed and on two (one empty stream, one missing)
    last = raw[0].last_id
    empty_shard = next(s for s in range(SHARDS) if s != shard)
    for after in ({shard: last}, {shard: last, empty_shard: START_ID}):
        raw, parsed, ahead = await _both(redis_client, after)
        assert raw == parsed == ahead == []
    assert await RedisShardFeeds(redis_client, KEYS).read({shard: last}, 10, 20) == []
