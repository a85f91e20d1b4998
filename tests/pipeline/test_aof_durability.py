"""A Redis killed with SIGKILL (AOF on, appendfsync always) and restarted loses no
acknowledged append."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError

from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys
from tests.pipeline.factory import game_log
from tests.redis_fixture import RedisServer

KEYS = Keys(4)
pytestmark = pytest.mark.slow


async def test_redis_sigkill_with_aof_loses_no_acknowledged_event(aof_redis: RedisServer) -> None:
    logs = {f"d{i}": game_log(f"d{i}", 400, seed=i) for i in range(3)}
    acknowledged: dict[str, int] = dict.fromkeys(logs, 0)
    client = aioredis.Redis.from_url(aof_redis.url)
    store = RedisEventLog(client, KEYS)

    async def writer(game_id: str) -> None:
        for event in logs[game_id]:
            try:
                await store.append(game_id, [event])
            except (RedisConnectionError, ConnectionError, OSError):
                return
            acknowledged[game_id] = event.seq

    tasks = [asyncio.create_task(writer(g)) for g in logs]
    while sum(acknowledged.values()) < 300:
        await asyncio.sleep(0.005)
    await asyncio.to_thread(aof_redis.stop, kill=True)  # mid-stream
    await asyncio.gather(*tasks)
    assert sum(acknowledged.values()) < sum(len(e) for e in logs.values()), "the kill came too late"
    await client.aclose()

    aof_redis.start()
    client = aioredis.Redis.from_url(aof_redis.url)
    store = RedisEventLog(client, KEYS)
    for game_id, events in logs.items():
        version = await store.version(game_id)
        assert version >= acknowledged[game_id]  # an in-flight append may have landed too
        stored = await store.read(game_id)
        assert [e.event_id for e in stored] == [e.event_id for e in events[:version]]
    feed_total = sum([await client.xlen(KEYS.feed(s)) for s in range(4)])
    assert feed_total == sum([await store.version(g) for g in logs])
    await client.aclose()
