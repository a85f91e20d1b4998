"""Counting what this process's Redis clients send, for tests that count round trips: one
call per request sent (a pipeline is one), on both send paths of a connection (redis-py's
`send_packed_command` and the single-node client's send without a task,
`services.adapters.redis.pool.quick_sending`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from redis.asyncio.connection import AbstractConnection

from services.adapters.redis import pool


def on_every_send(monkeypatch: pytest.MonkeyPatch, note: Callable[[bytes], None]) -> None:
    """Call `note(request)` with the bytes of every request any connection sends (RESP, as
    sent), before it is sent; undone with `monkeypatch`."""
    real_send = AbstractConnection.send_packed_command
    real_quick = pool._send_quickly

    def noted(command: Any) -> None:
        raw = command if isinstance(command, bytes | str) else b"".join(command)
        note(raw.encode() if isinstance(raw, str) else raw)

    async def send(self: AbstractConnection, command: Any, check_health: bool = True) -> None:
        noted(command)
        await real_send(self, command, check_health)

    async def send_quickly(self: AbstractConnection, writer: Any, command: Any) -> None:
        noted(command)
        await real_quick(self, writer, command)

    monkeypatch.setattr(AbstractConnection, "send_packed_command", send)
    monkeypatch.setattr(pool, "_send_quickly", send_quickly)
