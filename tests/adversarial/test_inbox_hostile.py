"""A hostile Redis client against the inbox: garbage, binary, missing fields, a valid event of a
game that does not exist, a burst. docs/integrating/inbox.md: 'an invalid inbox message goes to the dead-letter
stream with its raw body, reason and time, and the consumer goes on'."""

from __future__ import annotations

import json

import pytest
import redis.asyncio as aioredis

from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys
from services.bootstrap import running_inbox
from services.platform.settings import ServiceSettings
from services.ports.inbox import GROUP
from tests.adversarial.conftest import TRICKERION, example_game
from tests.pipeline.helpers import wait_until

pytestmark = pytest.mark.redis
KEYS = Keys(4)
TOKEN = b"hostile-inbox-test-write-token-0123456789"


async def test_garbage_is_dead_lettered_whole_and_the_consumer_goes_on(
    inbox_settings: ServiceSettings, redis_client: aioredis.Redis
) -> None:
    log = example_game("ib-1")
    stranger = example_game("ib-ghost")[3]  # seq 4 of a game that was never started
    garbage: list[dict[str, bytes]] = [
        {"data": b"{garbage", "token": TOKEN},
        {"data": b"\xff\xfe\x00\x81binary", "token": TOKEN},
        {"nodata": b"x", "token": TOKEN},
        {"data": json.dumps(stranger).encode(), "token": TOKEN},
        {"data": json.dumps({**log[1], "type": "chess.moved"}).encode(), "token": TOKEN},
        {"data": json.dumps([log[1], example_game("ib-2")[1]]).encode(), "token": TOKEN},
    ]
    async with running_inbox(inbox_settings):
        await redis_client.xadd(KEYS.inbox, {"data": json.dumps(log[0]), "token": TOKEN})
        for fields in garbage:
            await redis_client.xadd(KEYS.inbox, fields)  # type: ignore[arg-type]
        for event in log[1:6]:
            await redis_client.xadd(KEYS.inbox, {"data": json.dumps(event), "token": TOKEN})
        store = RedisEventLog(redis_client, KEYS)

        async def all_in() -> bool:
            return await store.version("ib-1") == 6 and await redis_client.xlen(
                KEYS.dead_letter
            ) >= len(garbage)

        await wait_until(all_in, 15, "6 events appended and every garbage entry dead-lettered")
        assert (await redis_client.xpending(KEYS.inbox, GROUP))["pending"] == 0
    assert await store.version("ib-ghost") == 0
    letters = [f for _, f in await redis_client.xrange(KEYS.dead_letter)]
    assert len(letters) == len(garbage)
    raws = [f[b"raw"] for f in letters]
    assert raws[:2] == [b"{garbage", b"\xff\xfe\x00\x81binary"]
    assert b"nodata" in raws[2]
    assert raws[3] == garbage[3]["data"]
    for fields in letters:
        assert json.loads(fields[b"reason"])["message"]
        assert fields[b"time"]
        assert fields[b"source"] == b"inbox"
        assert fields[b"inbox_id"]
    assert json.loads(letters[3][b"reason"])["kind"] == "conflict"
    assert all(TOKEN not in f[b"raw"] for f in letters)  # the token is never kept


async def test_burst_of_many_games_is_appended_in_order(
    inbox_settings: ServiceSettings, redis_client: aioredis.Redis
) -> None:
    games = {f"burst-{i}": example_game(f"burst-{i}", TRICKERION)[:40] for i in range(8)}
    async with redis_client.pipeline(transaction=False) as pipe:
        for step in range(40):  # interleaved, as many tables report at once
            for log in games.values():
                pipe.xadd(KEYS.inbox, {"data": json.dumps(log[step]), "token": TOKEN})
        await pipe.execute()
    async with running_inbox(inbox_settings):
        store = RedisEventLog(redis_client, KEYS)

        async def all_in() -> bool:
            return all([await store.version(g) == 40 for g in games])

        await wait_until(all_in, 30, "every burst game at version 40")
    for game_id, log in games.items():
        assert [str(e.event_id) for e in await store.read(game_id)] == [e["event_id"] for e in log]
    assert await redis_client.xlen(KEYS.dead_letter) == 0
