"""The single-node client's connections send a command without a task when the socket takes
it at once (`services.adapters.redis.pool.quick_sending`), and keep redis-py's answers when it
does not: the `drain` under the socket timeout, a timeout or socket error raised as redis-py
raises it, the connection dropped. Source: docs/decisions/0011-faults-are-answered-not-crashed.md."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from redis.asyncio.connection import Connection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from services.adapters.redis.connect import connect, parse_target
from services.adapters.redis.pool import quick_sending


class FakeTransport:
    """A transport whose buffer keeps `buffered` bytes after a write."""

    def __init__(self, buffered: int, closing: bool = False) -> None:
        self.buffered, self.closing = buffered, closing

    def is_closing(self) -> bool:
        return self.closing

    def get_write_buffer_size(self) -> int:
        return self.buffered


class FakeWriter:
    """A `StreamWriter` recording what it was given; `drain` as told."""

    def __init__(
        self, transport: FakeTransport, drain: Any = None, write_error: Any = None
    ) -> None:
        self.transport, self.drains = transport, 0
        self.written: list[Any] = []
        self._drain, self._write_error = drain, write_error

    def writelines(self, data: Any) -> None:
        if self._write_error is not None:
            raise self._write_error
        self.written.extend(data)

    def close(self) -> None:
        """What the connection's finalizer calls."""

    async def drain(self) -> None:
        self.drains += 1
        if self._drain is not None:
            await self._drain()


def _connection(writer: FakeWriter, socket_timeout: float = 0.05) -> Any:
    conn: Any = quick_sending(Connection)(socket_timeout=socket_timeout)
    conn._writer, conn._reader = writer, object()  # "connected"
    conn.disconnected = 0

    async def disconnect(nowait: bool = False, **_: Any) -> None:
        conn.disconnected += 1
        conn._writer = conn._reader = None

    conn.disconnect = disconnect
    return conn


async def test_a_command_the_socket_took_is_not_drained_nor_timed() -> None:
    writer = FakeWriter(FakeTransport(buffered=0))
    conn = _connection(writer)
    await conn.send_packed_command([b"*1\r\n$4\r\nPING\r\n"])
    assert writer.written == [b"*1\r\n$4\r\nPING\r\n"]
    assert writer.drains == 0
    assert conn.disconnected == 0


async def test_buffered_bytes_are_drained() -> None:
    writer = FakeWriter(FakeTransport(buffered=10))
    await _connection(writer).send_packed_command([b"x"])
    assert writer.drains == 1


async def test_a_drain_past_the_socket_timeout_is_redis_timeout_and_drops_the_connection() -> None:
    async def stuck() -> None:
        await asyncio.sleep(10)

    writer = FakeWriter(FakeTransport(buffered=10), drain=stuck)
    conn = _connection(writer)
    with pytest.raises(RedisTimeoutError, match="Timeout writing to socket"):
        await conn.send_packed_command([b"x"])
    assert conn.disconnected == 1


async def test_a_closing_transport_is_drained_and_its_error_is_a_connection_error() -> None:
    async def lost() -> None:
        raise ConnectionResetError("Connection lost")

    conn = _connection(FakeWriter(FakeTransport(buffered=0, closing=True), drain=lost))
    with pytest.raises(RedisConnectionError, match="while writing to socket"):
        await conn.send_packed_command([b"x"])
    assert conn.disconnected == 1


async def test_any_other_failure_drops_the_connection() -> None:
    conn = _connection(FakeWriter(FakeTransport(0), write_error=TypeError("not bytes")))
    with pytest.raises(TypeError):
        await conn.send_packed_command([object()])
    assert conn.disconnected == 1


def test_the_class_is_made_once() -> None:
    once = quick_sending(Connection)
    assert quick_sending(Connection) is once
    assert quick_sending(once) is once
    assert issubclass(once, Connection)


@pytest.mark.redis
async def test_the_client_sends_without_wait_for(
    clean_redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if parse_target(clean_redis_url).cluster:
        pytest.skip("the single-node client's connections")
    client = connect(clean_redis_url)
    try:
        assert await client.ping()  # connected
        timed = 0
        real = asyncio.wait_for

        async def counting(*args: Any, **kwargs: Any) -> Any:
            nonlocal timed
            timed += 1
            return await real(*args, **kwargs)

        monkeypatch.setattr(asyncio, "wait_for", counting)
        for i in range(20):
            await client.set(f"k{i}:{{s1}}", i)
        async with client.pipeline(transaction=False) as pipe:
            pipe.get("k1:{s1}")
            pipe.get("k2:{s1}")
            assert await pipe.execute() == [b"1", b"2"]
        assert timed == 0
    finally:
        await client.aclose()
