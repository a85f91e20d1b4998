"""The Redis inbox against a real Redis: valid messages appended, garbage dead-lettered, the
consumer goes on, pending entries of a crashed consumer drained."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
import redis.asyncio as aioredis

from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys
from services.bootstrap import inbox_broker, running_inbox
from services.platform.settings import ServiceSettings
from services.ports.inbox import GROUP
from tests.pipeline.factory import corrected, game_log, started
from tests.pipeline.helpers import wait_until

KEYS = Keys(4)
TOKEN = "inbox-test-token-chosen-by-the-table-0001"


@pytest.fixture
def settings(clean_redis_url: str) -> ServiceSettings:
    return ServiceSettings(redis_url=clean_redis_url, shards=4, inbox_batch=3)


async def test_valid_appended_garbage_dead_lettered_consumer_goes_on(
    settings: ServiceSettings, redis_client: aioredis.Redis
) -> None:
    log = game_log("g1", 5)
    rule_breaker = corrected("g1", 4, "nobody", 1)
    garbage = [
        {"data": b"\xff\xfe not utf-8", "token": TOKEN},  # bad bytes
        {"data": b'{"event_id": ', "token": TOKEN},  # bad JSON
        {"data": json.dumps({**log[1].to_wire(), "type": "chess.moved"}), "token": TOKEN},
        {"data": rule_breaker.model_dump_json(), "token": TOKEN},  # a rule violation
        {"other": "no data field", "token": TOKEN},
    ]
    await redis_client.xadd(
        KEYS.inbox, {"data": log[0].model_dump_json(), "token": TOKEN}
    )  # before the first start
    async with running_inbox(settings):
        await redis_client.xadd(
            KEYS.inbox, {"data": json.dumps([e.to_wire() for e in log[1:3]]), "token": TOKEN}
        )
        for fields in garbage:
            await redis_client.xadd(KEYS.inbox, fields)
        for event in log[3:]:
            await redis_client.xadd(KEYS.inbox, {"data": event.model_dump_json(), "token": TOKEN})
        await redis_client.xadd(
            KEYS.inbox, {"data": log[0].model_dump_json(), "token": TOKEN}
        )  # a duplicate
        store = RedisEventLog(redis_client, KEYS)

        async def all_in() -> bool:
            return await store.version("g1") == 5 and await redis_client.xlen(
                KEYS.dead_letter
            ) == len(garbage)

        await wait_until(all_in, 15, "5 events appended and 5 dead letters")

        async def settled() -> bool:  # acked after its append or letter: polled (load 8)
            return (await redis_client.xpending(KEYS.inbox, GROUP))["pending"] == 0

        await wait_until(settled, 15, "every inbox entry acknowledged")
    assert [e.event_id for e in await store.read("g1")] == [e.event_id for e in log]
    # one game's letters are in stream order; letters of different games (or of none) may be
    # written in another order (a refusal is re-decided once its game has nothing older pending)
    stored = [f for _, f in await redis_client.xrange(KEYS.dead_letter)]
    letters = sorted(stored, key=lambda f: tuple(map(int, f[b"inbox_id"].split(b"-"))))
    assert [f[b"raw"] for f in letters[:4]] == [
        g["data"] if isinstance(g["data"], bytes) else g["data"].encode() for g in garbage[:4]
    ]
    assert {f[b"source"] for f in letters} == {b"inbox"}
    reasons = [json.loads(f[b"reason"]) for f in letters]
    assert reasons[1]["field"] == "data"
    assert "invalid JSON" in reasons[1]["message"]
    assert reasons[2]["field"] == "type"
    assert reasons[3]["rule"] == "correction.unknown_player"
    assert reasons[4]["field"] == "data"
    assert b"no data field" in letters[4][b"raw"]
    assert all(TOKEN.encode() not in f[b"raw"] for f in letters)  # a token is never kept


async def test_faststream_publisher_data_field_is_accepted(
    settings: ServiceSettings, redis_client: aioredis.Redis
) -> None:
    event = started("g7")
    publisher = inbox_broker(settings)
    async with running_inbox(settings), publisher:
        await publisher.publish(  # FastStream's `__data__` format, the token as a header
            event.to_wire(), stream=KEYS.inbox, headers={"token": TOKEN}
        )
        store = RedisEventLog(redis_client, KEYS)

        async def appended() -> bool:
            return await store.version("g7") == 1

        await wait_until(appended, 15, "the published event appended")


async def appended_and_acked(redis_client: aioredis.Redis, game_id: str, what: str) -> None:
    """Wait (15 s at most, failing with `what`) until `game_id`'s first event is appended and
    the inbox group has nothing pending."""
    store = RedisEventLog(redis_client, KEYS)

    async def done() -> bool:
        return (
            await store.version(game_id) == 1
            and (await redis_client.xpending(KEYS.inbox, GROUP))["pending"] == 0
        )

    await wait_until(done, 15, what)


async def test_pending_entries_of_a_crashed_consumer_are_drained_at_start(
    settings: ServiceSettings, redis_client: aioredis.Redis
) -> None:
    """A replica with a stable consumer name (`inbox_consumer`) settles its own PEL at start."""
    settings = settings.model_copy(update={"inbox_consumer": "ingest-0"})
    await redis_client.xgroup_create(KEYS.inbox, GROUP, id="0", mkstream=True)
    await redis_client.xadd(KEYS.inbox, {"data": started("g3").model_dump_json(), "token": TOKEN})
    # a consumer read it and died before the ack: it sits in ingest-0's PEL
    await redis_client.xreadgroup(GROUP, "ingest-0", {KEYS.inbox: ">"}, count=10)
    assert (await redis_client.xpending(KEYS.inbox, GROUP))["pending"] == 1
    async with running_inbox(settings):
        await appended_and_acked(redis_client, "g3", "the pending entry appended and acked")


async def test_a_dead_consumers_entries_are_claimed_after_the_idle_time(
    settings: ServiceSettings, redis_client: aioredis.Redis
) -> None:
    """A replica that died (its name never comes back) leaves entries in its PEL: another
    replica claims them once idle for `inbox_claim_idle_ms`, and no sooner."""
    settings = settings.model_copy(update={"inbox_consumer": "alive", "inbox_claim_idle_ms": 4000})
    await redis_client.xgroup_create(KEYS.inbox, GROUP, id="0", mkstream=True)
    await redis_client.xadd(KEYS.inbox, {"data": started("g4").model_dump_json(), "token": TOKEN})
    await redis_client.xreadgroup(GROUP, "ingest-dead-1", {KEYS.inbox: ">"}, count=10)
    read_at = time.monotonic()
    async with running_inbox(settings):
        store = RedisEventLog(redis_client, KEYS)
        await asyncio.sleep(max(0.0, 1.5 - (time.monotonic() - read_at)))
        assert time.monotonic() - read_at < 3.5, "the start took too long to check 'no sooner'"
        assert await store.version("g4") == 0  # not idle long enough: its owner may be alive
        what = "the dead consumer's entry claimed, appended and acked"
        await appended_and_acked(redis_client, "g4", what)


async def test_consumers_gone_for_good_are_dropped(
    settings: ServiceSettings, redis_client: aioredis.Redis
) -> None:
    """Consumer names of replicas long gone (nothing pending, idle ten claim periods) leave the
    group; the live replica's own name stays."""
    settings = settings.model_copy(update={"inbox_consumer": "alive", "inbox_claim_idle_ms": 100})
    await redis_client.xgroup_create(KEYS.inbox, GROUP, id="0", mkstream=True)
    for name in ("ingest-gone-1", "alive"):  # an empty read creates no consumer: make them
        await redis_client.xgroup_createconsumer(KEYS.inbox, GROUP, name)
    await asyncio.sleep(1.2)  # idle > 10 x 100 ms
    async with running_inbox(settings):

        async def dropped() -> bool:
            names = [c["name"] for c in await redis_client.xinfo_consumers(KEYS.inbox, GROUP)]
            return b"ingest-gone-1" not in names and b"alive" in names

        await wait_until(dropped, 10, "the stale consumer dropped, the live one kept")
