"""Script calls of one event-loop turn share one pipeline (docs/decisions/0012-hot-reads-and-off-loop-replays.md: the shards' projection writes
of one read were one send and one reply wake-up each). Behaviour only; speed is in `make bench`."""

from __future__ import annotations

import asyncio
import json

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from services.adapters.redis.coalesce import ScriptCoalescer
from services.adapters.redis.connect import RedisClient, is_cluster
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys, shard_of
from services.adapters.redis.lease import LeaseLost, ShardLeases, lease_key
from services.adapters.redis.names import RedisPlayerNames
from services.adapters.redis.projections import RedisProjections
from services.bootstrap import redis_ports, use_cases
from services.platform.settings import ServiceSettings
from services.ports.projections import START_ID, ProjectionBatch
from tests.pipeline.factory import game_log
from tests.pipeline.helpers import offline_standings

ECHO = "if ARGV[1] == 'refuse' then return redis.error_reply('NOPE ' .. KEYS[1]) end " + (
    "redis.call('SET', KEYS[1], ARGV[1]) return ARGV[1]"
)
KEYS = Keys(4)


@pytest.fixture
def single_node(redis_client: RedisClient) -> RedisClient:
    """The session's Redis; on a cluster the calls go one by one (no pipeline), and each test
    checks that they still answer as on a single node."""
    return redis_client


def sent(client: RedisClient, pipelines: int) -> int:
    """The pipelines a single node sends for the test's calls; a cluster sends none."""
    return 0 if is_cluster(client) else pipelines


async def test_calls_of_one_turn_share_one_pipeline(single_node: RedisClient) -> None:
    script = single_node.register_script(ECHO)
    batcher = ScriptCoalescer(single_node)
    got = await asyncio.gather(*(batcher.call(script, [f"k{i}"], [f"v{i}"]) for i in range(3)))
    print(f"calls 3, pipelines {batcher.pipelines}, replies {got}")
    assert got == [b"v0", b"v1", b"v2"]
    assert batcher.pipelines == sent(single_node, 1)
    assert await single_node.get("k2") == b"v2"
    assert await batcher.call(script, ["k3"], ["v3"]) == b"v3"  # a later turn: its own
    assert batcher.pipelines == sent(single_node, 2)


async def test_a_refused_call_fails_alone(single_node: RedisClient) -> None:
    script = single_node.register_script(ECHO)
    batcher = ScriptCoalescer(single_node)
    got = await asyncio.gather(
        batcher.call(script, ["a"], ["ok"]),
        batcher.call(script, ["b"], ["refuse"]),
        batcher.call(script, ["c"], ["ok"]),
        return_exceptions=True,
    )
    assert got[0] == b"ok"
    assert got[2] == b"ok"
    assert isinstance(got[1], ResponseError)
    assert "NOPE b" in str(got[1])
    assert batcher.pipelines == sent(single_node, 1)


async def test_a_flushed_script_is_loaded_again(single_node: RedisClient) -> None:
    script = single_node.register_script(ECHO)
    batcher = ScriptCoalescer(single_node)
    assert await batcher.call(script, ["k"], ["one"]) == b"one"
    await single_node.script_flush()  # as after a Redis restart
    got = await asyncio.gather(*(batcher.call(script, [f"k{i}"], ["two"]) for i in range(2)))
    assert got == [b"two", b"two"]
    assert await single_node.get("k1") == b"two"


