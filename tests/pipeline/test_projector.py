"""Projector in-process against a real Redis: standings equal the offline fold, exactly once."""

from __future__ import annotations

import json
import uuid

import pytest
import redis.asyncio as aioredis

from contracts.envelope import Envelope
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.feed import feed_entries
from services.adapters.redis.keys import Keys, shard_of
from services.bootstrap import running_projector as run_projector
from services.platform.settings import ServiceSettings
from services.ports.projections import START_ID, Projections
from tests.pipeline.factory import corrected, envelope, game_log, started
from tests.pipeline.helpers import (
    offline_standings,
    projected_standings,
    wait_projected,
    wait_until,
)

SHARDS = 4
KEYS = Keys(SHARDS)


@pytest.fixture
def settings(clean_redis_url: str) -> ServiceSettings:
    return ServiceSettings(redis_url=clean_redis_url, shards=SHARDS, batch=7)


@pytest.fixture
def store(redis_client: aioredis.Redis) -> RedisEventLog:
    return RedisEventLog(redis_client, KEYS)


async def assert_matches_offline(client: aioredis.Redis, logs: dict[str, list[Envelope]]) -> None:
    for game_id, events in logs.items():
        assert await projected_standings(client, KEYS, game_id) == offline_standings(events)
        assert not await client.exists(KEYS.ledger(game_id))  # no ledger list is written


async def test_standings_equal_offline_fold(
    settings: ServiceSettings, store: RedisEventLog, redis_client: aioredis.Redis
) -> None:
    logs = {f"g{i}": game_log(f"g{i}", 15 + i, seed=i) for i in range(6)}
    for game_id, events in logs.items():  # half before the projector starts, half while it runs
        await store.append(game_id, events[:8])
    async with run_projector(settings):
        for game_id, events in logs.items():
            await store.append(game_id, events[8:])
        await wait_projected(redis_client, KEYS, {g: len(e) for g, e in logs.items()})
    await assert_matches_offline(redis_client, logs)
    changes = sum([await redis_client.xlen(KEYS.changes(s)) for s in range(SHARDS)])
    assert changes >= len(logs)


async def test_standings_at_seq_n_equal_fold_of_first_n(
    settings: ServiceSettings, store: RedisEventLog, redis_client: aioredis.Redis
) -> None:
    events = game_log("g1", 12, seed=3)
    async with run_projector(settings):
        for n, event in enumerate(events, start=1):
            await store.append("g1", [event])
            await wait_projected(redis_client, KEYS, {"g1": n})
            assert await projected_standings(redis_client, KEYS, "g1") == offline_standings(
                events, n
            )


async def test_restart_resumes_from_checkpoint_without_double_counting(
    settings: ServiceSettings, store: RedisEventLog, redis_client: aioredis.Redis
) -> None:
    events = game_log("g1", 20)
    await store.append("g1", events[:10])
    async with run_projector(settings):
        await wait_projected(redis_client, KEYS, {"g1": 10})
    await store.append("g1", events[10:])
    async with run_projector(settings):
        await wait_projected(redis_client, KEYS, {"g1": 20})
    await assert_matches_offline(redis_client, {"g1": events})


async def test_reapplying_an_old_batch_changes_nothing(
    settings: ServiceSettings, store: RedisEventLog, redis_client: aioredis.Redis
) -> None:
    events = game_log("g1", 9)
    await store.append("g1", events)
    shard = shard_of("g1", SHARDS)
    async with run_projector(settings) as service:
        await wait_projected(redis_client, KEYS, {"g1": 9})
        feed = await redis_client.xrange(KEYS.feed(shard))
        before = await redis_client.xlen(KEYS.changes(shard))
        project = service.cases.project
        project.projections = _ForgetfulCheckpoint(project.projections)
        project.forget()  # pretend the batch is new: the script must refuse it
        applied = await project.apply(shard, *feed_entries(feed, shard, SHARDS))
        assert applied.events == 0
    await assert_matches_offline(redis_client, {"g1": events})
    assert await redis_client.xlen(KEYS.changes(shard)) == before  # the replay added no notice


class _ForgetfulCheckpoint:
    """Projections whose checkpoint always reads as the start (the Lua still knows better)."""

    def __init__(self, real: Projections) -> None:
        self.real = real

    async def checkpoint(self, shard: int) -> str:
        return START_ID

    def __getattr__(self, name: str) -> object:
        return getattr(self.real, name)


async def test_void_takes_the_event_out_of_the_standings(
    settings: ServiceSettings, store: RedisEventLog, redis_client: aioredis.Redis
) -> None:
    events = game_log("g1", 6)
    void = envelope(
        "g1",
        7,
        "game.event_voided",
        {"voided_event_id": str(events[3].event_id), "reason": "misread", "referee": "ref"},
    )
    await store.append("g1", events)
    async with run_projector(settings):
        await wait_projected(redis_client, KEYS, {"g1": 6})
        await store.append("g1", [void])
        await wait_projected(redis_client, KEYS, {"g1": 7})
    await assert_matches_offline(redis_client, {"g1": [*events, void]})
    assert offline_standings([*events, void]) != offline_standings(events)  # it changed


async def test_bad_event_is_dead_lettered_and_its_game_held(
    settings: ServiceSettings, store: RedisEventLog, redis_client: aioredis.Redis
) -> None:
    good = game_log("ok", 5)
    await store.append("ok", good[:2])
    bad_prefix = [started("bad"), corrected("bad", 2, "ann", 3)]
    await store.append("bad", bad_prefix)
    # bypass ingest: a broken seq-3 event straight into the game stream and the feed
    garbage = b'{"not": "an event"'
    await redis_client.xadd(
        KEYS.game_stream("bad"),
        {"seq": 3, "id": str(uuid.uuid4()), "type": "x", "data": garbage},
        id="3-1",
    )
    await redis_client.xadd(
        KEYS.feed(shard_of("bad", SHARDS)), {"game": "bad", "seq": 3, "data": garbage}
    )
    later = corrected("bad", 4, "bob", 9)
    await store.append("bad", [later])
    async with run_projector(settings):
        await store.append("ok", good[2:])
        await wait_projected(redis_client, KEYS, {"ok": 5, "bad": 2})
        await wait_until(lambda: redis_client.xlen(KEYS.dead_letter), what="a dead letter")
        await store.append("ok", [corrected("ok", 6, "cat", 1)])
        await wait_projected(redis_client, KEYS, {"ok": 6})
    assert await redis_client.hget(KEYS.projection("bad"), "held") == b"3"
    assert await projected_standings(redis_client, KEYS, "bad") == offline_standings(
        bad_prefix
    )  # seq 4 waits behind the bad seq 3
    ((_, letter),) = await redis_client.xrange(KEYS.dead_letter)
    assert letter[b"raw"] == garbage
    assert letter[b"source"] == b"projector"
    assert letter[b"game"] == b"bad"
    assert letter[b"seq"] == b"3"
    assert json.loads(letter[b"reason"])["rule"] == "schema.field"
