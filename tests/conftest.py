"""Project-wide fixtures: a real Redis for every Redis test (see tests/redis_fixture.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from tests.redis_fixture import RedisServer, provide_redis_url


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of the session's Redis: `REDIS_URL`, else a container, else a local redis-server."""
    try:
        with provide_redis_url(tmp_path_factory.mktemp("redis")) as url:
            yield url
    except RuntimeError as error:
        pytest.fail(str(error))


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    """An async client on a clean db: FLUSHDB before the test; closed after it."""
    client = aioredis.Redis.from_url(redis_url)
    await client.flushdb()
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture
def clean_redis_url(redis_url: str) -> str:
    """`redis_url`, with its db flushed first (for tests that open their own clients)."""
    import redis

    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    client.close()
    return redis_url


@pytest.fixture
def aof_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A dedicated redis-server with `--appendonly yes --appendfsync always`; `.restart()` it."""
    server = RedisServer(tmp_path, appendonly=True, appendfsync="always").start()
    try:
        yield server
    finally:
        server.stop()
