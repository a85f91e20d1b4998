"""Integrations with an inbox stream of their own (docs/decisions/0019-hostile-input-at-every-door.md (hostile integrations)) against a
real Redis, a single node or a cluster (`SCORELEDGER_TEST_REDIS=cluster`: each stream is a key,
and a slot, of its own): entries of `sl:inbox:<name>` are appended to their game beside the
shared `sl:inbox`'s; a refused one is dead-lettered once, naming its stream; the reclaimer and
retention act on each stream alone.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest
import redis.asyncio as aioredis
from prometheus_client import REGISTRY
from redis.exceptions import ResponseError

from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.inbox import RedisInboxQueue
from services.adapters.redis.keys import Keys
from services.bootstrap import redis_ports, running_inbox, use_cases
from services.doors.ingest.inbox_entry import INBOX_FORM, game_of_entry
from services.platform.settings import ServiceSettings
from services.ports.inbox import GROUP
from services.usecases.inbox.settle import Inbox, Retention
from tests.pipeline.factory import game_log, started
from tests.pipeline.helpers import wait_until

pytestmark = pytest.mark.redis
KEYS = Keys(4)
TOKEN = "inbox-test-token-chosen-by-the-table-0007"
TABLE, APP = KEYS.integration_inbox("table-7"), KEYS.integration_inbox("app-2")
STREAMS = (TABLE, APP, KEYS.inbox)
DAY_MS = 86_400_000


@pytest.fixture
def settings(clean_redis_url: str) -> ServiceSettings:
    return ServiceSettings(
        redis_url=clean_redis_url, shards=4, inbox_batch=3, inbox_integrations=("table-7", "app-2")
    )


def entry(data: str | bytes) -> dict[str, str | bytes]:
    return {"data": data, "token": TOKEN}


async def test_each_streams_entries_are_appended_to_their_game(
    settings: ServiceSettings, redis_client: aioredis.Redis
) -> None:
    logs = {stream: game_log(f"it-{i}", 4, seed=i) for i, stream in enumerate((TABLE, APP))}
    shared = game_log("it-shared", 4, seed=7)
    await redis_client.xadd(TABLE, entry(logs[TABLE][0].model_dump_json()))  # before the start
    async with running_inbox(settings):
        await redis_client.xadd(APP, entry(logs[APP][0].model_dump_json()))
        for seq in range(1, 4):
            for stream, log in logs.items():
                await redis_client.xadd(stream, entry(log[seq].model_dump_json()))
        for event in shared:
            await redis_client.xadd(KEYS.inbox, entry(event.model_dump_json()))
        store = RedisEventLog(redis_client, KEYS)

        async def all_in() -> bool:
            versions = [await store.version(g) for g in ("it-0", "it-1", "it-shared")]
            pending = [(await redis_client.xpending(s, GROUP))["pending"] for s in STREAMS]
            return versions == [4, 4, 4] and pending == [0, 0, 0]

        await wait_until(all_in, 15, "4 events of each stream's game appended and acked")
    for game, log in (("it-0", logs[TABLE]), ("it-1", logs[APP]), ("it-shared", shared)):
        assert [e.event_id for e in await store.read(game)] == [e.event_id for e in log]
    assert await redis_client.xlen(KEYS.dead_letter) == 0


async def test_a_refused_entry_is_dead_lettered_once_naming_its_stream(
    settings: ServiceSettings, redis_client: aioredis.Redis
) -> None:
    garbage = b'{"event_id": '  # bad JSON: refused, naming no game
    for stream in STREAMS:  # the same entry id in three streams
        await redis_client.xadd(stream, entry(garbage), id="5-1")
    async with running_inbox(settings):

        async def lettered() -> bool:
            return int(await redis_client.xlen(KEYS.dead_letter)) == 3

        await wait_until(lettered, 15, "one dead letter per stream")
    letters = [f for _, f in await redis_client.xrange(KEYS.dead_letter)]
    by_stream = {f.get(b"inbox", b"").decode(): f for f in letters}
    assert sorted(by_stream) == sorted(["", TABLE, APP])  # the shared stream's names none
    assert {f[b"inbox_id"] for f in letters} == {b"5-1"}
    assert {f[b"raw"] for f in letters} == {garbage}
    assert set(by_stream[""]) == {b"raw", b"reason", b"source", b"time", b"inbox_id"}
    assert json.loads(by_stream[TABLE][b"reason"])["field"] == "data"
    for once in ("inbox:5-1", f"inbox:{TABLE}:5-1", f"inbox:{APP}:5-1"):
        assert await redis_client.exists(KEYS.dead_letter_once(once)) == 1, once
    # a redelivery (a reclaimed copy of the same entry) letters nothing new
    ports = redis_ports(redis_client, KEYS)
    door = Inbox(
        queue_of(redis_client),
        KEYS,
        use_cases(ports, settings).record,
        ports.letters,
        form=INBOX_FORM,
    )
    await door.sibling(TABLE).process([b"5-1"], [{b"data": garbage, b"token": TOKEN.encode()}])
    assert await redis_client.xlen(KEYS.dead_letter) == 3


async def test_the_reclaimer_settles_each_streams_pending_entries(
    settings: ServiceSettings, redis_client: aioredis.Redis
) -> None:
    """A dead replica's entry on one integration's stream is claimed after the idle time; this
    replica's own pending entry on another is drained at start. FastStream reads only new
    entries: only the per-stream reclaimers can settle these."""
    settings = settings.model_copy(update={"inbox_consumer": "alive", "inbox_claim_idle_ms": 300})
    for stream, game, consumer in ((TABLE, "it-dead", "ingest-dead-1"), (APP, "it-own", "alive")):
        await redis_client.xgroup_create(stream, GROUP, id="0", mkstream=True)
        await redis_client.xadd(stream, entry(started(game).model_dump_json()))
        await redis_client.xreadgroup(GROUP, consumer, {stream: ">"}, count=10)
        assert (await redis_client.xpending(stream, GROUP))["pending"] == 1
    async with running_inbox(settings):
        store = RedisEventLog(redis_client, KEYS)

        async def settled() -> bool:
            versions = [await store.version(g) for g in ("it-dead", "it-own")]
            pending = [(await redis_client.xpending(s, GROUP))["pending"] for s in (TABLE, APP)]
            return versions == [1, 1] and pending == [0, 0]

        await wait_until(settled, 15, "both pending entries appended and acked")
    assert await redis_client.xlen(KEYS.dead_letter) == 0


def queue_of(client: aioredis.Redis) -> RedisInboxQueue:
    return RedisInboxQueue(client, KEYS.inbox, game_of_entry)


def door_of(client: aioredis.Redis, every_s: float) -> Inbox:
    ports = redis_ports(client, KEYS)
    record = use_cases(ports, ServiceSettings(shards=4)).record
    return Inbox(
        queue_of(client),
        KEYS,
        record,
        ports.letters,
        Retention(86_400, 86_400, every_s=every_s),
        form=INBOX_FORM,
    )


async def test_retention_trims_each_stream_alone_and_the_letters_once(
    redis_client: aioredis.Redis,
) -> None:
    old = int(time.time() * 1000) - 2 * DAY_MS
    for stream in (KEYS.inbox, TABLE):
        for i in range(3):
            await redis_client.xadd(stream, {"data": "{}"}, id=f"{old + i}-0")
        await redis_client.xgroup_create(stream, GROUP, id="0")
        await redis_client.xreadgroup(GROUP, "c", {stream: ">"}, count=10)
    await redis_client.xack(TABLE, GROUP, f"{old}-0", f"{old + 1}-0")  # the third stays pending
    await redis_client.xack(KEYS.inbox, GROUP, f"{old}-0", f"{old + 1}-0", f"{old + 2}-0")
    await redis_client.xadd(KEYS.dead_letter, {"raw": "old"}, id=f"{old}-0")
    shared = door_of(redis_client, every_s=3600)
    table = shared.sibling(TABLE)
    assert await table.trim() == (2, 1)  # its two settled entries; the old letter
    assert [i.decode() for i, _ in await redis_client.xrange(TABLE)] == [f"{old + 2}-0"]
    assert await redis_client.xlen(KEYS.inbox) == 3  # another stream's: untouched
    await redis_client.xadd(KEYS.dead_letter, {"raw": "old"}, id=f"{old}-1")
    assert await shared.trim() == (3, 0)  # its own stream; the letters' clock is shared
    assert await redis_client.xlen(KEYS.dead_letter) == 1
    assert await table.trim() == (0, 0)  # within the interval: nothing at all


async def test_an_entry_with_the_largest_sequence_number_does_not_break_retention(
    redis_client: aioredis.Redis,
) -> None:
    """A hostile integration's first XADD on its fresh stream (last id `0-0`, so any id is
    accepted) may name `1-18446744073709551615`: once settled, the bound after it is `2-0`,
    not the invalid `1-18446744073709551616` (XTRIM refused it, so the delivery failed and the
    stream was never trimmed)."""
    last = f"1-{2**64 - 1}"
    await redis_client.xgroup_create(TABLE, GROUP, id="0", mkstream=True)
    await redis_client.xadd(TABLE, entry(b'{"event_id": '), id=last)  # garbage: lettered
    read = await redis_client.xreadgroup(GROUP, "c", {TABLE: ">"}, count=10)
    ids, fields = [i for i, _ in read[0][1]], [f for _, f in read[0][1]]
    table = door_of(redis_client, every_s=0).sibling(TABLE)
    await table.process(ids, fields, "c")  # settles it, then trims: raised ResponseError
    assert (await redis_client.xpending(TABLE, GROUP))["pending"] == 0
    assert await redis_client.xlen(KEYS.dead_letter) == 1
    assert await redis_client.xlen(TABLE) == 0  # settled and older than a day: trimmed


def recovered(why: str) -> float:
    """The table stream's `scoreledger_inbox_stream_recovered_total` for `why` (0: none yet)."""
    labels = {"inbox": TABLE, "why": why}
    found = REGISTRY.get_sample_value("scoreledger_inbox_stream_recovered_total", labels)
    return found or 0.0


