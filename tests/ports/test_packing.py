"""The asyncio client's connections pack commands with hiredis (`packing.hiredis_packing`):
the same RESP bytes as redis-py's Python packer, and a client built by `connect` uses them.
Source: docs/decisions/0012-hot-reads-and-off-loop-replays.md (ingest profile: packing the append call)."""

from __future__ import annotations

from typing import Any

import pytest
from redis.asyncio import Redis
from redis.asyncio.connection import Connection
from redis.exceptions import DataError
from redis.utils import HIREDIS_AVAILABLE

from services.adapters.redis.connect import connect
from services.adapters.redis.packing import hiredis_packing
from services.adapters.redis.pool import quick_sending

pytestmark = pytest.mark.skipif(not HIREDIS_AVAILABLE, reason="hiredis not installed")

COMMANDS: list[tuple[Any, ...]] = [
    ("EVALSHA", "a" * 40, 5, "sl:game:{s1}:g", b"raw\r\nbytes", "ünïcødé 😀", 0, -17, 2**70),
    ("SCRIPT LOAD", "return 1"),
    ("XADD", "k", "1-1", "data", "x" * 20_000),
    ("SET", "k", 1.5),
    ("SET", "k", bytearray(b"array")),  # not taken by hiredis: the serializer's path
    ("SET", "k", memoryview(b"view")),
    (b"GET", "k"),
    (b"XINFO STREAM", "k"),
]


def test_the_same_bytes_as_the_python_packer() -> None:
    python = Connection()
    packing = hiredis_packing(Connection)()
    for command in COMMANDS:
        assert b"".join(packing.pack_command(*command)) == b"".join(python.pack_command(*command))
    assert b"".join(packing.pack_commands(COMMANDS)) == b"".join(python.pack_commands(COMMANDS))


@pytest.mark.parametrize("value", [object(), True, None])
def test_an_argument_it_cannot_pack_is_a_data_error(value: Any) -> None:
    with pytest.raises(DataError):
        hiredis_packing(Connection)().pack_command("SET", "k", value)
    with pytest.raises(DataError):  # as in the Python packer
        Connection().pack_command("SET", "k", value)


def test_wrapping_twice_is_wrapping_once() -> None:
    once = hiredis_packing(Connection)
    assert hiredis_packing(once) is once
    assert issubclass(once, Connection)


@pytest.mark.redis
async def test_a_connected_client_packs_with_hiredis() -> None:
    client = connect("redis://127.0.0.1:6379/0")
    try:
        assert isinstance(client, Redis)
        made = hiredis_packing(quick_sending(Connection))  # packed by hiredis, sent quickly
        assert client.connection_pool.connection_class is made
        assert await client.ping()
    finally:
        await client.aclose()
