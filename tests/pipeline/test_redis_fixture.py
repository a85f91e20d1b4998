"""The Redis fixture gives a real, clean server."""

from __future__ import annotations

import redis.asyncio as aioredis

from tests.redis_fixture import RedisServer


async def test_client_is_real_and_clean(redis_client: aioredis.Redis) -> None:
    assert await redis_client.dbsize() == 0
    await redis_client.xadd("t:stream", {"a": "1"})
    assert await redis_client.xlen("t:stream") == 1


async def test_aof_server_keeps_data_across_restart(aof_redis: RedisServer) -> None:
    client = aioredis.Redis.from_url(aof_redis.url)
    await client.set("k", "v")
    await client.aclose()
    aof_redis.restart(kill=True)
    client = aioredis.Redis.from_url(aof_redis.url)
    assert await client.get("k") == b"v"
    await client.aclose()