async def started_in(store: RedisEventLog, game: str) -> bool:
    """Whether `game`'s start event (alone) is stored."""
    return await store.version(game) == 1


async def test_a_deleted_integration_stream_is_read_again(
    settings: ServiceSettings, redis_client: aioredis.Redis
) -> None:
    """An operator DELs one integration's stream (a reset, or an off-boarding undone) while
    ingest runs: the other streams go on (held up), and entries XADDed to the stream again
    should be read again, not strand un-read (no group) while the process looks healthy."""
    store = RedisEventLog(redis_client, KEYS)
    before = recovered("deleted")
    async with running_inbox(settings):
        await redis_client.xadd(TABLE, entry(started("it-del-1").model_dump_json()))
        await wait_until(lambda: started_in(store, "it-del-1"), 30, "the first entry appended")
        await redis_client.delete(TABLE)
        await redis_client.xadd(KEYS.inbox, entry(started("it-del-shared").model_dump_json()))
        await wait_until(
            lambda: started_in(store, "it-del-shared"), 30, "the shared stream goes on"
        )
        await redis_client.xadd(TABLE, entry(started("it-del-2").model_dump_json()))
        await wait_until(lambda: started_in(store, "it-del-2"), 30, "the deleted stream read again")
    assert (
        recovered("deleted") >= before + 1
    )  # detected and counted (and logged: inbox.stream_lost)


