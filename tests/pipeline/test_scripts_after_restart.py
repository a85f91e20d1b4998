"""A Redis restart between a pipeline's script check and its commands loses the scripts the
check saw: the pipeline's retry sends `EVALSHA` to the new server, which answers `NOSCRIPT`.
Finding: after a Redis restart an inbox batch failed with `NoScriptError` at error level
(`fanout.script_calls` handed it on as the append's reply). The script must be loaded again and
the call sent again, transparently. Real redis-server, really restarted."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from redis.asyncio.client import Pipeline

from services.adapters.redis.connect import connect
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys
from services.ports.eventlog import AppendRequest
from tests.pipeline.factory import game_log
from tests.redis_fixture import RedisServer

KEYS = Keys(4)
pytestmark = pytest.mark.slow


async def test_an_append_batch_survives_a_restart_after_its_script_check(
    aof_redis: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = connect(aof_redis.url, retries=20)
    store = RedisEventLog(client, KEYS)
    logs = {g: game_log(g, 3, seed=i) for i, g in enumerate(("r1", "r2"))}
    await store.append("r1", logs["r1"][:1])  # the script is loaded, the connection open
    checked = Pipeline.load_scripts
    restarts = 0

    async def check_then_restart(self: Any) -> None:
        nonlocal restarts
        await checked(self)  # SCRIPT EXISTS answered by the old server: all there
        if restarts == 0:
            restarts += 1
            await asyncio.to_thread(aof_redis.restart)  # a new server: no scripts

    monkeypatch.setattr(Pipeline, "load_scripts", check_then_restart)
    requests = [AppendRequest("r1", logs["r1"][1:]), AppendRequest("r2", logs["r2"])]
    outcomes = await store.append_many(requests)
    assert restarts == 1
    assert [type(o).__name__ for o in outcomes] == ["AppendResult", "AppendResult"]
    assert [await store.version(g) for g in logs] == [3, 3]
    await client.aclose()
