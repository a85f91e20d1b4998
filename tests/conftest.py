"""Project-wide fixtures: a real Redis for every Redis test (see tests/redis_fixture.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from services.adapters.redis.connect import RedisClient, connect
from tests.postgres_fixture import fresh_database, provide_postgres_url
from tests.redis_fixture import RedisServer, flush_all, provide_redis_url


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of the session's Redis: `REDIS_URL`, else a container, else a local redis-server
    (a local cluster, `redis+cluster://...`, with `SCORELEDGER_TEST_REDIS=cluster`)."""
    try:
        with provide_redis_url(tmp_path_factory.mktemp("redis")) as url:
            yield url
    except (RuntimeError, ValueError, FileNotFoundError, TimeoutError) as error:
        pytest.fail(str(error))


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[RedisClient]:
    """The app's async client (`connect`, single node or cluster) on a clean db: emptied before
    the test; closed after it."""
    flush_all(redis_url)
    client = connect(redis_url)
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture
def clean_redis_url(redis_url: str) -> str:
    """`redis_url`, with its db flushed first (for tests that open their own clients)."""
    flush_all(redis_url)
    return redis_url


@pytest.fixture
def aof_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A dedicated redis-server with `--appendonly yes --appendfsync always`; `.restart()` it."""
    server = RedisServer(tmp_path, appendonly=True, appendfsync="always").start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def postgres_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of the session's PostgreSQL server (tests/postgres_fixture.py: the env URL, the local
    server, a container, or the binaries; a failure fails the test, never skips it)."""
    try:
        with provide_postgres_url(tmp_path_factory.mktemp("postgres")) as url:
            yield url
    except (RuntimeError, TimeoutError, OSError) as error:
        pytest.fail(str(error))


@pytest.fixture
def postgres_url(postgres_server_url: str) -> Iterator[str]:
    """A database of this test's own on the session's server, created before it, dropped after."""
    with fresh_database(postgres_server_url) as url:
        yield url
