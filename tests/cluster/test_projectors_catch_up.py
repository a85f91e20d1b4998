"""Faults (docs/decisions/0011-faults-are-answered-not-crashed.md): defect: two projectors catching up together from checkpoint 0 lost updates for
good (11 of 60 games stuck 428 events behind). With shard leases each shard has one writer:
every game's standings equal `score` of its export, none behind, nothing counted twice.

Two projector processes (as deployed); runs on the session's Redis: a single node, or a local
cluster with `SCORELEDGER_TEST_REDIS=cluster`."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys
from tests.cluster.projectors import (
    check_invariant,
    log_events,
    start_projector,
    wait_caught_up,
)
from tests.pipeline.factory import game_log

SHARDS = 8
KEYS = Keys(SHARDS)

pytestmark = pytest.mark.slow


async def test_two_projectors_catching_up_together_lose_nothing(
    clean_redis_url: str, redis_client: RedisClient, tmp_path: Path
) -> None:
    store = RedisEventLog(redis_client, KEYS)
    logs = {f"catch-{i}": game_log(f"catch-{i}", 400, seed=i) for i in range(60)}
    for game_id, events in logs.items():  # a backlog from checkpoint 0 ...
        await store.append(game_id, events[:300])
    logs_of = [tmp_path / f"projector-{i}.log" for i in range(2)]
    procs = [
        start_projector(clean_redis_url, SHARDS, path.open("wb"), BATCH="20", LEASE_TTL_MS="900")
        for path in logs_of
    ]
    try:
        for cut in range(300, 400, 10):  # ... and more while both catch up
            for game_id, events in logs.items():
                await store.append(game_id, events[cut : cut + 10])
            await asyncio.sleep(0.05)
        caught_up = True
        try:
            await wait_caught_up(redis_client, KEYS, logs, timeout_s=30)
        except AssertionError as error:
            caught_up = False
            print(error)
        alive = [p.poll() is None for p in procs]
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            proc.wait(timeout=10)
    found = await check_invariant(redis_client, clean_redis_url, KEYS, logs)
    acquired = [log_events(path)["projector.shard_acquired"] for path in logs_of]
    print(f"two projector processes from checkpoint 0: {found}; shards acquired {acquired}")
    assert alive == [True, True]
    assert all(acquired), "each projector should have held shards"
    assert (found.wrong, found.behind, found.twice) == (0, 0, 0)
    assert caught_up
