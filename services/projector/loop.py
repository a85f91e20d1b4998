"""The projector door: a plain batch loop over the shard feeds, calling the project use case.

One XREAD (BLOCK) reads every shard's feed after its position (the shard checkpoint at
start); each shard's entries become one `Project.apply` call (one projection write). After a
storage error the positions are reloaded from the checkpoints and the cached states dropped,
so the batch is read again: nothing is lost and, the checkpoint moving in the same write,
nothing is counted twice. No consumer group: a catch-up subscription (research/tech.md §3.4;
issue 9 asks for this loop instead of FastStream's per-shard subscribers).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

import structlog
from redis.exceptions import RedisError

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.fanout import xread_streams
from services.keys import Keys
from services.metrics import APPLY_LATENCY, EVENTS_APPLIED, PROJECTOR_LAG
from services.ports.eventlog import FeedEntry
from services.ports.projections import Projections, feed_id_key
from services.usecases.project import Project

log = structlog.get_logger("projector")


def feed_entries(game_entries: list[tuple[bytes, dict[bytes, bytes]]]) -> list[FeedEntry]:
    """XREAD entries of a shard feed (fields `game`, `seq`, `data`) as `FeedEntry`s."""
    return [
        FeedEntry(i.decode(), f[b"game"].decode(), int(f[b"seq"]), f[b"data"])
        for i, f in game_entries
    ]


class ProjectorLoop:
    """Reads the feeds of all shards and applies them.

    Args:
        client: the process's Redis client (bytes replies).
        keys: key layout (its shard count is the feeds read).
        project: the project use case.
        projections: the projections port (checkpoints at start and after an error).
        batch: most entries per shard per read.
        block_ms: XREAD BLOCK; keep it under the client's socket timeout.
    """

    def __init__(
        self,
        client: RedisClient,
        keys: Keys,
        project: Project,
        projections: Projections,
        batch: int = 500,
        block_ms: int = 1000,
    ) -> None:
        self.client = client
        self.keys = keys
        self.project = project
        self.projections = projections
        self.batch = batch
        self.block_ms = block_ms
        self.positions: dict[str, str] = {}
        self._shard_of = {keys.feed(s): s for s in range(keys.shards)}

    async def _reload(self) -> None:
        for stream, shard in self._shard_of.items():
            self.positions[stream] = await self.projections.checkpoint(shard)

    async def step(self) -> int:
        """One read and its applies; returns the events applied."""
        reply: Any = await xread_streams(
            self.client, self.positions, count=self.batch, block_ms=self.block_ms
        )
        applied = 0
        for stream, entries in reply or []:
            name = stream.decode()
            shard = self._shard_of[name]
            started = time.perf_counter()
            result = await self.project.apply(shard, feed_entries(entries))
            self.positions[name] = entries[-1][0].decode()
            applied += result.events
            EVENTS_APPLIED.labels(shard=str(shard)).inc(result.events)
            APPLY_LATENCY.labels(shard=str(shard)).observe(time.perf_counter() - started)
            last_ms = feed_id_key(self.positions[name])[0]
            PROJECTOR_LAG.labels(shard=str(shard)).set(max(0.0, time.time() - last_ms / 1000))
        return applied

    async def run(self) -> None:
        """Loop until cancelled; a storage error is logged and the loop resumes from the
        checkpoints after a short back-off (up to 2 s)."""
        delay = 0.05
        ready = False
        while True:
            try:
                if not ready:
                    await self._reload()
                    ready = True
                await self.step()
                delay = 0.05
            except (RedisError, OSError):
                log.exception("projector.batch_failed")
                self.project.forget()
                ready = False
                await asyncio.sleep(delay)
                delay = min(2.0, delay * 2)


@asynccontextmanager
async def running(loop: ProjectorLoop) -> AsyncIterator[ProjectorLoop]:
    """Run `loop` as a task for the block's duration (cancelled at exit)."""
    task = asyncio.create_task(loop.run(), name="projector")
    try:
        yield loop
    finally:
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task
