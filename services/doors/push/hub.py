"""The change hub: one shared reader of the projector's change notices per process, fanning
each change out to in-memory subscriber queues.

One task follows every shard's notices through the use case `LiveChanges`
(`services.usecases.live_changes`; waiting up to `block_ms`; on Redis one `XREAD BLOCK` over the
`Keys.changes(shard)` streams), reads each changed game's projection fields once per batch, and
puts a `Delivery` on
the queue of every subscriber of that game and of every "all games" subscriber. So N browsers
cost N queues, not N store connections. A slow subscriber's queue drops its oldest delivery: a
delivery carries the whole current state, so only the newest matters. A read that fails
(`StoreUnavailable`) is retried forever, backing off to 2 s; when the reader has failed for
`down_after_s`, every open subscription is told (`Subscription.get` raises `StorageDown`) so
its stream ends cleanly and the browser reconnects, resuming with `Last-Event-ID` once the
store is back. With no subscription open the reader reads nothing: it waits for the first
one, then takes the shards' positions again before that subscription goes on (`subscribe`),
so a process nobody watches (an ingest, a projector beside it) spends nothing per change
(docs/profiles/hot-path-profiles.md). Source: issue brief (live push); docs/decisions/0018-observability-at-the-edges.md (SSE id = notice id).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import json
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import InitVar, dataclass, field
from typing import Any, TypeVar

import structlog

from services.ports.errors import StoreUnavailable
from services.ports.notices import Notice
from services.usecases.live_changes import LiveChanges

log = structlog.get_logger(__name__)

_T = TypeVar("_T")

Render = Callable[[str, dict[str, str]], Any]
"""(game_id, projection fields, str -> str) -> the game's `Rendered` body and its JSON text
(or only the JSON-ready body, serialized by the hub)."""


def entry_key(entry_id: str) -> tuple[int, int]:
    """A stream entry id `ms-seq` as a sortable pair (ids of one stream only)."""
    ms, _, seq = entry_id.partition("-")
    return int(ms), int(seq or 0)


@dataclass(frozen=True, slots=True)
class Delivery:
    """What a subscriber receives: the change (the notice that `game_id` is projected at
    `seq`), the game's rendered projection (`body`, None if
    the projection is gone), `body_json`, the body serialized once for all subscribers,
    and the wire frames made from it (`frame`), each rendered once for all subscribers."""

    change: Notice
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
    `DOWN`, the hub's reader has lost its store (wakes the subscriber: `get` raises)."""

    PING = "ping"
    DOWN = "down"


class StorageDown(StoreUnavailable):
    """The change hub cannot read its store (a `StoreUnavailable`, so the SSE routes end the
    stream with their storage comment); the message is the reader's last error, `reason` its
    reason."""


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
    reason: str = "the store is unreachable"
    """The fault's reason (`StoreUnavailable.reason`)."""

    def offer(self, item: Delivery | Signal) -> None:
        """Enqueue without waiting; when full, drop the oldest item first."""
        if self.queue.full():
            self.queue.get_nowait()
        self.queue.put_nowait(item)

    async def get(self) -> Delivery | Signal:
        """The next delivery, or `Signal.PING` after `ping_s` without one (waits).

        Raises: StorageDown: the hub's reader has lost its store (`ChangeHub.down_after_s`)."""
        item = await self.queue.get()
        if self.fault is not None:
            raise StorageDown(self.fault, self.reason)
        return item


