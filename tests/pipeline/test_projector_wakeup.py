"""The projector loop waits for news in its read, and an append ends that wait: an event
appended while the loop is idle (at start, and again after a batch, when the read-ahead found
nothing) is applied at once, not when the read's wait (`block_ms`) runs out. The wait is set
to a minute here, so a loop that slept through the append, polled, or let a batch wait to
fill would miss the deadline, a third of it (generous for a wake-up at load average 8).
Both backends: the memory feeds (woken by the append) and Redis (`XREAD BLOCK`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import pytest

from services.adapters.memory.feeds import MemoryShardFeeds
from services.adapters.memory.projections import MemoryProjections
from services.adapters.memory.store import MemoryBackend, MemoryEventLog
from services.doors.projector.loop import ProjectorLoop
from services.ports.eventlog import EventLog
from services.ports.feeds import ShardFeeds
from services.ports.leases import FencedProjections
from services.ports.projections import START_ID
from services.usecases.project import Applied
from tests.pipeline.factory import corrected, started

SHARDS = 4
BLOCK_MS = 60_000
"""The loop's longest wait in a read: a wake-up that waited for it would take a minute."""
DEADLINE_S = 20.0
"""How long an idle loop may take to apply an appended event (a wake-up takes milliseconds)."""


@dataclass
class Store:
    """One backend's event log, shard feeds and projections (for `ProjectorLoop`)."""

    log: EventLog
    feeds: ShardFeeds
    projections: FencedProjections


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    if request.param == "memory":
        backend = MemoryBackend(shards=SHARDS)
        yield Store(MemoryEventLog(backend), MemoryShardFeeds(backend), MemoryProjections(backend))
        return
    from services.adapters.redis.connect import connect
    from services.adapters.redis.eventlog import RedisEventLog
    from services.adapters.redis.feeds import RedisShardFeeds
    from services.adapters.redis.keys import Keys
    from services.adapters.redis.projections import RedisProjections

    # its own client: a reply may take the whole BLOCK_MS (the app keeps BLOCK under 5 s)
    client = connect(request.getfixturevalue("redis_url"), socket_timeout_s=BLOCK_MS / 1000 + 30)
    await client.flushdb()
    keys = Keys(SHARDS)
    try:
        yield Store(
            RedisEventLog(client, keys),
            RedisShardFeeds(client, keys),
            RedisProjections(client, keys),
        )
    finally:
        await client.aclose()


class Recording:
    """A project use case that records (game, seq) of every entry it is given."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, int]] = []
        self.views: dict[str, Any] = {}

    async def apply(
        self, shard: int, entries: Any, malformed: Any = (), live: Any = None
    ) -> Applied:
        self.seen += [(e.game_id, e.seq) for e in entries]
        return Applied(len(entries), entries[-1].feed_id)


async def seconds_until(done: Callable[[], bool]) -> float:
    """Seconds until `done()` holds, polled every 5 ms. Raises TimeoutError after DEADLINE_S."""
    started_at = time.monotonic()
    async with asyncio.timeout(DEADLINE_S):
        while not done():
            await asyncio.sleep(0.005)
    return time.monotonic() - started_at


async def test_an_event_appended_while_the_loop_waits_is_applied_before_the_wait_ends(
    store: Store,
) -> None:
    project = Recording()
    loop = ProjectorLoop(store.feeds, SHARDS, project, store.projections, block_ms=BLOCK_MS)  # type: ignore[arg-type]
    loop.positions = dict.fromkeys(range(SHARDS), START_ID)  # every shard held, from the start
    task = asyncio.create_task(loop.run())
    try:
        await asyncio.sleep(0.3)  # idle: waiting in its first read
        await store.log.append("g1", [started("g1")])
        first = await seconds_until(lambda: len(project.seen) == 1)
        await asyncio.sleep(0.3)  # idle again after a batch (its read-ahead found nothing)
        await store.log.append("g1", [corrected("g1", 2, "ann", 1)])
        second = await seconds_until(lambda: len(project.seen) == 2)
    finally:
        loop.stopping = True
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    print(f"applied {first * 1000:.0f} ms and {second * 1000:.0f} ms after the appends")
    assert project.seen == [("g1", 1), ("g1", 2)]
    assert max(first, second) < DEADLINE_S < BLOCK_MS / 1000  # (the deadline raised already)
