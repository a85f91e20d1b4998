"""Cross-shard reads on a single node and a cluster: script calls, the games list, XREAD of
several shard streams; and the two patterns of today's code that a cluster refuses."""

from __future__ import annotations

import pytest
from redis.exceptions import RedisClusterException, ResponseError

from services.adapters.redis.connect import RedisClient, is_cluster
from services.adapters.redis.fanout import game_ids, script_calls, xread_streams
from services.adapters.redis.keys import Keys

KEYS = Keys(16)
ECHO_OR_FAIL = "if ARGV[1] == 'bad' then return redis.error_reply('BAD ' .. KEYS[1]) end\n" + (
    "redis.call('SET', KEYS[1], ARGV[1]) return redis.call('GET', KEYS[1])"
)


async def test_script_calls_answer_in_order_with_errors_in_place(client: RedisClient) -> None:
    script = client.register_script(ECHO_OR_FAIL)
    calls = [([f"k:{{s{i}}}"], ["bad" if i == 3 else f"v{i}"]) for i in range(16)]
    out = await script_calls(client, script, calls)
    assert [o for i, o in enumerate(out) if i != 3] == [
        f"v{i}".encode() for i in range(16) if i != 3
    ]
    assert isinstance(out[3], ResponseError)
    assert "BAD k:{s3}" in str(out[3])
    assert await script_calls(client, script, []) == []


async def test_game_ids_is_the_union_of_the_shard_indexes(client: RedisClient) -> None:
    for shard, game in [(0, "g-a"), (5, "g-b"), (15, "g-c"), (5, "g-d")]:
        await client.zadd(KEYS.game_index(shard), {game: 1})
    assert await game_ids(client, KEYS) == ["g-a", "g-b", "g-c", "g-d"]


async def test_xread_streams_reads_every_shard_stream(client: RedisClient) -> None:
    streams = {KEYS.changes(s): "0-0" for s in range(16)}
    assert await xread_streams(client, streams, block_ms=100, count=10) == []
    await client.xadd(KEYS.changes(2), {"game": "g1", "seq": "1"})
    await client.xadd(KEYS.changes(11), {"game": "g2", "seq": "4"})
    out = await xread_streams(client, streams, block_ms=100, count=10)
    got = {stream.decode(): [f[b"game"] for _, f in entries] for stream, entries in out}
    assert got == {KEYS.changes(2): [b"g1"], KEYS.changes(11): [b"g2"]}


async def test_what_a_cluster_refuses_in_todays_code(client: RedisClient) -> None:
    """`EventStore.append_many` / `QueryReader.lag_events` pipeline scripts, and `ChangeHub`
    reads all change streams in one XREAD: both fine on one node, refused by a cluster."""
    script = client.register_script("return 1")
    streams = {KEYS.changes(1): "0-0", KEYS.changes(2): "0-0"}
    if not is_cluster(client):
        async with client.pipeline(transaction=False) as pipe:
            await script(keys=["a:{s1}"], client=pipe)  # type: ignore[arg-type]
            assert await pipe.execute() == [1]
        assert await client.xread(streams, block=10) == []  # type: ignore[arg-type]
        return
    async with client.pipeline(transaction=False) as pipe:
        with pytest.raises(RedisClusterException, match="evalsha is blocked"):
            await script(keys=["a:{s1}"], client=pipe)  # type: ignore[arg-type]
    with pytest.raises(RedisClusterException, match="same key slot"):
        await client.xread(streams, block=10)  # type: ignore[arg-type]


async def test_script_calls_of_one_slot_keep_their_order(client: RedisClient) -> None:
    """Two appends of one game must not overtake each other (the expected-version check)."""
    push = client.register_script("return redis.call('RPUSH', KEYS[1], ARGV[1])")
    calls = [([f"l:{{s{i % 3}}}"], [str(i)]) for i in range(30)]
    out = await script_calls(client, push, calls)
    assert out == [i // 3 + 1 for i in range(30)]
    for shard in range(3):
        stored = await client.lrange(f"l:{{s{shard}}}", 0, -1)
        assert stored == [str(i).encode() for i in range(shard, 30, 3)]
