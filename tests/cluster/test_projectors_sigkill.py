"""Three projector processes sharing the shards, 50 SIGKILLs among them while events flow (each
victim restarted at once as a new owner): afterwards every game's live standings equal `score`
of its export, none behind, nothing counted twice. A dead projector's shards are taken over
from their checkpoints once its leases expire (`LEASE_TTL_MS`)."""

from __future__ import annotations

import asyncio
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys
from tests.cluster.projectors import check_invariant, holders, start_projector, wait_caught_up
from tests.pipeline.factory import game_log

SHARDS = 8
KEYS = Keys(SHARDS)
KILLS = 50
GAMES = 16
"""Two games a shard: every shard has events flowing during the kills (40 games made the final
`score`-of-export check alone take minutes at load average 10 on 2 cores)."""
CUTS = range(30, 150, 4)
HOLDER_WAIT_S = 5.0
"""Longest wait for a victim holding shards (bounded: a kill mid start-up is a fault too). A
projector's start-up (a Python process) takes seconds on a loaded machine."""

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]  # 50 process starts at load 10


async def test_three_projectors_and_50_sigkills_while_events_flow(
    clean_redis_url: str, redis_client: RedisClient, tmp_path: Path
) -> None:
    store = RedisEventLog(redis_client, KEYS)
    logs = {f"kill-{i}": game_log(f"kill-{i}", 150, seed=i) for i in range(GAMES)}
    for game_id, events in logs.items():
        await store.append(game_id, events[:30])
    rng = random.Random(10)
    started = 0
    kills_done = 0
    killed = asyncio.Event()  # set at every kill: the writer paces itself on the kills

    def spawn() -> subprocess.Popen[bytes]:
        nonlocal started
        started += 1
        stderr = (tmp_path / f"projector-{started}.log").open("wb")
        return start_projector(clean_redis_url, SHARDS, stderr, BATCH="10", LEASE_TTL_MS="600")

    procs = [spawn() for _ in range(3)]

    async def write() -> int:
        appended = 0
        for n, cut in enumerate(CUTS):  # the rest of every game, while the kills go on:
            while kills_done < n * KILLS // len(CUTS):  # spread over the kills, however slow
                killed.clear()
                await killed.wait()
            for game_id, events in logs.items():
                await store.append(game_id, events[cut : cut + 4])
                appended += len(events[cut : cut + 4])
        return appended

    writer = asyncio.create_task(write())
    of_holders = 0
    t0 = time.monotonic()
    try:
        for _ in range(KILLS):
            await asyncio.sleep(rng.uniform(0.1, 0.5))
            victims: list[int] = []
            wait_until_s = time.monotonic() + HOLDER_WAIT_S
            while not victims and time.monotonic() < wait_until_s:
                owners = (await holders(redis_client, KEYS)).values()
                victims = [i for i, p in enumerate(procs) if any(f"-{p.pid}-" in o for o in owners)]
                await asyncio.sleep(0 if victims else 0.05)
            of_holders += bool(victims)
            victim = rng.choice(victims or [0, 1, 2])
            procs[victim].send_signal(signal.SIGKILL)
            procs[victim].wait(timeout=10)
            procs[victim] = spawn()
            kills_done += 1
            killed.set()
        kill_s = time.monotonic() - t0
        appended = await writer + 30 * len(logs)
        await wait_caught_up(redis_client, KEYS, logs, timeout_s=180)
        alive = sum(p.poll() is None for p in procs)
    finally:
        writer.cancel()
        for proc in procs:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
    found = await check_invariant(redis_client, clean_redis_url, KEYS, logs)
    print(
        f"SIGKILLs {KILLS} in {kill_s:.0f} s, {of_holders} of a projector holding shards "
        f"(the others mid start-up), processes started {started}, "
        f"events appended {appended}; {found}"
    )
    assert appended == found.events
    assert alive == 3
    assert of_holders >= KILLS // 5, "too few kills hit a projector holding shards"
    assert (found.wrong, found.behind, found.twice) == (0, 0, 0)
