"""The single-node client's pool (`services.adapters.redis.pool.QuickBlockingPool`): an idle
connection is checked out without the blocking pool's condition and timeout, and the pool
still waits (never `MaxConnectionsError`), a newcomer takes no fast path past a waiter."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis.asyncio as aioredis

from services.adapters.redis.connect import connect, parse_target

pytestmark = pytest.mark.redis


class CountingCondition:
    """An `asyncio.Condition` that counts how often it is taken."""

    def __init__(self, inner: asyncio.Condition) -> None:
        self.inner = inner
        self.taken = 0

    async def __aenter__(self) -> Any:
        self.taken += 1
        return await self.inner.__aenter__()

    async def __aexit__(self, *exc: Any) -> Any:
        return await self.inner.__aexit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.fixture
def clean_redis_url(clean_redis_url: str) -> str:
    """The session's single node (on a cluster run, the pool of a cluster client is
    redis-py's per node, not this one)."""
    if parse_target(clean_redis_url).cluster:
        pytest.skip("the single-node client's pool")
    return clean_redis_url


def _pool(client: Any) -> aioredis.BlockingConnectionPool:
    pool = client.connection_pool
    assert isinstance(pool, aioredis.BlockingConnectionPool)
    return pool


async def test_an_idle_connection_is_checked_out_without_the_condition(
    clean_redis_url: str,
) -> None:
    client = connect(clean_redis_url, max_connections=4)
    try:
        assert await client.ping()  # one connection made, now idle
        counting = CountingCondition(_pool(client)._condition)
        _pool(client)._condition = counting  # type: ignore[assignment]
        for _ in range(20):
            await client.get("k:{s1}")
        async with client.pipeline(transaction=False) as pipe:
            await pipe.get("k:{s1}").get("k:{s1}").execute()
        assert counting.taken == 0
    finally:
        await client.aclose()


async def test_a_newcomer_does_not_overtake_a_waiter(clean_redis_url: str) -> None:
    client = connect(clean_redis_url, max_connections=1, pool_timeout_s=10)
    done: list[str] = []

    async def get(name: str) -> None:
        await client.get("k:{s1}")
        done.append(name)

    try:
        hold = asyncio.create_task(client.blpop(["hold:{s1}"], 0.5))
        await asyncio.sleep(0.1)  # it holds the only connection
        waiter = asyncio.create_task(get("waiter"))
        await asyncio.sleep(0.1)  # the waiter waits for it
        newcomers = [asyncio.create_task(get(f"newcomer-{i}")) for i in range(3)]
        await asyncio.gather(hold, waiter, *newcomers)
        assert done[0] == "waiter"
    finally:
        await client.aclose()


async def test_many_commands_on_few_connections_all_answer_and_leave_none_in_use(
    clean_redis_url: str,
) -> None:
    client = connect(clean_redis_url, max_connections=3, pool_timeout_s=30)
    try:
        replies = await asyncio.gather(*(client.incr("n:{s1}") for _ in range(200)))
        assert sorted(replies) == list(range(1, 201))
        pool = _pool(client)
        assert not pool._in_use_connections
        assert len(pool._available_connections) <= 3
    finally:
        await client.aclose()


async def test_a_checkout_that_waits_while_a_release_runs_gets_the_connection(
    clean_redis_url: str,
) -> None:
    """The release's lock is contended (held here), so the connection is not back yet when a
    checkout starts waiting; the release must still wake it (else it waits out its timeout)."""
    client = connect(clean_redis_url, max_connections=1, pool_timeout_s=2)
    pool = _pool(client)
    try:
        connection = await pool.get_connection()
        async with pool._lock:
            releasing = asyncio.create_task(pool.release(connection))
            await asyncio.sleep(0.05)  # the release waits for the lock
            waiting = asyncio.create_task(pool.get_connection())
            await asyncio.sleep(0.05)  # the checkout waits for a connection
        await releasing
        assert await asyncio.wait_for(waiting, 1.5) is connection
        await pool.release(connection)
    finally:
        await client.aclose()


async def test_the_fast_path_records_nothing_while_redis_metrics_are_off(
    clean_redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import redis.asyncio.connection as redis_connection
    from redis.observability.providers import get_observability_instance

    recorded: list[Any] = []

    async def record(**kwargs: Any) -> None:
        recorded.append(kwargs)

    monkeypatch.setattr(redis_connection, "record_connection_count", record)
    client = connect(clean_redis_url, max_connections=4)
    try:
        assert await client.ping()
        recorded.clear()
        for _ in range(10):
            await client.get("k:{s1}")
        assert recorded == []  # off: redis-py's recorders would return at once
        instance = get_observability_instance()
        monkeypatch.setattr(instance, "get_provider_manager", lambda: object())
        await client.get("k:{s1}")
        assert len(recorded) == 4  # on: redis-py's own checkout (2) and release (2) record
    finally:
        await client.aclose()


async def test_an_idle_connection_that_was_closed_is_reconnected_on_checkout(
    clean_redis_url: str,
) -> None:
    client = connect(clean_redis_url, max_connections=1)
    try:
        await client.set("k:{s1}", b"value")
        pool = _pool(client)
        connection: Any = await pool.get_connection()  # type: ignore[no-untyped-call]
        await pool.release(connection)
        await connection.disconnect()  # idle, closed (a server restart's or a timeout's)
        assert not connection.is_connected
        assert await client.get("k:{s1}") == b"value"
        assert connection.is_connected  # the one connection, connected again
        assert len(pool._in_use_connections) == 0
    finally:
        await client.aclose()


async def test_an_idle_connection_with_a_reply_nobody_read_is_not_handed_out_stale(
    clean_redis_url: str,
) -> None:
    client = connect(clean_redis_url, max_connections=1)
    try:
        await client.set("a:{s1}", b"A")
        await client.set("b:{s1}", b"B")
        pool = _pool(client)
        connection: Any = await pool.get_connection()  # type: ignore[no-untyped-call]
        await connection.send_command("GET", "a:{s1}")  # its reply is never read
        await pool.release(connection)
        await asyncio.sleep(0.1)  # the reply has arrived in the idle connection's socket
        assert await client.get("b:{s1}") == b"B"  # not the stale b"A"
        assert await client.get("b:{s1}") == b"B"
    finally:
        await client.aclose()
