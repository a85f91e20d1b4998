"""A projector PROCESS killed with SIGKILL mid-stream and restarted: exact standings."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from services.adapters.redis.connect import connect
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys
from tests.pipeline.factory import game_log
from tests.pipeline.helpers import (
    offline_standings,
    projected_seqs,
    projected_standings,
    wait_until,
)

SHARDS = 4
KEYS = Keys(SHARDS)
ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def start_projector(redis_url: str) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "SCORELEDGER_REDIS_URL": redis_url,
        "SCORELEDGER_SHARDS": str(SHARDS),
        "SCORELEDGER_BATCH": "5",
        "SCORELEDGER_LOG_LEVEL": "WARNING",
        "SCORELEDGER_LOG_FORMAT": "json",
    }
    env.pop("REDIS_URL", None)
    return subprocess.Popen(
        [sys.executable, "-m", "services.cli.projector"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


async def test_sigkill_mid_stream_then_restart_is_exact(clean_redis_url: str) -> None:
    client = connect(clean_redis_url)
    store = RedisEventLog(client, KEYS)
    games = [f"crash-{i}" for i in range(30)]
    logs = {g: game_log(g, 100, seed=i) for i, g in enumerate(games)}
    total = sum(len(e) for e in logs.values())
    for g, events in logs.items():
        await store.append(g, events[:60])
    appended = {g: 60 for g in games}
    kills_mid_stream = 0
    try:
        for round_ in range(3):
            proc = start_projector(clean_redis_url)
            try:

                async def some_progress() -> bool:
                    return sum((await projected_seqs(client, KEYS, games)).values()) > 0

                await wait_until(some_progress, 30, "the projector to apply something")
                if round_ > 0:
                    for g, events in logs.items():  # more events while it runs
                        await store.append(g, events[appended[g] : appended[g] + 20])
                        appended[g] += 20
                await asyncio.sleep(0.05 * round_)
            finally:
                proc.send_signal(signal.SIGKILL)
                proc.wait(timeout=10)
            done = sum((await projected_seqs(client, KEYS, games)).values())
            kills_mid_stream += done < sum(appended.values())
        print(f"kills that landed mid-stream: {kills_mid_stream} of 3")
        assert kills_mid_stream >= 1, "no kill landed mid-stream; the test proved nothing"
        assert sum(appended.values()) == total
        proc = start_projector(clean_redis_url)
        try:

            async def all_applied() -> bool:
                return await projected_seqs(client, KEYS, games) == {
                    g: len(e) for g, e in logs.items()
                }

            await wait_until(all_applied, 60, "all events applied after the restart")
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=10)
        for g, events in logs.items():
            assert await projected_standings(client, KEYS, g) == offline_standings(events)
        assert await client.xlen(KEYS.dead_letter) == 0
    finally:
        await client.aclose()
