"""The projector stores the API view beside the standings (docs/decisions/0012-hot-reads-and-off-loop-replays.md): after every batch, the
projection HASH's `view` is byte for byte the query service's render of the offline fold's
standings (`standings_view`, without checkpoint and updated_at), and `view_seq` is its seq; a
reseed (a rebuild over a trimmed feed) stores it too."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from domain.fold import fold
from domain.standings import standings
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys, shard_of
from services.bootstrap import memory_ports, running_projector
from services.platform.settings import ServiceSettings
from services.usecases.reseed import Reseed
from tests.pipeline.factory import game_log
from tests.pipeline.helpers import wait_projected
from tests.query.oracle import standings_view

pytestmark = pytest.mark.redis

SHARDS = 4
KEYS = Keys(SHARDS)


async def test_the_stored_view_is_the_render_of_the_offline_fold(
    clean_redis_url: str, redis_client: aioredis.Redis
) -> None:
    settings = ServiceSettings(redis_url=clean_redis_url, shards=SHARDS, batch=7)
    store = RedisEventLog(redis_client, KEYS)
    logs = {f"g{i}": game_log(f"g{i}", 15 + i, seed=i) for i in range(4)}
    for game_id, events in logs.items():
        await store.append(game_id, events[:8])
    async with running_projector(settings):
        await wait_projected(redis_client, KEYS, {g: 8 for g in logs})
        for game_id, events in logs.items():
            await store.append(game_id, events[8:])  # folded further: lines kept in the memo
        await wait_projected(redis_client, KEYS, {g: len(e) for g, e in logs.items()})
    for game_id, events in logs.items():
        seq, view, view_seq = await redis_client.hmget(
            KEYS.projection(game_id), ["seq", "view", "view_seq"]
        )
        expected = standings_view(standings(fold(events)), "projection")
        assert view == expected.model_dump_json(exclude={"checkpoint", "updated_at"}).encode()
        assert view_seq == seq == str(len(events)).encode()


async def test_a_reseed_stores_the_view_too() -> None:
    ports = memory_ports(SHARDS)
    game = next(g for g in (f"r{i}" for i in range(80)) if shard_of(g, SHARDS) == 1)
    events = game_log(game, 12, seed=5)
    await ports.log.append(game, events)
    await Reseed(ports.log, ports.projections, ports.letters, SHARDS).shard(1, "9-0")
    stored = await ports.projections.standings(game)
    assert stored is not None
    expected = standings_view(standings(fold(events)), "projection")
    assert stored.view == expected.model_dump_json(exclude={"checkpoint", "updated_at"}).encode()
