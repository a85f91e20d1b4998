"""Faults (docs/decisions/0011-faults-are-answered-not-crashed.md): growth without bound: the shard feeds kept a second full copy of every event. Now
the projector trims each feed below its checkpoint (minus `feed_keep_s`), and a rebuild from
checkpoint 0 refolds the games from their streams (the record), not from the trimmed feeds."""

from __future__ import annotations

import redis.asyncio as aioredis
from prometheus_client import REGISTRY

from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys
from services.adapters.redis.retention import feed_min_id
from services.bootstrap import running_projector as run_projector
from services.platform.settings import ServiceSettings
from tests.pipeline.factory import corrected, game_log
from tests.pipeline.helpers import (
    offline_standings,
    projected_standings,
    wait_projected,
    wait_until,
)

SHARDS = 4
KEYS = Keys(SHARDS)
GAMES = [f"t{i}" for i in range(12)]
EVENTS = 50  # per game: 600 in all


def _trimmed() -> float:
    value = REGISTRY.get_sample_value(
        "scoreledger_stream_trimmed_entries_total", {"stream": "feed"}
    )
    return value or 0.0


async def _feed_lengths(client: aioredis.Redis) -> int:
    return sum([await client.xlen(KEYS.feed(s)) for s in range(SHARDS)])


def _settings(url: str, keep_s: float) -> ServiceSettings:
    return ServiceSettings(
        redis_url=url, shards=SHARDS, batch=40, feed_keep_s=keep_s, feed_trim_every_s=0
    )


async def _project_all(
    settings: ServiceSettings, client: aioredis.Redis, logs: dict[str, list]
) -> int:
    """Append the logs in 5 rounds while the projector runs, each round projected before the
    next is appended (so the trims in between do not depend on timing); the largest feed
    total seen."""
    store = RedisEventLog(client, KEYS)
    most = 0
    async with run_projector(settings):
        step = EVENTS // 5
        for start in range(0, EVENTS, step):
            for game_id, events in logs.items():
                await store.append(game_id, events[start : start + step])
            most = max(most, await _feed_lengths(client))
            await wait_projected(client, KEYS, {g: start + step for g in logs})

        async def trimmed_to_nothing() -> bool:
            return await _feed_lengths(client) == 0

        if settings.feed_keep_s == 0:
            await wait_until(trimmed_to_nothing, what="feeds trimmed after the last batch")
    return most


async def test_feeds_are_trimmed_once_the_checkpoint_has_passed(
    clean_redis_url: str, redis_client: aioredis.Redis
) -> None:
    logs = {g: game_log(g, EVENTS, seed=i) for i, g in enumerate(GAMES)}
    before = _trimmed()
    most = await _project_all(_settings(clean_redis_url, 0), redis_client, logs)
    total = len(GAMES) * EVENTS
    assert await _feed_lengths(redis_client) == 0  # every entry applied, none kept
    assert _trimmed() - before == total
    assert most < total  # trimmed while the events came, not only at the end
    for game_id, events in logs.items():
        assert await projected_standings(redis_client, KEYS, game_id) == offline_standings(events)
        assert await redis_client.xlen(KEYS.game_stream(game_id)) == EVENTS  # the record stays
    print(f"events {total}, feed entries trimmed {total}, left 0, most in the feeds {most}")


async def test_the_margin_keeps_recent_applied_entries(
    clean_redis_url: str, redis_client: aioredis.Redis
) -> None:
    logs = {g: game_log(g, EVENTS, seed=i) for i, g in enumerate(GAMES[:3])}
    await _project_all(_settings(clean_redis_url, 3600), redis_client, logs)
    assert await _feed_lengths(redis_client) == 3 * EVENTS  # all newer than checkpoint - 1 h


async def test_a_rebuild_from_checkpoint_0_reads_the_game_streams(
    clean_redis_url: str, redis_client: aioredis.Redis
) -> None:
    settings = _settings(clean_redis_url, 0)
    logs = {g: game_log(g, EVENTS, seed=i) for i, g in enumerate(GAMES)}
    await _project_all(settings, redis_client, logs)
    assert await _feed_lengths(redis_client) == 0
    derived = [KEYS.projection(g) for g in GAMES]
    derived += [k(s) for s in range(SHARDS) for k in (KEYS.checkpoint, KEYS.changes, KEYS.held)]
    await redis_client.delete(*derived)  # a rebuild: every derived key gone, the log kept
    store = RedisEventLog(redis_client, KEYS)
    async with run_projector(settings):
        await wait_projected(redis_client, KEYS, {g: EVENTS for g in GAMES})
        later = {g: corrected(g, EVENTS + 1, "ann", 2) for g in GAMES[:4]}
        for game_id, event in later.items():  # the feed goes on after the rebuild
            await store.append(game_id, [event])
            logs[game_id] = [*logs[game_id], event]
        await wait_projected(redis_client, KEYS, {g: len(logs[g]) for g in GAMES})
    for game_id, events in logs.items():
        assert await projected_standings(redis_client, KEYS, game_id) == offline_standings(events)
    print(
        f"rebuild from checkpoint 0 over trimmed feeds: {len(GAMES)} games, "
        f"{len(GAMES) * EVENTS} events refolded from the game streams, then "
        f"{len(later)} new events from the feeds"
    )


def test_the_min_id_keeps_what_the_checkpoint_has_not_passed() -> None:
    assert feed_min_id(None, 0) is None  # no checkpoint: nothing is applied
    assert feed_min_id("0-0", 0) is None
    assert feed_min_id("1700000000000-4", 0) == "1700000000000-5"  # every applied entry
    assert feed_min_id("1700000000000-4", 60_000) == "1699999940000-0"
    assert feed_min_id("5000-0", 60_000) is None  # the margin reaches back before any id
