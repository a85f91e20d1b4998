"""The change hub: one shared reader of the projector's "standings changed" streams per process,
fanning each change out to in-memory subscriber queues.

One task runs `XREAD BLOCK` over every `Keys.changes(shard)` stream (fields `game`, `seq`),
reads each changed game's projection HASH once per batch, and puts a `Delivery` on the queue of
every subscriber of that game and of every "all games" subscriber. So N browsers cost N
queues, not N Redis connections. A slow subscriber's queue drops its oldest delivery: a
delivery carries the whole current state, so only the newest matters. When the reader has
failed for `down_after_s` (Redis unreachable through its retries), every open subscription is
told (`Subscription.get` raises `StorageDown`) so its stream ends cleanly and the browser
reconnects, resuming with `Last-Event-ID` once Redis is back; the reader keeps retrying.
Source: issue brief (live push); research/anchors.md §3 (SSE id = stream entry id).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import json
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import structlog
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.fanout import xread_streams
from services.keys import Keys, shard_of

log = structlog.get_logger(__name__)

Render = Callable[[str, dict[str, str]], Any]
"""(game_id, projection HASH as str -> str) -> the game's `Rendered` body and its JSON text
(or only the JSON-ready body, serialized by the hub)."""


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
    """What a subscriber receives: the change, the game's rendered projection (`body`, None if
    the projection HASH is gone), `body_json`, the body serialized once for all subscribers,
    and the wire frames made from it (`frame`), each rendered once for all subscribers."""

    change: Change
    body: Any
    body_json: str
    frames: dict[str, bytes] = field(default_factory=dict, compare=False, repr=False)

    def frame(self, kind: str, render: Callable[[Delivery], bytes]) -> bytes:
        """The frame `kind` of this delivery: `render(self)` on the first call, then the same
        bytes for every other subscriber (the fan-out runs on one event loop: no lock)."""
        made = self.frames.get(kind)
        if made is None:
            made = self.frames[kind] = render(self)
        return made


class Signal(enum.Enum):
    """A queue item that is not a change: `PING`, the keep-alive of an idle subscription;
    `DOWN`, the hub's reader has lost Redis (wakes the subscriber: `get` raises)."""

    PING = "ping"
    DOWN = "down"


class StorageDown(RedisConnectionError):
    """The change hub cannot read Redis (a `redis.ConnectionError`, so the SSE routes end
    the stream with their storage comment); the message is the reader's last error."""


@dataclass(frozen=True, slots=True)
class Rendered:
    """A game's rendered projection and its JSON text (serialized once, sent to every client)."""

    body: Any
    json: str


@dataclass(eq=False)
class Subscription:
    """One subscriber's queue; `game_id` None subscribes to every game."""

    game_id: str | None
    queue: asyncio.Queue[Delivery | Signal] = field(
        default_factory=lambda: asyncio.Queue(maxsize=64)
    )
    fault: str | None = None
    """Set with `Signal.DOWN`: the hub's reader error that ends this subscription."""

    def offer(self, item: Delivery | Signal) -> None:
        """Enqueue without waiting; when full, drop the oldest item first."""
        if self.queue.full():
            self.queue.get_nowait()
        self.queue.put_nowait(item)

    async def get(self) -> Delivery | Signal:
        """The next delivery, or `Signal.PING` after `ping_s` without one (waits).

        Raises: StorageDown: the hub's reader has lost Redis (`ChangeHub.down_after_s`)."""
        item = await self.queue.get()
        if self.fault is not None:
            raise StorageDown(self.fault)
        return item