@dataclass(eq=False, slots=True)
class ChangeHub:
    """The per-process reader of all shards' change notices.

    Args:
        changes: the change notices of every shard and the games' projection fields (stored,
            else archived: what `render` reads).
        render: builds the pushed body from a game's projection fields.
        block_ms: longest wait of a notices read; the loop reads again after it. On Redis keep
            it well under the client's socket timeout (redis-py 8 defaults to 5 s).
        max_connect_reads: store reads made for connecting clients at once (redis-py's pool
            holds 100 connections and fails, rather than waits, beyond them).
        ping_s: every `ping_s` seconds each subscription with nothing queued gets
            `Signal.PING` (one timer for all: proxies drop idle streams).
        down_after_s: after the reader has failed for this long (its retries back off to
            2 s), open subscriptions end (`StorageDown`) and `fault` is set until a read works.
        resume_s: longest a new subscription waits for an idle reader to take the shards'
            positions again (then `StoreUnavailable`).
    """

    changes: LiveChanges
    render: Render
    block_ms: int = 2000
    max_connect_reads: InitVar[int] = 16
    ping_s: float = 15.0
    down_after_s: float = 3.0
    resume_s: float = 5.0
    _subs: dict[str | None, set[Subscription]] = field(
        init=False, default_factory=lambda: defaultdict(set)
    )
    # shard -> last notice id fanned out
    _delivered: dict[int, str] = field(init=False, default_factory=dict)
    # watched game -> its latest rendered projection
    _bodies: dict[str, Rendered] = field(init=False, default_factory=dict)
    _loading: dict[str, asyncio.Future[Rendered | None]] = field(init=False, default_factory=dict)
    _reads: asyncio.Semaphore = field(init=False)
    _task: asyncio.Task[None] | None = field(init=False, default=None)
    _stopping: bool = field(init=False, default=False)
    _pulse: asyncio.Task[None] | None = field(init=False, default=None)
    _ready: asyncio.Event = field(init=False, default_factory=asyncio.Event)
    # set while the reader follows the notices (cleared while it idles: no subscription)
    _following: asyncio.Event = field(init=False, default_factory=asyncio.Event)
    # set by a subscription that finds the reader idle
    _wanted: asyncio.Event = field(init=False, default_factory=asyncio.Event)
    # loop time of the first failed read
    _failing_since: float | None = field(init=False, default=None)
    fault: str | None = field(init=False, default=None)
    """The reader's error once it has failed for `down_after_s` (None: reading)."""
    reason: str = field(init=False, default="the store is unreachable")
    """The reason of the reader's last failure (`StoreUnavailable.reason`)."""

    def __post_init__(self, max_connect_reads: int) -> None:
        self._reads = asyncio.Semaphore(max_connect_reads)

    # --- lifecycle ---
    async def start(self, wait: bool = True) -> None:
        """Start the reader task; with `wait`, return once the stream positions are taken (so
        a change appended after `start` returns is delivered). An app starts it with
        `wait=False` (it must come up while its store is down) and each stream awaits `ready`."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="change-hub")
            self._pulse = asyncio.create_task(self._pings(), name="change-hub-pings")
        if wait:
            await self._ready.wait()

    async def ready(self) -> None:
        """Wait until the reader has taken the stream positions."""
        await self._ready.wait()

    async def stop(self) -> None:
        """Cancel the reader and keep-alive tasks and wait for them. A cancellation that a
        client (redis-py) swallows mid-read (seen: the reader left `cancelling`, reading on) is
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
        """Subscribe to one game's changes (or every game's, with None) for the `with` block.
        An idle reader (no subscription before this one) is woken and has taken the shards'
        positions again when the block starts, so `position` holds as documented.

        Raises: StoreUnavailable: the idle reader could not read the positions within
        `resume_s`."""
        sub = Subscription(game_id)
        self._subs[game_id].add(sub)
        try:
            await self._followed()
            yield sub
        finally:
            self._subs[game_id].discard(sub)
            if not self._subs[game_id]:
                del self._subs[game_id]
                if game_id is not None:
                    self._bodies.pop(game_id, None)

    async def _followed(self) -> None:
        """Wait until the reader follows the notices (wake it when idle); see `subscribe`."""
        if self._task is None or self._following.is_set():
            return
        self._wanted.set()
        try:
            async with asyncio.timeout(self.resume_s):
                await self._following.wait()
        except TimeoutError:
            raise StoreUnavailable(
                "the change hub has not reached its store", self.reason
            ) from None

    # --- reads for (re)connecting clients: from memory where possible, else bounded ---
    def position(self, game_id: str) -> str:
        """The last notice id of the game's shard that the hub has fanned out (`0-0` for
        none). Every change up to it is reflected in `current(game_id)`; every later one will
        reach a subscription opened before this call."""
        return self._delivered[self.changes.shard_of(game_id)]

    @contextlib.asynccontextmanager
    async def limited(self) -> AsyncIterator[None]:
        """Hold one of the few slots for store reads made on a client's connect: a thousand
        browsers reconnecting at once queue here instead of exhausting the connection pool."""
        async with self._reads:
            yield

    async def changed_since(self, game_id: str, after_id: str, limit: int = 100_000) -> str | None:
        """The id of the game's newest change among the first `limit` notices of its shard
        after `after_id`, or None.

        Raises:
            ValueError: `after_id` is not a notice id (callers treat it as absent).
            StoreUnavailable: the store cannot answer now.
        """
        async with self.limited():
            notice = await self.changes.changed_since(game_id, after_id, limit)
        return notice.entry_id if notice is not None else None

    async def current(self, game_id: str) -> Rendered | None:
        """The rendered projection of `game_id` (None if it has none yet): from the cache the
        fan-out keeps for watched games, else one store read shared by concurrent callers."""
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
            raw = (await self.changes.fields([game_id]))[0]
        if not raw:
            fields = await self.changes.archived(game_id)
            if fields is not None:  # archived: its final projection, never changed by fan-out
                raw = fields
        if not raw:
            return None
        rendered = self._rendered(game_id, raw)
        if game_id in self._subs:  # a newer body stored by the fan-out meanwhile wins
            return self._bodies.setdefault(game_id, rendered)
        return rendered

    def _rendered(self, game_id: str, raw: dict[str, str]) -> Rendered:
        body = self.render(game_id, raw)
        if isinstance(body, Rendered):  # its text made by the render (passed through)
            return body
        return Rendered(body, json.dumps(body, ensure_ascii=False, separators=(",", ":")))

    # --- the reader ---
    async def _retrying(self, call: Callable[[], Awaitable[_T]]) -> _T:
        """`call()` until it answers: a store blip must not end live push, so a
        `StoreUnavailable` is retried forever, backing off from 0.1 s to 2 s."""
        failures = 0
        while True:
            try:
                return await call()
            except StoreUnavailable as error:
                failures += 1
                await self._on_error(error)
                await asyncio.sleep(min(2.0, 0.05 * 2**failures))

    async def _run(self) -> None:
        positions = await self._retrying(self.changes.tails)
        self._delivered.update(positions)
        self._ready.set()
        self._following.set()
        while not self._stopping:
            if not self._subs:  # nobody to deliver to: read nothing until a subscription
                self._following.clear()
                self._wanted.clear()
                await self._wanted.wait()
                # what changed meanwhile reached nobody; a new subscription reads the store
                # after this (`current`), so the positions restart from the shards' tails
                positions.update(await self._retrying(self.changes.tails))
                # the store answers again: a fault declared while waking must not outlive
                # it (the reader may idle again at once, reading nothing that would clear it)
                self._failing_since = self.fault = None
                self._delivered.update(positions)
                self._following.set()
                continue
            notices = await self._retrying(
                lambda: self.changes.read(positions, count=1000, block_ms=self.block_ms)
            )
            self._failing_since = self.fault = None  # the store answers again
            for notice in notices:  # oldest first per shard: the last one is the position
                positions[notice.shard] = notice.entry_id
            if notices:
                await self._fan_out(notices)
            self._delivered.update(positions)  # only after the fan-out: see `position`

    async def _on_error(self, error: StoreUnavailable) -> None:
        task = asyncio.current_task()
        if (task is not None and task.cancelling()) or self._stopping:
            # redis-py may turn a cancelled read into a ConnectionError (the cluster
            # pipeline does): stop instead of retrying, or `stop` waits forever.
            raise asyncio.CancelledError
        log.warning("change_hub_read_failed", error=str(error))
        self.reason = error.reason
        now = asyncio.get_running_loop().time()
        if self._failing_since is None:
            self._failing_since = now
        elif self.fault is None and now - self._failing_since >= self.down_after_s:
            self._down(str(error))

    def _down(self, fault: str) -> None:
        """End every open subscription (their streams say so; browsers reconnect later)."""
        self.fault = fault
        log.warning("change_hub_down", error=fault, subscribers=self.subscriber_count)
        for subs in list(self._subs.values()):
            for sub in subs:
                sub.fault, sub.reason = fault, self.reason
                sub.offer(Signal.DOWN)

    def check(self) -> None:
        """Raises: StorageDown: the reader has lost its store (a new stream should not wait)."""
        if self.fault is not None:
            raise StorageDown(self.fault, self.reason)

    async def _pings(self) -> None:
        while True:
            await asyncio.sleep(self.ping_s)
            for subs in list(self._subs.values()):
                for sub in subs:
                    if sub.queue.empty():  # never push a change out for a ping
                        sub.offer(Signal.PING)

    async def _fan_out(self, changes: Sequence[Notice]) -> None:
        # Per game, only the newest change of the batch matters (the body is the whole state).
        newest = {c.game_id: c for c in changes}
        wanted = [c for g, c in newest.items() if self._subs.get(g) or self._subs.get(None)]
        for game_id in newest.keys() - {c.game_id for c in wanted}:
            self._bodies.pop(game_id, None)  # unwatched: the cached body would go stale
        if not wanted:
            return
        games = [change.game_id for change in wanted]
        raws = await self._retrying(lambda: self.changes.fields(games))
        for change, raw in zip(wanted, raws, strict=True):
            # Rendered once per change; each subscriber gets the same Delivery (and frames).
            rendered = self._rendered(change.game_id, raw) if raw else Rendered(None, "null")
            if change.game_id in self._subs:
                self._bodies[change.game_id] = rendered
            delivery = Delivery(change, rendered.body, rendered.json)
            for sub in (*self._subs.get(change.game_id, ()), *self._subs.get(None, ())):
                sub.offer(delivery)
