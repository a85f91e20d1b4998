"""The Redis event log and the domain-checked append against a real Redis: append, dedupe, expected version, atomic batches, read."""

from __future__ import annotations

import asyncio
import json

import pytest
import redis.asyncio as aioredis

from contracts.events import EVENT_ADAPTER
from domain.errors import RuleViolation
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys, shard_of
from services.ports.errors import VersionConflict
from services.usecases.check import CheckedAppend
from tests.pipeline.factory import corrected, game_log, started

KEYS = Keys(shards=4)


async def export_jsonl(store: RedisEventLog, game_id: str) -> str:
    """The stored log as JSONL (what the `events_jsonl` read model serves)."""
    return "".join(data.decode() + "\n" for data in await store.read_raw(game_id))


@pytest.fixture
def store(redis_client: aioredis.Redis) -> RedisEventLog:
    return RedisEventLog(redis_client, KEYS)


async def test_append_and_read_back(store: RedisEventLog, redis_client: aioredis.Redis) -> None:
    log = game_log("g1", 5)
    result = await store.append("g1", log)
    assert result.version == 5
    assert [e.seq for e in result.events] == [1, 2, 3, 4, 5]
    assert not any(e.duplicate for e in result.events)
    read = await store.read("g1")
    assert [e.event_id for e in read] == [e.event_id for e in log]
    assert all(e.recorded_at is not None for e in read)
    assert [e.model_copy(update={"recorded_at": None}) for e in read] == log
    assert [e.seq for e in await store.read("g1", 2, 3)] == [2, 3]
    feed = await redis_client.xrange(KEYS.feed(shard_of("g1", 4)))
    assert [f[b"seq"] for _, f in feed] == [b"1", b"2", b"3", b"4", b"5"]
    assert {f[b"game"] for _, f in feed} == {b"g1"}
    assert [fid.decode() for fid, _ in feed] == [e.feed_id for e in result.events]
    assert await redis_client.hget(KEYS.event_ids("g1"), str(log[2].event_id)) == b"3"
    assert (await store.list_games()).games == ("g1",)


async def test_duplicate_returns_original_seq(
    store: RedisEventLog, redis_client: aioredis.Redis
) -> None:
    log = game_log("g1", 3)
    await store.append("g1", log)
    again = await store.append("g1", [log[1]])
    assert again.events[0].seq == 2
    assert again.events[0].duplicate
    assert again.events[0].feed_id is None
    assert again.version == 3
    assert await store.version("g1") == 3
    assert await redis_client.xlen(KEYS.feed(shard_of("g1", 4))) == 3


async def test_version_conflict_writes_nothing_of_the_batch(store: RedisEventLog) -> None:
    await store.append("g1", game_log("g1", 2))
    batch = [corrected("g1", 3, "ann", 1), corrected("g1", 5, "bob", 1)]  # the second skips seq 4
    with pytest.raises(VersionConflict) as info:
        await store.append("g1", batch)
    assert (info.value.expected, info.value.actual) == (4, 3)
    assert await store.version("g1") == 2


async def test_two_writers_same_expected_version_exactly_one_wins(store: RedisEventLog) -> None:
    await store.append("g1", game_log("g1", 3))
    a, b = corrected("g1", 4, "ann", 1), corrected("g1", 4, "bob", 2)
    outcomes = await asyncio.gather(
        store.append("g1", [a]), store.append("g1", [b]), return_exceptions=True
    )
    conflicts = [o for o in outcomes if isinstance(o, VersionConflict)]
    assert len(conflicts) == 1
    assert (conflicts[0].expected, conflicts[0].actual) == (3, 4)
    assert await store.version("g1") == 4


async def test_every_event_sent_two_or_three_times_changes_nothing(store: RedisEventLog) -> None:
    log = game_log("g1", 6)
    await store.append("g1", log)
    before = await export_jsonl(store, "g1")
    for event in log + log[::-1] + log:
        assert (await store.append("g1", [event])).events[0].duplicate
    assert (await store.append("g1", log + log)).version == 6
    assert await export_jsonl(store, "g1") == before


async def test_duplicate_inside_one_batch(store: RedisEventLog) -> None:
    s = started("g1")
    result = await store.append("g1", [s, s])
    assert [(e.seq, e.duplicate) for e in result.events] == [(1, False), (1, True)]
    assert result.version == 1