class ChangeHub:
    """The per-process reader of all shard change streams.

    Args:
        client: `redis.asyncio.Redis` without `decode_responses`.
        keys: the deployment's key layout (its shard count sets the streams read).
        render: builds the pushed body from a game's projection HASH.
        block_ms: XREAD BLOCK timeout; the loop re-issues the read after it. Keep it well under
            the client's socket timeout (redis-py 8 defaults to 5 s), or the read times out.
        max_connect_reads: Redis reads made for connecting clients at once (redis-py's pool
            holds 100 connections and fails, rather than waits, beyond them).
        ping_s: every `ping_s` seconds each subscription with nothing queued gets
            `Signal.PING` (one timer for all: proxies drop idle streams).
        down_after_s: after the reader has failed for this long (its retries back off to
            2 s), open subscriptions end (`StorageDown`) and `fault` is set until a read works.
    """

    def __init__(
        self,
        client: RedisClient,
        keys: Keys,
        render: Render,
        block_ms: int = 2000,
        max_connect_reads: int = 16,
        ping_s: float = 15.0,
        down_after_s: float = 3.0,
        archived: Callable[[str], Awaitable[dict[str, str] | None]] | None = None,
    ) -> None:
        self.client = client
        # an archived game's projection fields (None: no archive), read when Redis has none
        self.archived = archived
        self.keys = keys
        self.render = render
        self.block_ms = block_ms
        self._subs: dict[str | None, set[Subscription]] = defaultdict(set)
        self._delivered: dict[str, str] = {}  # stream -> last entry id fanned out
        self._bodies: dict[str, Rendered] = {}  # watched game -> its latest rendered projection
        self._loading: dict[str, asyncio.Future[Rendered | None]] = {}
        self._reads = asyncio.Semaphore(max_connect_reads)
        self._shard_of_stream = {keys.changes(s): s for s in range(keys.shards)}
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self.ping_s = ping_s
        self._pulse: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        # A Redis blip must not end live push: retry the read forever, backing off to 2 s.
        self._retry = Retry(ExponentialBackoff(cap=2.0, base=0.05), retries=-1)
        self.down_after_s = down_after_s
        self._failing_since: float | None = None  # loop time of the first failed read
        self.fault: str | None = None
        """The reader's error once it has failed for `down_after_s` (None: reading)."""

    # --- lifecycle ---
    async def start(self, wait: bool = True) -> None:
        """Start the reader task; with `wait`, return once the stream positions are taken (so
        a change appended after `start` returns is delivered). An app starts it with
        `wait=False` (it must come up while Redis is down) and each stream awaits `ready`."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="change-hub")
            self._pulse = asyncio.create_task(self._pings(), name="change-hub-pings")
        if wait:
            await self._ready.wait()

    async def ready(self) -> None:
        """Wait until the reader has taken the stream positions."""
        await self._ready.wait()

    async def stop(self) -> None:
        """Cancel the reader and keep-alive tasks and wait for them. A cancellation that
        redis-py swallows mid-read (seen: the reader left `cancelling`, reading on) is
        repeated until the task ends; the reader also stops at its next turn."""
        self._stopping = True
        for task in (self._task, self._pulse):
            while task is not None and not task.done():
                task.cancel()
                await asyncio.wait({task}, timeout=0.1)
            if task is not None and not task.cancelled() and task.exception() is not None:
                log.warning("change_hub_task_failed", error=str(task.exception()))
        self._task = self._pulse = None
        self._stopping = False

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
                if game_id is not None:
                    self._bodies.pop(game_id, None)

    # --- reads for (re)connecting clients: from memory where possible, else bounded ---
    def position(self, game_id: str) -> str:
        """The last entry id of the game's shard stream that the hub has fanned out (`0-0` for
        none). Every change up to it is reflected in `current(game_id)`; every later one will
        reach a subscription opened before this call."""
        return self._delivered[self.keys.changes(shard_of(game_id, self.keys.shards))]

    @contextlib.asynccontextmanager
    async def limited(self) -> AsyncIterator[None]:
        """Hold one of the few slots for Redis reads made on a client's connect: a thousand
        browsers reconnecting at once queue here instead of exhausting the connection pool."""
        async with self._reads:
            yield

    async def changed_since(self, game_id: str, after_id: str, limit: int = 100_000) -> str | None:
        """The id of the game's newest change after `after_id` in its shard stream, or None.

        Raises:
            redis.ResponseError: `after_id` is not a stream id (callers treat it as absent).
        """
        stream = self.keys.changes(shard_of(game_id, self.keys.shards))
        async with self.limited():
            entries: Any = await self.client.xrange(stream, f"({after_id}", "+", count=limit)
        hits = [
            eid.decode() for eid, fields in entries if fields.get(b"game", b"").decode() == game_id
        ]
        return hits[-1] if hits else None

    async def current(self, game_id: str) -> Rendered | None:
        """The rendered projection of `game_id` (None if it has none yet): from the cache the
        fan-out keeps for watched games, else one Redis read shared by concurrent callers."""
        cached = self._bodies.get(game_id)
        if cached is not None:
            return cached
        loading = self._loading.get(game_id)
        if loading is None:
            loading = asyncio.ensure_future(self._load(game_id))
            self._loading[game_id] = loading
            loading.add_done_callback(lambda _: self._loading.pop(game_id, None))
        return await asyncio.shield(loading)

    async def _load(self, game_id: str) -> Rendered | None:
        async with self.limited():
            raw: Any = await self.client.hgetall(self.keys.projection(game_id))
        if not raw and self.archived is not None:
            fields = await self.archived(game_id)
            if fields is not None:  # archived: its final projection, never changed by fan-out
                raw = {k.encode(): v.encode() for k, v in fields.items()}
        if not raw:
            return None
        rendered = self._rendered(game_id, raw)
        if game_id in self._subs:  # a newer body stored by the fan-out meanwhile wins
            return self._bodies.setdefault(game_id, rendered)
        return rendered

    def _rendered(self, game_id: str, raw: dict[bytes, bytes]) -> Rendered:
        body = self.render(game_id, _decode(raw))
        if isinstance(body, Rendered):  # its text made by the render (passed through)
            return body
        return Rendered(body, json.dumps(body, ensure_ascii=False, separators=(",", ":")))

    # --- the reader ---
    async def _run(self) -> None:
        positions = await self._retry.call_with_retry(self._tails, self._on_error)
        self._delivered.update(positions)
        self._ready.set()
        while not self._stopping:
            reply: Any = await self._retry.call_with_retry(
                lambda: xread_streams(self.client, positions, block_ms=self.block_ms, count=1000),
                self._on_error,
            )
            self._failing_since = self.fault = None  # Redis answers again
            changes: list[Change] = []
            for stream, entries in reply or []:
                name = stream.decode()
                positions[name] = entries[-1][0].decode()
                shard = self._shard_of_stream[name]
                for eid, fields in entries:
                    changes.append(
                        Change(shard, eid.decode(), fields[b"game"].decode(), int(fields[b"seq"]))
                    )
            if changes:
                await self._fan_out(changes)
            self._delivered.update(positions)  # only after the fan-out: see `position`

    async def _tails(self) -> dict[str, str]:
        async with self.client.pipeline(transaction=False) as pipe:
            for name in self._shard_of_stream:
                pipe.xrevrange(name, count=1)
            lasts = await pipe.execute()
        return {
            name: (last[0][0].decode() if last else "0-0")
            for name, last in zip(self._shard_of_stream, lasts, strict=True)
        }

    async def _on_error(self, error: Exception) -> None:
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            # redis-py may turn a cancelled read into a ConnectionError (the cluster
            # pipeline does): stop instead of retrying, or `stop` waits forever.
            raise asyncio.CancelledError
        log.warning("change_hub_read_failed", error=str(error))
        now = asyncio.get_running_loop().time()
        if self._failing_since is None:
            self._failing_since = now
        elif self.fault is None and now - self._failing_since >= self.down_after_s:
            self._down(f"{type(error).__name__}: {error}")

    def _down(self, reason: str) -> None:
        """End every open subscription (their streams say so; browsers reconnect later)."""
        self.fault = reason
        log.warning("change_hub_down", error=reason, subscribers=self.subscriber_count)
        for subs in list(self._subs.values()):
            for sub in subs:
                sub.fault = reason
                sub.offer(Signal.DOWN)

    def check(self) -> None:
        """Raises: StorageDown: the reader has lost Redis (a new stream should not wait)."""
        if self.fault is not None:
            raise StorageDown(self.fault)

    async def _pings(self) -> None:
        while True:
            await asyncio.sleep(self.ping_s)
            for subs in list(self._subs.values()):
                for sub in subs:
                    if sub.queue.empty():  # never push a change out for a ping
                        sub.offer(Signal.PING)

    async def _fan_out(self, changes: list[Change]) -> None:
        # Per game, only the newest change of the batch matters (the body is the whole state).
        newest = {c.game_id: c for c in changes}
        wanted = [c for g, c in newest.items() if self._subs.get(g) or self._subs.get(None)]
        for game_id in newest.keys() - {c.game_id for c in wanted}:
            self._bodies.pop(game_id, None)  # unwatched: the cached body would go stale
        if not wanted:
            return
        async with self.client.pipeline(transaction=False) as pipe:
            for change in wanted:
                pipe.hgetall(self.keys.projection(change.game_id))
            raws = await pipe.execute()
        for change, raw in zip(wanted, raws, strict=True):
            # Rendered once per change; each subscriber gets the same Delivery (and frames).
            rendered = self._rendered(change.game_id, raw) if raw else Rendered(None, "null")
            if change.game_id in self._subs:
                self._bodies[change.game_id] = rendered
            delivery = Delivery(change, rendered.body, rendered.json)
            for sub in (*self._subs.get(change.game_id, ()), *self._subs.get(None, ())):
                sub.offer(delivery)


def _decode(raw: dict[bytes, bytes]) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in raw.items()}
