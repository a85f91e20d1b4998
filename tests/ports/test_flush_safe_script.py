"""A script registered on the process's client (`connect`, single node or cluster) and called
directly, as the background ticks call theirs (lease renewals, the inbox guard, the tournament
approvals), runs when every `EVALSHA` meets a flushed script cache: `scripts.FlushSafeScript`
sends it whole. redis-py's own `AsyncScript` loads and sends `EVALSHA` once more, which a
second flush defeats (checked here too, so the flush below is known to bite)."""

from __future__ import annotations

from typing import Any

import pytest
from redis.commands.core import AsyncScript
from redis.exceptions import NoScriptError

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.scripts import FlushSafeScript

pytestmark = pytest.mark.redis

ECHO = "return {KEYS[1], ARGV[1], #ARGV}"


def _flushing_before_each_evalsha(
    client: RedisClient, monkeypatch: pytest.MonkeyPatch
) -> list[int]:
    """Send `SCRIPT FLUSH` before every `EVALSHA` the client sends; the count of flushes."""
    sent = client.execute_command
    flushes = [0]

    async def flush_first(*args: Any, **options: Any) -> Any:
        if str(args[0]).upper().startswith("EVALSHA"):
            flushes[0] += 1
            await client.script_flush()
        return await sent(*args, **options)

    monkeypatch.setattr(client, "execute_command", flush_first)
    return flushes


async def test_a_registered_script_called_directly_survives_a_flush_before_each_evalsha(
    redis_client: RedisClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = redis_client.register_script(ECHO)
    assert type(script) is FlushSafeScript
    flushes = _flushing_before_each_evalsha(redis_client, monkeypatch)
    for n in range(3):
        reply = await script(keys=["q:{s1}"], args=[f"a{n}", "b"])
        assert reply == [b"q:{s1}", f"a{n}".encode(), 2]
    assert flushes[0] == 3


async def test_redis_pys_own_script_does_not_survive_it(
    redis_client: RedisClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = AsyncScript(redis_client, ECHO)
    _flushing_before_each_evalsha(redis_client, monkeypatch)
    with pytest.raises(NoScriptError):
        await script(keys=["q:{s1}"], args=["a"])