async def test_an_entry_over_the_body_limit_is_refused_as_http_refuses_it(
    settings: ServiceSettings, redis_client: aioredis.Redis
) -> None:
    """A hostile integration's stream is its own, but ingest's memory is everyone's: one 64 MiB
    entry on one stream raised the reading process's peak RSS by about 670 MiB (the k8s ingest
    pod's limit is 512Mi, and the entry stays pending for the restarted replica's drain) and
    left a 64 MiB dead letter for 30 days. Shown small: `max_body_bytes` 4096, an 8 KiB entry."""
    settings = settings.model_copy(update={"max_body_bytes": 4096})
    padded = started("it-big").model_dump_json().encode() + b" " * 8192  # valid JSON, 8 KiB+
    await redis_client.xadd(TABLE, entry(padded))
    async with running_inbox(settings):

        async def settled() -> bool:
            return (await redis_client.xpending(TABLE, GROUP))["pending"] == 0 and bool(
                (await redis_client.xinfo_groups(TABLE))[0]["entries-read"]
            )

        await wait_until(settled, 15, "the entry read and settled")
    assert await RedisEventLog(redis_client, KEYS).version("it-big") == 0
    (letter,) = [f for _, f in await redis_client.xrange(KEYS.dead_letter)]
    assert len(letter[b"raw"]) == 4096  # its first 4096 bytes
    assert json.loads(letter[b"reason"])["rule"] == "body.too_large"
    # Deleted from its stream once lettered (the letter keeps the bounded copy): Redis held a
    # hostile integration's 40 MB entries for the whole inbox retention (a day).
    assert await redis_client.xlen(TABLE) == 0


