"""The Redis fixture gives a real, clean server."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from tests.redis_fixture import XDIST_WORKER_ENV, RedisServer, worker_url


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


def test_each_xdist_worker_gets_its_own_database_of_a_shared_url(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Workers sharing one `REDIS_URL` flush only their own database; a cluster (one
    database) shared by several workers is refused, not silently shared."""
    monkeypatch.delenv(XDIST_WORKER_ENV, raising=False)
    assert worker_url("redis://h:6379/0") == "redis://h:6379/0"
    monkeypatch.setenv(XDIST_WORKER_ENV, "gw0")
    assert worker_url("redis+cluster://h:1,h:2") == "redis+cluster://h:1,h:2"
    monkeypatch.setenv(XDIST_WORKER_ENV, "gw3")
    assert worker_url("redis://h:6379/0") == "redis://h:6379/3"
    assert worker_url("redis://:pw@h:6379/2") == "redis://:pw@h:6379/5"
    assert worker_url("redis://h:6379") == "redis://h:6379/3"
    with pytest.raises(ValueError, match="cluster"):
        worker_url("redis+cluster://h:1,h:2")
    monkeypatch.setenv(XDIST_WORKER_ENV, "gw13")
    with pytest.raises(ValueError, match="database 16"):
        worker_url("redis://h:6379/3")
