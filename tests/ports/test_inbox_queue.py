"""The `InboxQueue` port's contract, held by the Redis and the in-memory adapter alike: delivery
once and in order, the pending entries of a game, acks, holds, claims, consumers dropped,
retention of settled entries only, and the stream guard."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from services.adapters.memory.inbox import MemoryInboxQueue
from services.adapters.redis.connect import RedisClient
from services.ports.inbox import Fields, Held, InboxQueue, StreamHealth

STREAM = "sl:inbox"


def game_of(fields: Fields) -> str | None:
    return str(json.loads(fields[b"data"])["game_id"]) if b"data" in fields else None


def entry(game: str, n: int) -> Fields:
    return {b"data": json.dumps({"game_id": game, "n": n}).encode(), b"token": b"t"}


async def orphans(
    queue: InboxQueue, consumer: str, idle_ms: int, count: int, skip: frozenset[bytes] = frozenset()
) -> list[list[tuple[bytes, Fields]]]:
    """Every page `own_orphans` yields, as taken."""
    return [page async for page in queue.own_orphans(consumer, idle_ms, count, skip)]


@pytest.fixture
def queue(redis_or_memory: RedisClient | None) -> InboxQueue:
    if redis_or_memory is None:
        return MemoryInboxQueue(STREAM, game_of)
    from services.adapters.redis.inbox import RedisInboxQueue

    return RedisInboxQueue(redis_or_memory, STREAM, game_of)


async def test_new_entries_are_delivered_once_in_order(queue: InboxQueue) -> None:
    await queue.ensure_group()
    ids = await queue.add([entry("a", 1), entry("b", 1), entry("a", 2)])
    assert ids == sorted(ids, key=lambda i: tuple(int(p) for p in i.split(b"-")))
    first = await queue.read_new("c1", 2)
    assert [i for i, _ in first] == ids[:2]
    assert first[1][1] == entry("b", 1)
    assert [i for i, _ in await queue.read_new("c2", 10)] == ids[2:]
    assert await queue.read_new("c1", 10) == []


async def test_pending_older_names_the_games_older_unsettled_entries(queue: InboxQueue) -> None:
    assert await queue.pending_older("a", b"9999999999999-0", set()) == []  # no group yet
    await queue.ensure_group()
    a1, b1, a2, a3 = await queue.add([entry("a", 1), entry("b", 1), entry("a", 2), entry("a", 3)])
    await queue.read_new("c1", 2)
    await queue.read_new("c2", 2)
    assert await queue.pending_older("a", a3, set()) == [Held(a1, "c1"), Held(a2, "c2")]
    assert await queue.pending_older("a", a3, {a1}) == [Held(a2, "c2")]  # decided, not acked
    assert await queue.pending_older("b", a3, set()) == [Held(b1, "c1")]
    await queue.ack([a1, b1])
    assert await queue.pending_older("a", a3, set()) == [Held(a2, "c2")]
    assert await queue.pending_older("a", a2, set()) == []


async def test_claims_take_idle_entries_and_skip_held_or_deleted_ones(queue: InboxQueue) -> None:
    await queue.ensure_group()
    a1, a2 = await queue.add([entry("a", 1), entry("a", 2)])
    await queue.read_new("dead", 10)
    assert await queue.claim_idle("live", 600_000, 10) == []  # not idle ten minutes
    await queue.ack([], delete=[a2])  # deleted while pending
    taken = await queue.claim_idle("live", 0, 1)
    assert taken == [(a1, entry("a", 1))]
    assert await queue.pending_older("a", b"9999999999999-0", set()) == [Held(a1, "live")]
    await queue.hold("live", [a1])
    assert await orphans(queue, "live", 600_000, 10) == []  # held fresh: not idle
    assert await orphans(queue, "live", 0, 10) == [[(a1, entry("a", 1))]]


async def test_own_orphans_pages_one_consumers_entries(queue: InboxQueue) -> None:
    await queue.ensure_group()
    fields = [entry("a", n) for n in range(3)] + [entry("b", 0)]
    ids = await queue.add(fields)
    taken = list(zip(ids, fields, strict=True))
    await queue.read_new("c1", 3)
    await queue.read_new("c2", 1)
    assert await orphans(queue, "c1", 0, 2) == [taken[:2], taken[2:3]]
    assert await orphans(queue, "c1", 600_000, 10) == []  # taken again just now: none idle
    assert await orphans(queue, "c1", 0, 10, frozenset({ids[1]})) == [[taken[0], taken[2]]]
    assert await orphans(queue, "c2", 0, 10) == [taken[3:]]
    await queue.ack([], delete=[ids[3]])  # deleted while pending: settled, not returned
    assert await orphans(queue, "c2", 0, 10) == [[]]
    assert await queue.pending_older("b", b"9999999999999-0", set()) == []
    assert await queue.pending_older("a", b"9999999999999-0", set()) == [
        Held(i, "c1") for i in ids[:3]
    ]


async def test_idle_consumers_with_nothing_pending_are_dropped(queue: InboxQueue) -> None:
    await queue.ensure_group()
    a1, a2 = await queue.add([entry("a", 1), entry("a", 2)])
    await queue.read_new("gone", 1)
    await queue.read_new("busy", 1)
    await queue.ack([a1])
    await asyncio.sleep(0.05)  # both idle some ms; "busy" still holds a2
    assert await queue.drop_idle_consumers("me", 0) == 1
    assert await queue.drop_idle_consumers("me", 0) == 0
    assert await queue.pending_older("a", b"9999999999999-0", set()) == [Held(a2, "busy")]


async def test_a_consumer_idle_exactly_the_threshold_is_dropped(queue: InboxQueue) -> None:
    """Idle "at least" the threshold, as XAUTOCLAIM counts: a consumer seen in this very
    millisecond is dropped at a threshold of 0 (Redis reports its idle as 0)."""
    await queue.ensure_group()
    (a1,) = await queue.add([entry("a", 1)])
    await queue.read_new("gone", 1)
    await queue.ack([a1])
    assert await queue.drop_idle_consumers("me", 0) == 1  # no sleep: idle may read 0 ms


async def test_trim_removes_settled_entries_only(queue: InboxQueue) -> None:
    await queue.ensure_group()
    ids = await queue.add([entry("a", n) for n in range(3)])
    await queue.read_new("c1", 10)
    await queue.ack(ids[:2])
    now_ms = int(time.time() * 1000)
    assert await queue.trim(60, now_ms, None) == 0  # settled, but not a minute old
    assert await queue.trim(0, now_ms + 1000, None) == 2
    assert await queue.pending_older("a", b"9999999999999-0", set()) == [Held(ids[2], "c1")]
    assert await queue.trim(0, now_ms + 1000, None) == 0  # the pending one stays


async def test_the_guard_recreates_a_lost_group_and_siblings_are_apart(queue: InboxQueue) -> None:
    assert await queue.guard() is StreamHealth.LOST
    assert await queue.guard() is StreamHealth.OK
    other = queue.sibling("sl:inbox:table-7")
    assert other.stream == "sl:inbox:table-7"
    await other.ensure_group()
    [t1] = await other.add([entry("a", 1)])
    assert await queue.read_new("c1", 10) == []
    assert await other.read_new("c1", 10) == [(t1, entry("a", 1))]
