"""Auto-pipelined standings reads (issue 9, `services.adapters.redis.batching`): the script
calls of one loop turn go as one pipeline and each caller gets its own reply; an error reply
reaches only its caller, a missing script is loaded, a cancelled caller leaves the others'
batch alone, and an unreachable Redis fails every caller as the plain call does."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from services.adapters.redis.batching import ScriptBatcher, batched
from services.adapters.redis.connect import RedisClient, connect
from services.adapters.redis.projections import RedisProjections
from services.bench.redis_server import free_port
from services.keys import Keys, shard_of
from services.ports.projections import ProjectionBatch, ProjectionOp

pytestmark = pytest.mark.redis

ECHO = "if ARGV[1] == 'bad' then return redis.error_reply('BAD ' .. KEYS[1]) end\n"
ECHO += "return {KEYS[1], ARGV[1]}"


def single_node(client: RedisClient) -> aioredis.Redis:
    if not isinstance(client, aioredis.Redis):
        pytest.skip("a cluster client does not pipeline scripts (batched() is None there)")
    return client


def counting_pipelines(client: aioredis.Redis, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    made: list[int] = []
    real = client.pipeline

    def pipeline(*args: Any, **kwargs: Any) -> Any:
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(client, "pipeline", pipeline)
    return made


async def test_the_calls_of_one_turn_share_a_pipeline(
    redis_client: RedisClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = single_node(redis_client)
    script = client.register_script(ECHO)
    batcher = ScriptBatcher(client, script, max_batch=64)
    pipelines = counting_pipelines(client, monkeypatch)
    assert await batcher(["lone"], ["0"]) == [b"lone", b"0"]  # a lone call: no pipeline
    assert pipelines == []
    got = await asyncio.gather(*(batcher([f"k{i}"], [str(i)]) for i in range(100)))
    assert got == [[f"k{i}".encode(), str(i).encode()] for i in range(100)]
    assert len(pipelines) == 2  # 64, then the 36 left in the turn


async def test_an_error_reply_reaches_its_caller_only_and_a_missing_script_is_loaded(
    redis_client: RedisClient,
) -> None:
    client = single_node(redis_client)
    batcher = ScriptBatcher(client, client.register_script(ECHO))
    await client.script_flush()
    got = await asyncio.gather(
        batcher(["a"], ["1"]), batcher(["b"], ["bad"]), batcher(["c"], ["3"]),
        return_exceptions=True,
    )  # fmt: skip
    assert got[0] == [b"a", b"1"]
    assert got[2] == [b"c", b"3"]
    assert isinstance(got[1], ResponseError)
    assert "BAD b" in str(got[1])


async def test_a_cancelled_caller_leaves_the_batch_to_the_others(redis_client: RedisClient) -> None:
    client = single_node(redis_client)
    batcher = ScriptBatcher(client, client.register_script(ECHO))
    calls = [asyncio.ensure_future(batcher([f"k{i}"], [str(i)])) for i in range(3)]
    await asyncio.sleep(0)  # all three queued in this turn
    calls[1].cancel()
    got = await asyncio.gather(*calls, return_exceptions=True)
    assert got[0] == [b"k0", b"0"]
    assert got[2] == [b"k2", b"2"]
    assert isinstance(got[1], asyncio.CancelledError)


async def test_an_unreachable_redis_fails_every_caller() -> None:
    client = connect(f"redis://127.0.0.1:{free_port()}/0", retries=0, connect_timeout_s=0.5)
    try:
        batcher = batched(client, client.register_script(ECHO))
        assert batcher is not None
        got = await asyncio.gather(
            *(batcher([f"k{i}"], ["1"]) for i in range(5)), return_exceptions=True
        )
        assert all(isinstance(g, RedisConnectionError) for g in got), got
    finally:
        await client.aclose()


async def test_concurrent_standings_reads_get_their_own_games(redis_client: RedisClient) -> None:
    keys = Keys(4)
    projections = RedisProjections(redis_client, keys)
    games = [f"game-{i}" for i in range(40)]
    for game in games:
        view = f'{{"game_id":"{game}"}}'.encode()
        op = ProjectionOp("apply", game, 0, 1, "in_progress", "trickerion", "{}", "", view)
        shard = shard_of(game, 4)
        await projections.write(ProjectionBatch(shard, "", [op], "T"), 1000)
    got = await asyncio.gather(*(projections.standings(g) for g in [*games, "none"]))
    assert [s.view if s else None for s in got] == [
        *(f'{{"game_id":"{g}"}}'.encode() for g in games),
        None,
    ]
