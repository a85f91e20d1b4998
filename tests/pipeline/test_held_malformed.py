"""Faults (docs/decisions/0011-faults-are-answered-not-crashed.md): "no silent skips": a malformed shard feed entry is dead-lettered alone, with a log
line and a metric, and its neighbours in the same batch are applied (it used to drop its whole
batch: three games' ten events each never projected, nothing logged)."""

from __future__ import annotations

import asyncio
import json

import pytest
import redis.asyncio as aioredis
from prometheus_client import REGISTRY
from structlog.testing import capture_logs

from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys, shard_of
from services.bootstrap import running_projector as run_projector
from services.platform.settings import ServiceSettings
from tests.pipeline.factory import game_log
from tests.pipeline.helpers import offline_standings, projected_standings, wait_projected

SHARDS = 4
KEYS = Keys(SHARDS)
SHARD = 1
GAMES = [g for g in (f"m{i}" for i in range(60)) if shard_of(g, SHARDS) == SHARD][:3]
OTHER = next(g for g in (f"o{i}" for i in range(60)) if shard_of(g, SHARDS) != SHARD)

# (fields, rule, field): what a hostile or broken XADD may leave in a feed.
MALFORMED: list[tuple[dict[bytes, bytes], str, str]] = [
    # well formed, but its data is not an event (and not the log's seq 2): the log's is folded
    (
        {b"game": GAMES[0].encode(), b"seq": b"2", b"data": b"x" * 2_000_000},
        "feed.data_invalid",
        "data",
    ),
    ({b"game": GAMES[0].encode(), b"data": b"{}"}, "feed.field_missing", "seq"),
    ({b"seq": b"3", b"data": b"{}"}, "feed.field_missing", "game"),
    ({b"game": GAMES[1].encode(), b"seq": b"4"}, "feed.field_missing", "data"),
    ({b"game": GAMES[1].encode(), b"seq": b"x7", b"data": b"{}"}, "feed.seq_invalid", "seq"),
    ({b"game": GAMES[2].encode(), b"seq": b"0", b"data": b"{}"}, "feed.seq_invalid", "seq"),
    ({b"game": b"\xff\xfe", b"seq": b"2", b"data": b"{}"}, "feed.not_utf8", "game"),
    ({b"game": GAMES[2].encode(), b"seq": b"\xff", b"data": b"{}"}, "feed.not_utf8", "seq"),
    ({b"game": b"a b", b"seq": b"2", b"data": b"{}"}, "feed.game_id_invalid", "game"),
    ({b"game": OTHER.encode(), b"seq": b"2", b"data": b"{}"}, "feed.wrong_shard", "game"),
]


@pytest.fixture
def settings(clean_redis_url: str) -> ServiceSettings:
    return ServiceSettings(redis_url=clean_redis_url, shards=SHARDS, batch=500)


def _malformed_count(rule: str) -> float:
    value = REGISTRY.get_sample_value(
        "scoreledger_feed_entries_malformed_total", {"shard": str(SHARD), "rule": rule}
    )
    return value or 0.0


async def test_malformed_feed_entries_are_dead_lettered_alone(
    settings: ServiceSettings, redis_client: aioredis.Redis
) -> None:
    store = RedisEventLog(redis_client, KEYS)
    logs = {g: game_log(g, 10, seed=i) for i, g in enumerate(GAMES)}
    feed = KEYS.feed(SHARD)
    for k in range(10):  # the games' events and the poison interleaved in one feed
        for game_id, events in logs.items():
            await store.append(game_id, [events[k]])
        if k < len(MALFORMED):
            await redis_client.xadd(feed, MALFORMED[k][0])  # type: ignore[arg-type]
    before = {rule: _malformed_count(rule) for _, rule, _ in MALFORMED}
    with capture_logs() as logged:
        async with run_projector(settings):  # one batch holds every entry of the shard
            await wait_projected(redis_client, KEYS, dict.fromkeys(GAMES, 10))
            # the projection shows before the loop's task resumes from the apply: stopping
            # at once could cancel it there, so the counters are awaited (an upper bound)
            async with asyncio.timeout(30):
                while sum(_malformed_count(r) - before[r] for r in before) < len(MALFORMED) - 1:
                    await asyncio.sleep(0.02)
    for game_id, events in logs.items():
        assert await projected_standings(redis_client, KEYS, game_id) == offline_standings(events)
        assert await redis_client.hget(KEYS.projection(game_id), "held") is None
    letters = [f for _, f in await redis_client.xrange(KEYS.dead_letter)]
    seen = [(json.loads(f[b"reason"])["rule"], json.loads(f[b"reason"])["field"]) for f in letters]
    expected = [(rule, field) for _, rule, field in MALFORMED]
    assert seen == [*expected[1:], expected[0]]  # found while folding, after the rest
    assert all(f[b"source"] == b"projector" for f in letters)
    assert all(len(f[b"raw"]) <= 1_048_576 for f in letters)
    assert json.loads(letters[0][b"raw"]) == {"game": GAMES[0], "data": "{}"}  # raw kept
    assert letters[-1][b"raw"] == b"x" * 1_048_576  # cut at the bound
    lines = [e for e in logged if e["event"] == "projector.feed_entry_malformed"]
    assert [e["reason"]["rule"] for e in lines] == [rule for rule, _ in seen]
    counted = {rule: _malformed_count(rule) - before[rule] for rule in before}
    assert sum(counted.values()) == len(MALFORMED) - 1  # feed.data_invalid: found while folding
    last_id = (await redis_client.xrevrange(feed, count=1))[0][0]
    assert await redis_client.get(KEYS.checkpoint(SHARD)) == last_id
    print(
        f"events appended {sum(map(len, logs.values()))}, projected "
        f"{sum(map(len, logs.values()))}, malformed entries {len(MALFORMED)}, "
        f"dead-lettered {len(letters)}, log lines {len(lines)}"
    )
