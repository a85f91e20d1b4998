"""The capacity model's Redis figure, which `maxmemory` in the shipped configs is sized from
(deploy/redis.conf, docs/operating/redis.md#redis-memory): a stored event costs Redis at most 1.5 KiB (game
stream, event id, shard feed before trimming), measured as `used_memory` growth over 3,000
events of simulated games appended in batches of 10, as ingest does."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.adapters.redis.connect import connect
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys
from tests.pipeline.factory import game_log
from tests.redis_fixture import RedisServer

SIZED_FOR = 1536
"""Bytes per stored event the sizing assumes (deploy/redis.conf: "about 1 KiB")."""


@pytest.mark.redis
async def test_a_stored_event_costs_redis_what_maxmemory_is_sized_for(tmp_path: Path) -> None:
    server = RedisServer(tmp_path).start()  # its own: nothing else's keys in used_memory
    client = connect(server.url)
    try:
        store = RedisEventLog(client, Keys(16))
        before = int((await client.info("memory"))["used_memory"])
        events = 0
        for g in range(20):
            log = game_log(f"mem-{g}", 150, seed=g)
            for start in range(0, len(log), 10):
                await store.append(f"mem-{g}", log[start : start + 10])
            events += len(log)
        per_event = (int((await client.info("memory"))["used_memory"]) - before) / events
        print(f"events {events}, Redis bytes per stored event {per_event:.0f}")
        assert per_event <= SIZED_FOR
    finally:
        await client.aclose()
        server.stop()