async def test_a_connection_error_reaches_every_caller(
    single_node: RedisClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = single_node.register_script(ECHO)
    batcher = ScriptCoalescer(single_node)

    def broken(*args: object, **kwargs: object) -> object:
        raise RedisConnectionError("gone")

    monkeypatch.setattr(single_node, "pipeline", broken)  # a single node's path
    monkeypatch.setattr(single_node, "execute_command", broken)  # a cluster's
    got = await asyncio.gather(
        *(batcher.call(script, [f"k{i}"], ["v"]) for i in range(2)), return_exceptions=True
    )
    assert all(isinstance(g, RedisConnectionError) for g in got)


async def test_projection_writes_of_one_turn_are_one_round_trip_and_fenced_apart(
    single_node: RedisClient,
) -> None:
    leases = ShardLeases(single_node, KEYS, "coalesce-test")
    held = [await leases.acquire(shard) for shard in range(3)]
    assert all(held)
    projections = RedisProjections(single_node, KEYS)
    for lease in held:
        assert lease is not None
        projections.hold_lease(lease)
    await single_node.delete(lease_key(KEYS, 1))  # shard 1's lease expired meanwhile
    got = await asyncio.gather(
        *(projections.write(ProjectionBatch(s, f"{s + 5}-1", (), "now"), 100) for s in range(3)),
        return_exceptions=True,
    )
    print(f"writes 3, pipelines {projections._writes.pipelines}, outcomes {got}")
    assert projections._writes.pipelines == sent(single_node, 1)
    assert isinstance(got[1], LeaseLost)
    assert not isinstance(got[0], BaseException)
    assert not isinstance(got[2], BaseException)
    assert await single_node.get(KEYS.checkpoint(0)) == b"5-1"
    assert await single_node.get(KEYS.checkpoint(1)) is None  # refused: nothing written
    assert await single_node.get(KEYS.checkpoint(2)) == b"7-1"


async def test_heads_and_names_asked_in_one_turn_are_one_round_trip(
    single_node: RedisClient,
) -> None:
    projections = RedisProjections(single_node, KEYS)
    names = RedisPlayerNames(single_node, KEYS)
    await single_node.hset(KEYS.projection("tr-co-1"), mapping={"seq": "7", "live": "1"})
    await single_node.hset(KEYS.projection("tr-co-2"), mapping={"seq": "3", "held": "4"})
    await names.keep("tr-co-1", {"ann": "Ann"})
    before = projections._writes.pipelines
    got = await asyncio.gather(
        projections.heads(["tr-co-1", "tr-co-none"]),
        projections.heads(["tr-co-2"]),
        names.names_many(["tr-co-1", "tr-co-2"]),
    )
    print(f"asks 3, pipelines {projections._writes.pipelines - before}, replies {got}")
    assert projections._writes.pipelines - before == sent(single_node, 1)
    first, second, kept = got
    assert [(h.seq, h.held, h.live) for h in first] == [(7, None, True), (0, None, False)]
    assert [(h.seq, h.held, h.live) for h in second] == [(3, 4, False)]
    assert kept == [{"ann": "Ann"}, {}]


async def test_a_batch_with_a_start_event_reads_heads_and_names_in_one_round_trip(
    single_node: RedisClient,
) -> None:
    ports = redis_ports(single_node, KEYS)
    project = use_cases(ports, ServiceSettings(shards=KEYS.shards)).project
    game = "tr-co-start"
    await ports.log.append(game, game_log(game, 3))  # names kept apart: read back by the apply
    shard = shard_of(game, KEYS.shards)
    assert ports.pipeline is not None
    (batch,) = await ports.pipeline.feeds.read({shard: START_ID}, 100, 0)
    coalescer = ScriptCoalescer.of(single_node)
    before = coalescer.pipelines
    assert (await project.apply(shard, batch.entries)).events == 3
    print(f"pipelines {coalescer.pipelines - before}")
    # heads with names; the new game's XLEN (`without_sealed`, a pipeline of its own before
    # `versions` rode the coalescer: three round trips either way); the write
    assert coalescer.pipelines - before == sent(single_node, 3)
    stored = await ports.projections.get(game)
    assert stored is not None
    assert json.loads(stored.standings_json) == offline_standings(game_log(game, 3))


async def test_versions_asked_in_one_turn_are_one_round_trip(single_node: RedisClient) -> None:
    """The shards' `versions` of one read (`projected.without_sealed`: every game new to a
    catch-up) ride one pipeline, not one each; each caller gets its own games' counts."""
    log = RedisEventLog(single_node, KEYS)
    for game_id, n in (("vers-a", 3), ("vers-b", 1)):
        for seq in range(1, n + 1):
            await single_node.xadd(KEYS.game_stream(game_id), {"data": b"{}"}, id=f"{seq}-1")
    batcher = ScriptCoalescer.of(single_node)
    before = batcher.pipelines
    got = await asyncio.gather(log.versions(["vers-a", "vers-none"]), log.versions(["vers-b"]))
    print(f"versions 2 calls, pipelines {batcher.pipelines - before}, replies {got}")
    assert got == [[3, 0], [1]]
    assert batcher.pipelines - before == sent(single_node, 1)
    assert await log.versions([]) == []
