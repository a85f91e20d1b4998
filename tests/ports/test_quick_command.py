"""The single-node client's command path without redis-py's recorders
(`CancelSafeRedis.execute_command`, `cancelsafe.run_script`, `QuickBlockingPool`'s lock-free
sections): the same replies, the script reloaded after a `SCRIPT FLUSH` (also when every
`EVALSHA` meets a flushed cache), a dropped connection retried, the pool's lock still honoured when held, and the release event still sent to a
listener of one's own."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from redis.event import AsyncAfterConnectionReleasedEvent, AsyncEventListenerInterface

from services.adapters.redis.cancelsafe import run_script
from services.adapters.redis.connect import connect, parse_target
from services.adapters.redis.durable import DurableWait
from services.adapters.redis.readonly import ReadOnlyScript
from services.ports.errors import ReplicasUnconfirmed

pytestmark = pytest.mark.redis


@pytest.fixture
def clean_redis_url(clean_redis_url: str) -> str:
    """The session's single node (the cluster client has its own command path)."""
    if parse_target(clean_redis_url).cluster:
        pytest.skip("the single-node client's command path")
    return clean_redis_url


class Noted(AsyncEventListenerInterface):
    """A release listener of one's own: counts the connections released."""

    def __init__(self) -> None:
        self.released = 0

    async def listen(self, event: object) -> None:
        assert isinstance(event, AsyncAfterConnectionReleasedEvent)
        self.released += 1


async def test_a_script_is_loaded_again_after_a_flush(clean_redis_url: str) -> None:
    client = connect(clean_redis_url)
    try:
        script = client.register_script("return {KEYS[1], ARGV[1], #ARGV}")
        assert await run_script(script, ["q:{s1}"], ["a", "b"]) == [b"q:{s1}", b"a", 2]
        await client.script_flush()
        assert await run_script(script, ["q:{s1}"], ["c"]) == [b"q:{s1}", b"c", 1]
        assert await script(keys=["q:{s1}"], args=["c"]) == [b"q:{s1}", b"c", 1]
    finally:
        await client.aclose()


async def test_a_script_runs_when_every_evalsha_meets_a_flushed_cache(
    clean_redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Redis flushed again between the reload and its call (as under repeated `SCRIPT FLUSH`):
    a load-then-`EVALSHA` retry answers NOSCRIPT twice; the script sent whole runs."""
    client = connect(clean_redis_url)
    sent = client.execute_command
    flushes = 0

    async def flush_first(*args: Any, **options: Any) -> Any:
        nonlocal flushes
        if str(args[0]).upper().startswith("EVALSHA"):
            flushes += 1
            await sent("SCRIPT", "FLUSH")
        return await sent(*args, **options)

    monkeypatch.setattr(client, "execute_command", flush_first)
    try:
        script = client.register_script("return {KEYS[1], ARGV[1], #ARGV}")
        assert await run_script(script, ["q:{s1}"], ["a", "b"]) == [b"q:{s1}", b"a", 2]
        read_only = ReadOnlyScript(client, "return {KEYS[1], #ARGV}")
        assert await run_script(read_only, ["q:{s1}"], ["a"]) == [b"q:{s1}", 1]
        assert flushes == 2
    finally:
        await client.aclose()


async def test_a_dropped_connection_is_retried(clean_redis_url: str) -> None:
    client = connect(clean_redis_url, max_connections=1)
    try:
        await client.set("q:{s1}:k", "v")
        (idle,) = client.connection_pool._available_connections  # type: ignore[union-attr]
        assert idle._writer is not None
        idle._writer.transport.abort()  # the server's side sees the socket gone
        await asyncio.sleep(0.01)
        assert await client.get("q:{s1}:k") == b"v"
        await client.delete("q:{s1}:k")
    finally:
        await client.aclose()


async def test_a_held_pool_lock_is_waited_for(clean_redis_url: str) -> None:
    client = connect(clean_redis_url, max_connections=2)
    try:
        assert await client.ping()
        pool: Any = client.connection_pool  # type: ignore[union-attr]
        async with pool._lock:
            command = asyncio.ensure_future(client.ping())
            await asyncio.sleep(0.05)
            assert not command.done()  # checkout waits for the lock's holder
        assert await command
    finally:
        await client.aclose()


async def test_a_release_listener_of_ones_own_is_called(clean_redis_url: str) -> None:
    client = connect(clean_redis_url)
    try:
        noted = Noted()
        pool: Any = client.connection_pool  # type: ignore[union-attr]
        pool._event_dispatcher.register_listeners({AsyncAfterConnectionReleasedEvent: [noted]})
        for _ in range(3):
            assert await client.ping()
        assert noted.released == 3
    finally:
        await client.aclose()


async def test_a_waited_call_runs_when_its_evalsha_meets_a_flushed_cache(
    clean_redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`DurableWait.waited` after NOSCRIPT on every `EVALSHA` (a flush before each send): the
    call sent again whole writes once; no replica here, so the wait is unconfirmed."""
    client = connect(clean_redis_url)
    durable = DurableWait(client, replicas=1, wait_ms=10)
    sent = durable.on_one_connection
    flushes = 0

    async def flush_first(key: str, commands: list[list[Any]]) -> list[Any]:
        nonlocal flushes
        if any(command[0] == "EVALSHA" for command in commands):
            flushes += 1
            await client.script_flush()
        return await sent(key, commands)

    monkeypatch.setattr(durable, "on_one_connection", flush_first)
    try:
        script = client.register_script("return redis.call('INCR', KEYS[1])")
        with pytest.raises(ReplicasUnconfirmed):
            await durable.waited([(script, ["q:{w1}"], []), (script, ["q:{w1}"], [])])
        assert flushes == 1
        assert await client.get("q:{w1}") == b"2"
    finally:
        await client.aclose()
