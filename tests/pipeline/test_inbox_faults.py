"""Faults (docs/decisions/0011-faults-are-answered-not-crashed.md): a Redis restart or outage while games stream into the inbox dead-letters nothing.

Against the test's own redis-server (AOF, `appendfsync always`): ~30 games stream their entries
into the inbox while the server is SIGKILLed and restarted 3 s later, three times (a), or
SIGKILLed and started again 15 s later (b); each fault lands while the inbox holds a batch it
has not acked. Every game must end complete and in stream order, with 0 dead letters and nothing
pending: a Redis fault is retried (tenacity backoff), never turned into a refusal.
"""

from __future__ import annotations

import asyncio

import pytest

from services.adapters.redis.connect import RedisClient, connect
from services.bootstrap import running_inbox
from services.platform.settings import ServiceSettings
from services.ports.inbox import GROUP
from tests.pipeline.helpers import wait_until
from tests.pipeline.inbox_support import KEYS, Load, produce, settle
from tests.redis_fixture import RedisServer

pytestmark = [pytest.mark.redis, pytest.mark.slow]


async def inbox_left(client: RedisClient, n: int) -> bool:
    return int(await client.xlen(KEYS.inbox)) <= n


async def in_flight(client: RedisClient) -> None:
    """Return once the inbox holds a batch it has not acked yet (the handler is at work)."""
    while (await client.xpending(KEYS.inbox, GROUP))["pending"] == 0:
        await asyncio.sleep(0.001)


def inbox_settings(url: str) -> ServiceSettings:
    return ServiceSettings(  # settled entries are trimmed at once: none may stay behind
        redis_url=url,
        shards=4,
        inbox_batch=50,
        inbox_claim_idle_ms=3000,
        inbox_consumer="solo",
        inbox_keep_s=0,
        retention_every_s=0,
    )


async def stream_through_fault(
    server: RedisServer, load: Load, down_s: float, faults: int = 1
) -> None:
    """Stream `load` into the inbox; `faults` times, evenly spread, SIGKILL Redis and start it
    again `down_s` later."""
    client = connect(server.url)
    try:
        async with running_inbox(inbox_settings(server.url)):
            producer = asyncio.create_task(produce(client, load, pause_s=0.001))
            for k in range(1, faults + 1):
                while len(load.sent) < len(load.entries) * k // (faults + 1):
                    await asyncio.sleep(0.005)
                await in_flight(client)
                await asyncio.to_thread(server.stop, kill=True)
                await asyncio.sleep(down_s)
                await asyncio.to_thread(server.start)
            await producer
            result = await settle(client, load, timeout_s=30)
            if result.settled():
                await wait_until(lambda: inbox_left(client, 0), 5, "settled entries trimmed")
            left = await client.xlen(KEYS.inbox)
    finally:
        await client.aclose()
    print(f"redis killed {faults}x for {down_s}s; {result.line()}; inbox entries left {left}")
    assert result.dead_letters == 0
    assert result.out_of_order == 0
    assert result.games_complete == result.games
    assert result.pending == 0
    assert left == 0


async def test_redis_killed_mid_inbox_stream_dead_letters_nothing(aof_redis: RedisServer) -> None:
    await stream_through_fault(aof_redis, Load.of(30, 40, seed=1), down_s=3.0, faults=3)


async def test_redis_outage_of_15_s_dead_letters_nothing(aof_redis: RedisServer) -> None:
    await stream_through_fault(aof_redis, Load.of(30, 30, seed=2), down_s=15.0)
