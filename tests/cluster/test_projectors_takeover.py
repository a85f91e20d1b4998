"""Rebalancing and takeover with projector processes: a second projector gets half the shards;
when the first is SIGKILLed its shards are taken over within the lease time (plus one renewal
period) and projected from their checkpoints, exactly."""

from __future__ import annotations

import signal
import time

import pytest

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys
from tests.cluster.projectors import (
    appended_games,
    check_invariant,
    holders,
    start_projector,
    wait_caught_up,
)
from tests.pipeline.helpers import wait_until

SHARDS = 4
KEYS = Keys(SHARDS)
TTL_MS = 1500
SLACK_S = 2.0  # process scheduling on a loaded machine

pytestmark = pytest.mark.slow


async def test_a_killed_projectors_shards_are_taken_over_within_the_lease_time(
    clean_redis_url: str, redis_client: RedisClient
) -> None:
    store = RedisEventLog(redis_client, KEYS)
    logs = await appended_games(store, "take", 60, 30)
    a = start_projector(clean_redis_url, SHARDS, LEASE_TTL_MS=str(TTL_MS))
    b = None
    try:

        async def shares(*pids: int) -> dict[int, int]:
            owners = (await holders(redis_client, KEYS)).values()
            return {p: sum(f"-{p}-" in o for o in owners) for p in pids}

        async def a_holds_all() -> bool:
            return (await shares(a.pid))[a.pid] == SHARDS

        await wait_until(a_holds_all, 30, "the first projector to hold every shard")
        b = start_projector(clean_redis_url, SHARDS, LEASE_TTL_MS=str(TTL_MS))

        async def halves() -> bool:
            return await shares(a.pid, b.pid) == {a.pid: SHARDS // 2, b.pid: SHARDS // 2}

        await wait_until(halves, 30, "the shards rebalanced over both projectors")
        await wait_caught_up(redis_client, KEYS, {g: e[:30] for g, e in logs.items()}, 30)
        a.send_signal(signal.SIGKILL)
        a.wait(timeout=10)
        killed = time.monotonic()

        async def b_holds_all() -> bool:
            return (await shares(b.pid))[b.pid] == SHARDS

        await wait_until(b_holds_all, 30, "the survivor to take every shard over")
        takeover_s = time.monotonic() - killed
        for game_id, events in logs.items():
            await store.append(game_id, events[30:])
        await wait_caught_up(redis_client, KEYS, logs, timeout_s=30)
    finally:
        for proc in (a, b):
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=10)
    found = await check_invariant(redis_client, clean_redis_url, KEYS, logs)
    bound = TTL_MS / 1000 * 4 / 3
    print(f"takeover after SIGKILL {takeover_s:.2f} s (lease {TTL_MS} ms + a tick = {bound:.1f} s)")
    print(f"after the takeover: {found}")
    assert takeover_s <= bound + SLACK_S
    assert (found.wrong, found.behind, found.twice) == (0, 0, 0)