async def test_an_exhausted_integration_stream_is_renewed_once_its_entries_are_settled(
    settings: ServiceSettings, redis_client: aioredis.Redis
) -> None:
    """Finding: one `XADD <stream> 18446744073709551615-18446744073709551615 ...` makes every
    later `XADD <stream> *` fail ("The stream has exhausted the last possible ID") until an
    operator deletes the stream, unnoticed. Now ingest settles what the stream holds (the
    entries before it, and it), then deletes and re-creates it with its group: the writers'
    next XADDs work and are read, with no restart."""
    store = RedisEventLog(redis_client, KEYS)
    last = f"{2**64 - 1}-{2**64 - 1}"

    before = recovered("exhausted")
    await redis_client.xadd(TABLE, entry(started("it-ex-1").model_dump_json()))
    await redis_client.xadd(TABLE, entry(started("it-ex-2").model_dump_json()), id=last)
    with pytest.raises(ResponseError, match="exhausted the last possible ID"):
        await redis_client.xadd(TABLE, entry(started("it-ex-3").model_dump_json()))
    async with running_inbox(settings):

        async def xadd_works() -> bool:
            try:
                await redis_client.xadd(TABLE, entry(started("it-ex-3").model_dump_json()))
            except ResponseError:
                return False
            return True

        await wait_until(xadd_works, 30, "the stream taking XADD * again")

        async def all_appended() -> bool:
            versions = [await store.version(g) for g in ("it-ex-1", "it-ex-2", "it-ex-3")]
            return versions == [1, 1, 1]

        await wait_until(all_appended, 30, "the entries before, at and after the renewal")
    assert recovered("exhausted") == before + 1


async def test_a_destroyed_group_is_re_created_and_its_stopped_subscriber_restarted(
    settings: ServiceSettings, redis_client: aioredis.Redis
) -> None:
    """`XGROUP DESTROY` under a reading subscriber: its blocked XREADGROUP gets NOGROUP and
    FastStream stops it for good; the guard re-creates the group at 0 and starts it again."""
    store = RedisEventLog(redis_client, KEYS)
    before = recovered("deleted")
    async with running_inbox(settings):
        await redis_client.xadd(TABLE, entry(started("it-grp-1").model_dump_json()))
        await wait_until(lambda: started_in(store, "it-grp-1"), 30, "the first entry appended")
        await asyncio.sleep(1.5)  # a guard pass or more: a healthy start is not a recovery
        assert recovered("deleted") == before
        await redis_client.xgroup_destroy(TABLE, GROUP)
        await redis_client.xadd(TABLE, entry(started("it-grp-2").model_dump_json()))
        await wait_until(lambda: started_in(store, "it-grp-2"), 30, "the stream read again")
        await redis_client.xadd(TABLE, entry(started("it-grp-3").model_dump_json()))
        await wait_until(lambda: started_in(store, "it-grp-3"), 30, "and read on")
    assert recovered("deleted") > before
