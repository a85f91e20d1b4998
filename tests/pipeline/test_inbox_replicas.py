"""Faults (docs/decisions/0011-faults-are-answered-not-crashed.md): inbox replicas share the consumer group without losing order or lettering twice.

(c) two replica processes, one SIGKILLed mid-stream: every valid entry stored exactly once and
in order, every refused entry dead-lettered exactly once, no valid entry dead-lettered; (d) a
poison entry among good ones of its game, read by two replicas: only the poison is
dead-lettered (the table's fix of the same seq goes in); a game whose poison is not fixed has
its later entries refused by version, as HTTP would; (e) a refused entry delivered again (a
crash before the ack) is dead-lettered once.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.adapters.redis.connect import RedisClient
from services.bootstrap import running_inbox
from services.platform.settings import ServiceSettings
from services.ports.inbox import GROUP
from tests.pipeline.factory import corrected, game_log
from tests.pipeline.helpers import wait_until
from tests.pipeline.inbox_support import (
    KEYS,
    TOKEN,
    Load,
    letter_reasons,
    produce,
    settle,
    xadd_until_sent,
)

pytestmark = [pytest.mark.redis, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]


def replica(url: str, log: Path) -> subprocess.Popen[bytes]:
    """An inbox replica process with the default consumer name (one per process); its output
    goes to `log` (a pipe nobody reads could fill and stall it)."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("SCORELEDGER_")},
        "SCORELEDGER_REDIS_URL": url,
        "SCORELEDGER_SHARDS": "4",
        "SCORELEDGER_INBOX_BATCH": "20",
        "SCORELEDGER_INBOX_CLAIM_IDLE_MS": "2000",
    }
    env.pop("REDIS_URL", None)
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "tests.pipeline.inbox_support"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


@pytest.fixture
def replicas(
    redis_url: str, redis_client: RedisClient, tmp_path: Path
) -> Iterator[list[subprocess.Popen[bytes]]]:
    """Two replicas on the session's Redis, started after `redis_client` emptied it."""
    logs = [tmp_path / f"replica-{n}.log" for n in range(2)]
    procs = [replica(redis_url, log) for log in logs]
    try:
        deadline = time.monotonic() + 30
        while not all(b"ready" in log.read_bytes() for log in logs):
            assert all(p.poll() is None for p in procs), "a replica exited at start"
            assert time.monotonic() < deadline, "the replicas did not start within 30 s"
            time.sleep(0.05)
        yield procs
    finally:
        for proc in procs:
            proc.kill()
            proc.wait(timeout=10)


async def test_two_replicas_one_killed_store_once_and_letter_once(
    replicas: list[subprocess.Popen[bytes]], redis_client: RedisClient
) -> None:
    load = Load.of(30, 40, poison=True, seed=3)
    producer = asyncio.create_task(produce(redis_client, load, pause_s=0.001))
    while len(load.sent) < len(load.entries) * 2 // 5:
        await asyncio.sleep(0.01)
    victim = f"ingest-{socket.gethostname()}-{replicas[0].pid}".encode()  # its default name

    async def victim_holds() -> int:
        summary = await redis_client.xpending(KEYS.inbox, GROUP)
        return sum(int(c["pending"]) for c in summary["consumers"] if c["name"] == victim)

    until = time.monotonic() + 10
    while not await victim_holds() and time.monotonic() < until:
        await asyncio.sleep(0.001)  # kill it while it holds entries it has not acked
    replicas[0].kill()  # SIGKILL: its unacked entries stay in its PEL
    held = await victim_holds()
    await producer
    result = await settle(redis_client, load, timeout_s=40)
    print(f"two replicas, one SIGKILLed (it held {held} unacked entries); {result.line()}")
    assert result.games_complete == result.games
    assert result.stored == result.expected
    assert result.out_of_order == 0
    assert result.valid_dead_lettered == 0
    assert result.lettered_twice == 0
    assert result.refused_lettered == result.refused == result.dead_letters
    assert result.pending == 0


async def test_only_the_poison_is_dead_lettered(
    clean_redis_url: str, redis_client: RedisClient
) -> None:
    load = Load.of(12, 25, poison=True, seed=4)
    fixed = "unfixed"  # a game whose poison at seq 6 is not followed by a fix
    log = game_log(fixed, 10)
    settings = ServiceSettings(redis_url=clean_redis_url, shards=4, inbox_batch=3)
    async with (
        running_inbox(settings.model_copy(update={"inbox_consumer": "a"}), "a"),
        running_inbox(settings.model_copy(update={"inbox_consumer": "b"}), "b"),
    ):
        await produce(redis_client, load, pause_s=0.0)
        unfixed = []
        for event in [*log[:5], corrected(fixed, 6, "nobody", 1), *log[6:]]:
            fields = {"data": event.model_dump_json(), "token": TOKEN}
            unfixed.append(await xadd_until_sent(redis_client, fields))
        result = await settle(redis_client, load, timeout_s=30)

        async def unfixed_lettered() -> bool:
            return await redis_client.xlen(KEYS.dead_letter) >= result.refused + 5

        await wait_until(unfixed_lettered, 10, "the unfixed game's poison and later entries")
        await asyncio.sleep(0.5)  # nothing more may come
        letters = await redis_client.xrange(KEYS.dead_letter)
    print(f"poison among good entries, two replicas; {result.line()}")
    assert result.games_complete == result.games
    assert result.valid_dead_lettered == 0
    assert result.lettered_twice == 0
    # the unfixed game: its poison (a rule) and every later entry (a version gap) are refused
    reasons = {
        f[b"inbox_id"]: r for (_, f), r in zip(letters, letter_reasons(letters), strict=True)
    }
    kinds = [reasons[i]["kind"] for i in unfixed[5:]]
    print(f"unfixed game: letters {kinds.count('rule')} rule, {kinds.count('conflict')} conflict")
    assert kinds == ["rule"] + ["conflict"] * 4
    assert all(i not in reasons for i in unfixed[:5])
    assert len(letters) == result.refused + 5


async def test_a_refused_entry_delivered_again_is_dead_lettered_once(
    clean_redis_url: str, redis_client: RedisClient
) -> None:
    settings = ServiceSettings(redis_url=clean_redis_url, shards=4, inbox_consumer="c1")
    entry = {"data": corrected("g-once", 1, "nobody", 1).model_dump_json(), "token": TOKEN}
    await redis_client.xgroup_create(KEYS.inbox, GROUP, id="0", mkstream=True)
    await redis_client.xadd(KEYS.inbox, entry)
    for _ in range(3):  # a consumer that letters it and dies before its ack, three times
        await redis_client.xgroup_setid(KEYS.inbox, GROUP, "0")
        async with running_inbox(settings, "c1"):
            for _ in range(200):
                if (await redis_client.xpending(KEYS.inbox, GROUP))["pending"] == 0 and (
                    await redis_client.xlen(KEYS.dead_letter)
                ):
                    break
                await asyncio.sleep(0.05)
    letters = await redis_client.xlen(KEYS.dead_letter)
    print(f"a refused entry delivered 3 times: dead letters {letters}")
    assert letters == 1
