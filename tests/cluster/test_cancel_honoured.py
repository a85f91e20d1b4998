"""A cancelled task stops even when redis-py loses the cancellation (CPython 3.11's
`asyncio.wait_for` returns instead of raising when a command's send finishes as the cancel
arrives; services/adapters/redis/cancelsafe.py). Before the fix, on a local cluster, a loop of
pipelined XREADs went on after `cancel()` in about a third of 300 runs and the change hub's
`stop()` hung (the query tests' app teardown waited forever)."""

from __future__ import annotations

import asyncio
import random

import pytest

from services.adapters.redis.connect import RedisClient, connect
from services.adapters.redis.keys import Keys
from services.adapters.redis.notices import RedisChangeNotices
from services.adapters.redis.projections import RedisProjections
from services.doors.push.hub import ChangeHub
from services.usecases.live_changes import LiveChanges

pytestmark = pytest.mark.redis
RUNS = 150


async def _stops_when_cancelled(task: asyncio.Task[None]) -> bool:
    """Cancel `task`: whether it stopped within 2 s. If not, it is cancelled again every 0.5 s
    until it stops (or the test times out)."""
    task.cancel()
    done, _ = await asyncio.wait([task], timeout=2)
    while not task.done():
        task.cancel()
        await asyncio.wait([task], timeout=0.5)
    return bool(done)


async def _lost_cancels(client: RedisClient, command: str) -> int:
    """Cancel a loop of `command` at random moments `RUNS` times; count loops that went on."""
    streams = [Keys(16).changes(s) for s in range(16)]
    rng = random.Random(7)
    lost = 0

    async def loop() -> None:
        while True:
            if command == "pipeline":
                async with client.pipeline(transaction=False) as pipe:
                    for stream in streams:
                        pipe.xread({stream: "0-0"}, count=10)
                    await pipe.execute()
            else:
                await client.xread({streams[0]: "0-0"}, count=10)

    for _ in range(RUNS):
        task = asyncio.create_task(loop())
        await asyncio.sleep(rng.uniform(0, 0.02))
        if not await _stops_when_cancelled(task):
            lost += 1
    return lost


async def _lost_first_cancels(url: str) -> int:
    """Cancel the first pipelined XREAD of a fresh client (the cluster's slot discovery runs
    inside `async with client.pipeline()`) at random moments `RUNS // 3` times."""
    streams = [Keys(16).changes(s) for s in range(16)]
    rng = random.Random(13)
    lost = 0
    for _ in range(RUNS // 3):
        fresh = connect(url)

        async def loop(client: RedisClient = fresh) -> None:
            while True:
                async with client.pipeline(transaction=False) as pipe:
                    for stream in streams:
                        pipe.xread({stream: "0-0"}, count=10)
                    await pipe.execute()

        task = asyncio.create_task(loop())
        await asyncio.sleep(rng.uniform(0, 0.01))
        if not await _stops_when_cancelled(task):
            lost += 1
        await fresh.aclose()
    return lost


async def test_a_cancel_during_a_fresh_clients_discovery_stops(any_url: str) -> None:
    lost = await _lost_first_cancels(any_url)
    print(f"fresh clients: cancels {RUNS // 3}, loops that went on after cancel() {lost}")
    assert lost == 0


@pytest.mark.parametrize("command", ["pipeline", "command"])
async def test_a_cancelled_loop_of_redis_calls_stops(client: RedisClient, command: str) -> None:
    lost = await _lost_cancels(client, command)
    print(f"{command}: cancels {RUNS}, loops that went on after cancel() {lost}")
    assert lost == 0


async def test_the_change_hub_stops_every_time(client: RedisClient) -> None:
    rng = random.Random(11)
    hung = 0
    for _ in range(40):
        keys = Keys(16)
        changes = LiveChanges(
            RedisChangeNotices(client, keys), RedisProjections(client, keys), keys.shards
        )
        hub = ChangeHub(changes, render=lambda game_id, fields: None)
        await hub.start()
        await asyncio.sleep(rng.uniform(0, 0.1))
        reader = hub._task
        assert reader is not None
        stopping = asyncio.create_task(hub.stop())
        done, _ = await asyncio.wait([stopping], timeout=3)
        if not done:
            hung += 1
            while not reader.done():  # cancel again until it stops
                reader.cancel()
                await asyncio.wait([reader], timeout=0.5)
            await stopping
    print(f"change hub: stops 40, hung {hung}")
    assert hung == 0
