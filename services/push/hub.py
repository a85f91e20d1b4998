"""The change hub: one shared reader of the projector's "standings changed" streams per process,
fanning each change out to in-memory subscriber queues.

One task runs `XREAD BLOCK` over every `Keys.changes(shard)` stream (fields `game`, `seq`),
reads each changed game's projection HASH once per batch, and puts a `Delivery` on the queue of
every subscriber of that game and of every "all games" subscriber. So N browsers cost N
queues, not N Redis connections. A slow subscriber's queue drops its oldest delivery: a
delivery carries the whole current state, so only the newest matters.
Source: issue brief (live push); research/anchors.md §3 (SSE id = stream entry id).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis
import structlog
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff

from services.keys import Keys, shard_of

log = structlog.get_logger(__name__)

Render = Callable[[str, dict[str, str]], Any]
"""(game_id, projection HASH as str -> str) -> the JSON-ready body pushed for that game."""


def entry_key(entry_id: str) -> tuple[int, int]:
    """A stream entry id `ms-seq` as a sortable pair (ids of one stream only)."""
    ms, _, seq = entry_id.partition("-")
    return int(ms), int(seq or 0)


@dataclass(frozen=True, slots=True)
class Change:
    """One notification: entry `entry_id` of `Keys.changes(shard)` says `game_id` is at `seq`."""

    shard: int
    entry_id: str
    game_id: str
    seq: int


@dataclass(frozen=True, slots=True)
class Delivery:
    """What a subscriber receives: the change and the game's rendered projection (None if the
    projection HASH is gone)."""

    change: Change
    body: Any


@dataclass(eq=False)
class Subscription:
    """One subscriber's queue; `game_id` None subscribes to every game."""

    game_id: str | None
    queue: asyncio.Queue[Delivery] = field(default_factory=lambda: asyncio.Queue(maxsize=64))

    def offer(self, delivery: Delivery) -> None:
        """Enqueue without waiting; when full, drop the oldest delivery first."""
        if self.queue.full():
            self.queue.get_nowait()
        self.queue.put_nowait(delivery)

    async def get(self) -> Delivery:
        """The next delivery (waits)."""
        return await self.queue.get()


class ChangeHub:
    """The per-process reader of all shard change streams.

    Args:
        client: `redis.asyncio.Redis` without `decode_responses`.
        keys: the deployment's key layout (its shard count sets the streams read).
        render: builds the pushed body from a game's projection HASH.
        block_ms: XREAD BLOCK timeout; the loop re-issues the read after it.
    """

    def __init__(self, client: aioredis.Redis, keys: Keys, render: Render, block_ms: int = 5000) -> None:
        self.client = client
        self.keys = keys
        self.render = render
        self.block_ms = block_ms
        self._subs: dict[str | None, set[Subscription]] = defaultdict(set)
        self._shard_of_stream = {keys.changes(s): s for s in range(keys.shards)}
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        # A Redis blip must not end live push: retry the read forever, backing off to 2 s.
        self._retry = Retry(ExponentialBackoff(cap=2.0, base=0.05), retries=-1)

    # --- lifecycle ---
    async def start(self) -> None:
        """Start the reader task; returns once the stream positions are taken (so a change
        appended after `start` returns is delivered)."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="change-hub")
            await self._ready.wait()

    async def stop(self) -> None:
        """Cancel the reader task and wait for it."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    @property
    def subscriber_count(self) -> int:
        """Open subscriptions (for the `sse_clients` gauge and the benchmark)."""
        return sum(len(s) for s in self._subs.values())

    @contextlib.asynccontextmanager
    async def subscribe(self, game_id: str | None) -> AsyncIterator[Subscription]:
        """Subscribe to one game's changes (or every game's, with None) for the `with` block."""
        sub = Subscription(game_id)
        self._subs[game_id].add(sub)
        try:
            yield sub
        finally:
            self._subs[game_id].discard(sub)
            if not self._subs[game_id]:
                del self._subs[game_id]

    # --- one-off reads for (re)connecting clients ---
    async def tail(self, game_id: str) -> str:
        """The last entry id of the game's shard change stream (`0-0` when empty)."""
        last = await self.client.xrevrange(self.keys.changes(shard_of(game_id, self.keys.shards)), count=1)
        return last[0][0].decode() if last else "0-0"

    async def changed_since(self, game_id: str, after_id: str, limit: int = 100_000) -> str | None:
        """The id of the game's newest change after `after_id` in its shard stream, or None.

        Raises:
            redis.ResponseError: `after_id` is not a stream id (callers treat it as absent).
        """
        stream = self.keys.changes(shard_of(game_id, self.keys.shards))
        entries = await self.client.xrange(stream, f"({after_id}", "+", count=limit)
        hits = [eid.decode() for eid, fields in entries if fields.get(b"game", b"").decode() == game_id]
        return hits[-1] if hits else None

    async def current(self, game_id: str) -> Any:
        """The rendered projection of `game_id` now (None if it has none yet)."""
        raw = await self.client.hgetall(self.keys.projection(game_id))
        return self.render(game_id, _decode(raw)) if raw else None

    # --- the reader ---
    async def _run(self) -> None:
        positions = await self._retry.call_with_retry(self._tails, self._on_error)
        self._ready.set()
        while True:
            reply = await self._retry.call_with_retry(
                lambda: self.client.xread(positions, block=self.block_ms, count=1000), self._on_error
            )
            changes: list[Change] = []
            for stream, entries in reply or []:
                name = stream.decode()
                positions[name] = entries[-1][0].decode()
                shard = self._shard_of_stream[name]
                for eid, fields in entries:
                    changes.append(Change(shard, eid.decode(), fields[b"game"].decode(), int(fields[b"seq"])))
            if changes:
                await self._fan_out(changes)

    async def _tails(self) -> dict[str, str]:
        async with self.client.pipeline(transaction=False) as pipe:
            for name in self._shard_of_stream:
                pipe.xrevrange(name, count=1)
            lasts = await pipe.execute()
        return {name: (last[0][0].decode() if last else "0-0") for name, last in zip(self._shard_of_stream, lasts)}

    async def _on_error(self, error: Exception) -> None:
        log.warning("change_hub_read_failed", error=str(error))

    async def _fan_out(self, changes: list[Change]) -> None:
        # Per game, only the newest change of the batch matters (the body is the whole state).
        newest = {c.game_id: c for c in changes}
        wanted = [c for g, c in newest.items() if self._subs.get(g) or self._subs.get(None)]
        if not wanted:
            return
        async with self.client.pipeline(transaction=False) as pipe:
            for change in wanted:
                pipe.hgetall(self.keys.projection(change.game_id))
            raws = await pipe.execute()
        for change, raw in zip(wanted, raws):
            delivery = Delivery(change, self.render(change.game_id, _decode(raw)) if raw else None)
            for sub in (*self._subs.get(change.game_id, ()), *self._subs.get(None, ())):
                sub.offer(delivery)


def _decode(raw: dict[bytes, bytes]) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in raw.items()}
