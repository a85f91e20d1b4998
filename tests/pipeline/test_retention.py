"""Hostile input (docs/decisions/0019-hostile-input-at-every-door.md): the inbox and the dead-letter stream are trimmed once settled, and only then.

Against a real Redis: settled (acked) inbox entries older than the retention go, pending or
undelivered ones stay whatever their age; dead letters older than theirs go; each trim is
counted in `scoreledger_stream_trimmed_entries_total`.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from prometheus_client import REGISTRY

from services.adapters.redis.connect import RedisClient, connect
from services.adapters.redis.inbox import RedisInboxQueue
from services.adapters.redis.keys import Keys
from services.bootstrap import redis_ports, use_cases
from services.doors.ingest.inbox_entry import INBOX_FORM, game_of_entry
from services.platform.settings import ServiceSettings
from services.ports.deadletters import DeadLetters
from services.ports.inbox import GROUP
from services.usecases.inbox.settle import Inbox, Retention
from services.usecases.record import Record

pytestmark = pytest.mark.redis
KEYS = Keys(4)
DAY_MS = 86_400_000


def trimmed(stream: str) -> float:
    value = REGISTRY.get_sample_value(
        "scoreledger_stream_trimmed_entries_total", {"stream": stream}
    )
    return value or 0.0


@pytest.fixture
async def client(clean_redis_url: str) -> AsyncIterator[RedisClient]:
    redis = connect(clean_redis_url)  # a single node or a cluster (SCORELEDGER_TEST_REDIS)
    try:
        yield redis
    finally:
        await redis.aclose()


def queue_of(client: aioredis.Redis) -> RedisInboxQueue:
    return RedisInboxQueue(client, KEYS.inbox, game_of_entry)


def inbox_of(client: aioredis.Redis, keep_s: float) -> Inbox:
    ports = redis_ports(client, KEYS)
    record = use_cases(ports, ServiceSettings(shards=4)).record
    return retained(client, ports.letters, record, Retention(keep_s, keep_s, every_s=0))


def retained(
    client: aioredis.Redis, letters: DeadLetters, record: Record, retention: Retention
) -> Inbox:
    """The inbox door of the shared stream with `retention` (the other settings: defaults)."""
    return Inbox(queue_of(client), KEYS, record, letters, retention, form=INBOX_FORM)


async def test_settled_old_entries_go_unsettled_ones_stay(client: aioredis.Redis) -> None:
    old = int(time.time() * 1000) - 2 * DAY_MS
    ids = [f"{old + i}-0" for i in range(6)]
    for entry_id in ids:
        await client.xadd(KEYS.inbox, {"data": "{}"}, id=entry_id)
    await client.xgroup_create(KEYS.inbox, GROUP, id="0")
    read = await client.xreadgroup(GROUP, "c", {KEYS.inbox: ">"}, count=4)  # 4 delivered
    delivered = [i.decode() for i, _ in read[0][1]]
    assert delivered == ids[:4]
    await client.xack(KEYS.inbox, GROUP, *ids[:1], *ids[2:4])  # ids[1] stays pending
    before = trimmed("inbox")
    inbox = inbox_of(client, keep_s=86_400)
    assert (await inbox.trim())[0] == 1  # only ids[0]: ids[1] is pending, so all after it stay
    remaining = [i.decode() for i, _ in await client.xrange(KEYS.inbox)]
    assert remaining == ids[1:]
    assert trimmed("inbox") - before == 1
    await client.xack(KEYS.inbox, GROUP, ids[1])
    assert (await inbox.trim())[0] == 3  # ids[1..3] settled; ids[4], ids[5] never delivered
    assert [i.decode() for i, _ in await client.xrange(KEYS.inbox)] == ids[4:]


async def test_recent_settled_entries_are_kept(client: aioredis.Redis) -> None:
    entry_id = (await client.xadd(KEYS.inbox, {"data": "{}"})).decode()
    await client.xgroup_create(KEYS.inbox, GROUP, id="0")
    await client.xreadgroup(GROUP, "c", {KEYS.inbox: ">"})
    await client.xack(KEYS.inbox, GROUP, entry_id)
    assert (await inbox_of(client, keep_s=86_400).trim())[0] == 0
    assert await client.xlen(KEYS.inbox) == 1


async def test_without_a_group_nothing_is_trimmed(client: aioredis.Redis) -> None:
    old = int(time.time() * 1000) - 2 * DAY_MS
    await client.xadd(KEYS.inbox, {"data": "{}"}, id=f"{old}-0")
    await client.xadd(KEYS.dead_letter, {"raw": "x"}, id=f"{old}-0")  # the stream must exist
    assert (await inbox_of(client, keep_s=60).trim())[0] == 0
    assert await client.xlen(KEYS.inbox) == 1


async def test_old_dead_letters_go_recent_ones_stay(client: aioredis.Redis) -> None:
    old = int(time.time() * 1000) - 2 * DAY_MS
    await client.xadd(KEYS.dead_letter, {"raw": "old"}, id=f"{old}-0")
    await client.xadd(KEYS.dead_letter, {"raw": "new"})
    await client.xadd(KEYS.inbox, {"data": "{}"})
    await client.xgroup_create(KEYS.inbox, GROUP, id="$")
    before = trimmed("deadletter")
    assert (await inbox_of(client, keep_s=86_400).trim())[1] == 1
    assert [f[b"raw"] for _, f in await client.xrange(KEYS.dead_letter)] == [b"new"]
    assert trimmed("deadletter") - before == 1


async def test_trims_are_at_most_once_per_interval(client: aioredis.Redis) -> None:
    ports = redis_ports(client, KEYS)
    record = use_cases(ports, ServiceSettings(shards=4)).record
    inbox = retained(client, ports.letters, record, Retention(60, 60, every_s=3600))
    await client.xadd(KEYS.inbox, {"data": "{}"})
    await client.xgroup_create(KEYS.inbox, GROUP, id="$")
    assert await inbox.trim() == (0, 0)
    old = int(time.time() * 1000) - 2 * DAY_MS
    await client.xadd(KEYS.dead_letter, {"raw": "old"}, id=f"{old}-0")
    assert await inbox.trim() == (0, 0)  # within the interval: no Redis call at all
    assert await client.xlen(KEYS.dead_letter) == 1


async def test_over_the_length_cap_settled_entries_go_at_once_unsettled_ones_stay(
    client: aioredis.Redis,
) -> None:
    """A per-stream cap (`inbox_max_len`): an integration that XADDs fast fills its stream with
    settled entries kept a day; over the cap they go at once, whatever their age. Entries not
    yet delivered, or pending, never go: the cap cannot drop an event not yet processed."""
    ids = [(await client.xadd(KEYS.inbox, {"data": "{}"})).decode() for _ in range(8)]
    await client.xgroup_create(KEYS.inbox, GROUP, id="0")
    await client.xreadgroup(GROUP, "c", {KEYS.inbox: ">"}, count=6)  # 6 delivered
    await client.xack(KEYS.inbox, GROUP, *ids[:2], *ids[3:6])  # ids[2] stays pending
    ports = redis_ports(client, KEYS)
    record = use_cases(ports, ServiceSettings(shards=4)).record
    capped = Retention(86_400, 86_400, every_s=0, inbox_max_len=3)
    inbox = retained(client, ports.letters, record, capped)
    assert (await inbox.trim())[0] == 2  # ids[0], ids[1]: recent, but over the cap
    assert [i.decode() for i, _ in await client.xrange(KEYS.inbox)] == ids[2:]
    await client.xack(KEYS.inbox, GROUP, ids[2])
    assert (await inbox.trim())[0] == 4  # ids[2..5]; ids[6], ids[7] never delivered: kept
    assert [i.decode() for i, _ in await client.xrange(KEYS.inbox)] == ids[6:]
    assert (await inbox.trim())[0] == 0  # 2 left, under the cap
    uncapped = retained(client, ports.letters, record, Retention(86_400, 86_400, every_s=0))
    await client.xadd(KEYS.inbox, {"data": "{}"})
    assert (await uncapped.trim())[0] == 0