async def test_old_schema_version_is_upcast_on_read(
    store: RedisEventLog, redis_client: aioredis.Redis
) -> None:
    await store.append("g1", [started("g1")])
    v1 = {
        "event_id": "5f0c6c1e-8d8a-4a53-9a59-3b1e1f1e2d01",
        "game_id": "g1",
        "seq": 2,
        "type": "game.score_corrected",
        "schema_version": 1,
        "occurred_at": "2026-11-30T10:00:00Z",
        "actor": "ref",
        "payload": {"player_id": "ann", "points": 4, "reason": "late"},
    }
    # an event stored by an older writer, before the v2 schema
    await redis_client.xadd(
        KEYS.game_stream("g1"),
        {"seq": 2, "id": v1["event_id"], "type": v1["type"], "data": json.dumps(v1)},
        id="2-1",
    )
    read = (await store.read("g1", 2, 2))[0]
    assert (read.schema_version, read.payload.amount, read.payload.referee) == (
        2,
        4,
        "unknown (v1 event)",
    )
    assert json.loads((await export_jsonl(store, "g1")).splitlines()[1])["schema_version"] == 1


async def test_export_jsonl_lines_parse(store: RedisEventLog) -> None:
    await store.append("g1", game_log("g1", 4))
    lines = (await export_jsonl(store, "g1")).splitlines()
    assert [EVENT_ADAPTER.validate_json(line).seq for line in lines] == [1, 2, 3, 4]


async def test_list_games_spans_shards(store: RedisEventLog) -> None:
    games = [f"game-{i}" for i in range(12)]
    for g in games:
        await store.append(g, [started(g)])
    assert len({shard_of(g, 4) for g in games}) > 1
    assert (await store.list_games()).games == tuple(sorted(games))


# --- domain-checked append ---


async def test_checked_rejects_rule_violation_and_writes_nothing(store: RedisEventLog) -> None:
    checked = CheckedAppend(store, cache_games=2)
    await checked.append("g1", game_log("g1", 2))
    with pytest.raises(RuleViolation) as info:
        await checked.append("g1", [corrected("g1", 3, "zed", 5)])
    assert info.value.rule == "correction.unknown_player"
    assert await store.version("g1") == 2
    with pytest.raises(RuleViolation) as info:
        await checked.append("g2", [corrected("g2", 1, "ann", 5)])
    assert info.value.rule == "log.first_event"
    with pytest.raises(RuleViolation) as info:
        await checked.append("g1", [corrected("g9", 3, "ann", 5)])
    assert info.value.rule == "log.game_id"


async def test_checked_batch_is_atomic_on_a_rule_violation(store: RedisEventLog) -> None:
    checked = CheckedAppend(store)
    await checked.append("g1", [started("g1")])
    with pytest.raises(RuleViolation):
        await checked.append("g1", [corrected("g1", 2, "ann", 1), corrected("g1", 3, "nobody", 1)])
    assert await store.version("g1") == 1


async def test_checked_duplicate_short_circuits_and_conflict_is_typed(store: RedisEventLog) -> None:
    checked = CheckedAppend(store)
    log = game_log("g1", 3)
    await checked.append("g1", log)
    dup = await checked.append("g1", [log[2], log[0]])
    assert [(e.seq, e.duplicate) for e in dup.events] == [(3, True), (1, True)]
    with pytest.raises(VersionConflict) as info:
        await checked.append("g1", [corrected("g1", 3, "ann", 1)])
    assert (info.value.expected, info.value.actual) == (2, 3)


async def test_checked_reloads_when_another_writer_moved_the_stream(store: RedisEventLog) -> None:
    checked = CheckedAppend(store)
    await checked.append("g1", game_log("g1", 2))
    await store.append("g1", [corrected("g1", 3, "cat", 7)])  # behind the cache's back
    result = await checked.append("g1", [corrected("g1", 4, "ann", 1)])
    assert result.version == 4
    state = await checked.state("g1")
    assert state is not None
    assert state.seq == 4


async def test_checked_two_writers_exactly_one_wins(store: RedisEventLog) -> None:
    checked_a, checked_b = CheckedAppend(store), CheckedAppend(store)
    await checked_a.append("g1", game_log("g1", 2))
    outcomes = await asyncio.gather(
        checked_a.append("g1", [corrected("g1", 3, "ann", 1)]),
        checked_b.append("g1", [corrected("g1", 3, "bob", 1)]),
        return_exceptions=True,
    )
    assert sorted(type(o).__name__ for o in outcomes) == ["AppendResult", "VersionConflict"]
    assert await store.version("g1") == 3
