"""The projector door: a batch loop over the feeds of the shards this process holds, calling the
project use case.

Several projector processes share the shards: `ShardOwnership` (usecases/ownership.py)
gives each shard to one of them under a lease with a fencing token, and calls `acquire` /
`lose` here. The loop reads only the held shards' feeds:

* `acquire(lease)`: the shard's position is reloaded from its checkpoint (read after the lease
  was taken, so it includes every write of the former owner) and its writes are fenced with
  the lease's token. It waits until no apply is in flight, so an old batch never meets a new
  token.
* `lose(shard)` (renewal failed, shard reassigned, or a fenced write refused: `LeaseLost`): the
  shard's position and its games' cached states are dropped at once. The projections adapter
  keeps the old token, so a write still in flight is refused by the store once the lease is
  gone; the shard is written again only after a new `acquire`.

One read (`ShardFeeds.read`, waiting up to `block_ms`) reads every held feed after its
position; each shard's entries become one `Project.apply` call (one projection write), the
shards' calls running concurrently (on Redis their writes go as one pipeline), with the next
read riding along after a read that filled a shard's `batch` (`readahead.ReadAhead`). A batch
the appends projected is one write per shard (`Projections.advance`): on Redis a step is then
two round trips, its read and the shards' writes (docs/profiles/projector-round-trips.md). After a storage error the positions are reloaded
from the checkpoints and the cached states dropped, so the batch is read again: nothing is
lost and, the checkpoint moving in the same write, nothing is counted twice. No consumer
group: a catch-up subscription (docs/decisions/0004-projector-catch-up-subscription.md). Every store is reached through
ports (`ports.feeds`, `ports.leases`, `ports.projections`), built by `bootstrap.projecting`.

After a step whose every entry the appends had projected (its applies folded nothing: only
checkpoints moved), the next read waits `checkpoint_every_ms`, so one read and one advance
cover the appends meanwhile instead of one each: at one write request after another that pair
was about 150 µs of the 760 µs of service CPU a request (docs/profiles/projector-round-trips.md).
What the appends projected waits for nothing (they wrote the standings and notices); an
append not projected live (a writer with live projection off, a game the append could not
project) that lands during the wait is folded up to that much later; the checkpoint trails
the feed by that much more, which a restart folds again, as any batch after the checkpoint. A step that folded, or that filled a read (a catch-up), reads again at once.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field

import structlog

from services.doors.projector.meters import ShardMeters
from services.doors.projector.readahead import ReadAhead
from services.platform.metrics import FEED_MALFORMED, PROJECTOR_LAG
from services.ports.errors import LeaseLost
from services.ports.feeds import FeedBatch, FeedTrimming, ShardFeeds
from services.ports.leases import FencedProjections, ShardLease
from services.ports.projections import feed_id_key
from services.ports.shards import shard_of
from services.runtime.gctune import CATCH_UP
from services.usecases.ownership import ShardOwnership
from services.usecases.project import Project

log = structlog.get_logger("projector")


@dataclass(eq=False, slots=True)
class ProjectorLoop:
    """Reads the feeds of the shards it holds and applies them (module docstring).

    Args:
        feeds: the shard feeds.
        shards: how many shards there are.
        project: the project use case (its state cache is dropped per shard on a loss).
        projections: the projections (checkpoints; writes fenced per held lease).
        batch: most entries per shard per read.
        block_ms: longest wait of a read; on Redis keep it under the client's socket timeout.
        checkpoint_every_ms: the wait before the next read after a step that only moved
            checkpoints (module docstring); 0: read again at once.
        retention: feed trimming after checkpoint advances, and the resume point of a shard
            whose feed was trimmed past its checkpoint (None: feeds are never trimmed).
    """

    feeds: ShardFeeds
    shards: int
    project: Project
    projections: FencedProjections
    batch: int = 500
    block_ms: int = 1000
    retention: FeedTrimming | None = None
    checkpoint_every_ms: int = 0
    # shard -> last feed id read, held shards only
    positions: dict[int, str] = field(init=False, default_factory=dict)
    held: dict[int, ShardLease] = field(init=False, default_factory=dict)
    _epoch: dict[int, int] = field(init=False)
    # one apply at a time vs `acquire`
    _applying: asyncio.Lock = field(init=False, default_factory=asyncio.Lock)
    # a shard was acquired: stop idling
    _changed: asyncio.Event = field(init=False, default_factory=asyncio.Event)
    # per held shard: labels() looked up once
    _meters: dict[int, ShardMeters] = field(init=False, default_factory=dict)
    _ahead: ReadAhead = field(init=False)
    # set before cancelling `run`: a cancel a client turned into an error (redis-py may) must
    # not keep the loop going
    stopping: bool = field(init=False, default=False)
    # the last step read entries, folded none of them and did not fill a read
    _advanced_only: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        self._epoch = dict.fromkeys(range(self.shards), 0)
        self._ahead = ReadAhead(self.feeds, self.batch)

    async def acquire(self, lease: ShardLease) -> None:
        """Start reading `lease.shard` from its checkpoint, its writes fenced by the lease.

        Raises: storage errors reading the checkpoint (the caller gives the lease back)."""
        shard = lease.shard
        async with self._applying:
            self._epoch[shard] += 1
            self._forget_games(shard)
            self.projections.hold_lease(lease)
            position = await self._resume(shard, await self.projections.checkpoint(shard))
            self.positions[shard] = position
            self.held[shard] = lease
        self._changed.set()
        log.info("projector.shard_acquired", shard=shard, fence=lease.fence, position=position)

    async def lose(self, shard: int) -> None:
        """Stop reading `shard` now: drop its position and its games' cached states (no await:
        nothing of the shard runs after this returns, except a write already sent, which the
        old token fences). Idempotent."""
        self._epoch[shard] += 1
        lease = self.held.pop(shard, None)
        self.positions.pop(shard, None)
        self._forget_games(shard)
        self._meters.pop(shard, None)
        with suppress(KeyError):
            PROJECTOR_LAG.remove(str(shard))
        if lease is not None:
            log.info("projector.shard_lost", shard=shard, fence=lease.fence)

    def _forget_games(self, shard: int) -> None:
        views = self.project.views
        if self.stopping:  # every shard is being given back: one clear, not a walk per shard
            views.clear()
            return
        for game_id in views.kept_keys():
            if shard_of(game_id, self.shards) == shard:
                views.drop(game_id)

    async def _reload(self) -> None:
        async with self._applying:
            for shard in list(self.held):
                epoch = self._epoch[shard]
                position = await self._resume(shard, await self.projections.checkpoint(shard))
                if self._epoch[shard] == epoch:  # not lost (or re-taken) meanwhile
                    self.positions[shard] = position

    async def _resume(self, shard: int, checkpoint: str) -> str:
        """Where to read `shard` from: its checkpoint, unless its feed was trimmed and it has
        none (a rebuild): then its games are refolded from their streams first."""
        if self.retention is None:
            return checkpoint
        resumed = await self.retention.resume(shard, checkpoint)
        if resumed != checkpoint:
            self._forget_games(shard)
        return resumed

    async def _idle(self, ms: int) -> None:
        """Wait `ms` milliseconds, or less when a shard is acquired meanwhile."""
        self._changed.clear()
        with suppress(TimeoutError):
            async with asyncio.timeout(ms / 1000):
                await self._changed.wait()

    async def step(self) -> int:
        """One read of the held feeds and its applies; returns the events applied."""
        if not self.positions:
            CATCH_UP.read(False)  # nothing held: nothing to catch up on, the collector runs
            await self._idle(self.block_ms)
            return 0
        positions = dict(self.positions)
        epochs = {s: self._epoch[s] for s in positions}
        batches = await self._ahead.reply(positions)
        if not batches:
            batches = await self.feeds.read(positions, self.batch, self.block_ms)
        full = any(b.size >= self.batch for b in batches)
        CATCH_UP.read(full)
        self._advanced_only = False
        if not batches:
            return 0
        async with self._applying:
            # The shards' applies run together (their games are disjoint): on Redis their
            # writes go out in one pipeline (`ScriptCoalescer`) instead of queueing one after
            # another; under CPU contention each round trip waits for Redis to be scheduled
            # (docs/decisions/0012-hot-reads-and-off-loop-replays.md: p99 860 ms at 1,000 events/s, projector 34%).
            applies = asyncio.gather(
                *(
                    self._apply(b, epochs[b.shard])
                    for b in batches
                    if self._epoch[b.shard] == epochs[b.shard]  # still held, not re-taken
                ),
                return_exceptions=True,
            )
            if full:  # more is waiting: read it with this batch's writes (`ReadAhead`)
                self._ahead.queue({**positions, **{b.shard: b.last_id for b in batches}})
            done = await applies
        for outcome in done:  # every apply ended: the first failure is the step's
            if isinstance(outcome, BaseException):
                raise outcome
        applied = sum(n for n in done if isinstance(n, int))
        self._advanced_only = not full and applied == 0
        return applied

    async def _apply(self, batch: FeedBatch, epoch: int) -> int:
        started = time.perf_counter()
        shard = batch.shard
        try:
            result = await self.project.apply(shard, batch.entries, batch.malformed, batch.live)
        except LeaseLost as lost:
            log.warning("projector.write_fenced", shard=shard, why=lost.why)
            await self.lose(shard)
            return 0
        # Counted as soon as the apply has committed, before any other await: a stop or a
        # lost lease after this point must not leave applied entries and letters uncounted.
        meters = self._meters.get(shard) or self._meters.setdefault(shard, ShardMeters.of(shard))
        meters.applied.inc(result.events)
        for rule in result.malformed:
            FEED_MALFORMED.labels(shard=str(shard), rule=rule).inc()
        meters.latency.observe(time.perf_counter() - started)
        meters.lag.set(max(0.0, time.time() - feed_id_key(batch.last_id)[0] / 1000))
        if self._epoch[shard] != epoch:  # lost during the apply: drop what it cached
            self._forget_games(shard)
            return 0
        last_id = batch.last_id
        self.positions[shard] = last_id
        if self.retention is not None and result.last_feed_id is not None:
            # at most once per `every_s`; behind the checkpoint just written, not read again
            await self.retention.advanced(shard, result.last_feed_id)
            if self._epoch[shard] != epoch:  # lost during the trim: `lose` dropped the rest
                return result.events
        return result.events

    async def run(self) -> None:
        """Loop until cancelled; a failed step is logged and the loop resumes from the
        checkpoints after a short back-off (up to 2 s). A bad event never stops it."""
        delay = 0.05
        ready = True  # `acquire` read the positions
        while not self.stopping:
            try:
                if not ready:
                    await self._reload()
                    ready = True
                await self.step()
                delay = 0.05
                if self._advanced_only and self.checkpoint_every_ms > 0:
                    await self._idle(self.checkpoint_every_ms)
            except Exception as error:  # storage down, or a bug: retried from the checkpoints
                level = log.warning if isinstance(error, OSError) else log.exception  # transient
                # (`StoreUnavailable` is an OSError) or a bug
                level("projector.batch_failed", error=f"{type(error).__name__}: {error}")
                self.project.forget()
                self._ahead.drop()  # read before the failure: read again from the checkpoints
                CATCH_UP.read(False)  # a failed read catches nothing up: the collector runs
                ready = False
                await asyncio.sleep(delay)
                delay = min(2.0, delay * 2)


class StartupFailed(RuntimeError):
    """The projector could not start (the store unreachable, refused credentials, a script
    Redis would not load, or no answer within the start-up time); the message says which."""


@asynccontextmanager
async def running(
    loop: ProjectorLoop, ownership: ShardOwnership, start_timeout_s: float = 10.0
) -> AsyncIterator[ProjectorLoop]:
    """Run `loop` over the shards `ownership` gives it for the block's duration.

    Start-up, all within `start_timeout_s`: fenced writes ready (`FencedProjections.prepare`:
    on Redis the projection script loaded), this process a
    member, its first shards' leases taken and their checkpoints read (`ownership.start`).
    At exit the loop stops and every lease is released, so the others take over at once.

    Raises:
        StartupFailed: any start-up failure, with its cause; nothing keeps running.
    """
    try:
        async with asyncio.timeout(start_timeout_s):
            await loop.projections.prepare()  # refused scripts fail here
            await ownership.start()
    except Exception as error:
        await _stop(ownership, timeout_s=1.0, quiet=True)  # give back what it took, if it can
        why = (
            "no answer from Redis"  # (or the store in use)
            if isinstance(error, TimeoutError)
            else f"{type(error).__name__}: {error}"
        )
        raise StartupFailed(
            f"projector start-up failed within {start_timeout_s:g} s: {why}"
        ) from error
    loop.stopping = False
    task = asyncio.create_task(loop.run(), name="projector")
    try:
        yield loop
    finally:
        loop.stopping = True
        task.cancel()
        with suppress(asyncio.CancelledError, TimeoutError):
            await asyncio.wait_for(task, timeout=5.0)
        await _stop(ownership, timeout_s=5.0)


async def _stop(ownership: ShardOwnership, timeout_s: float, quiet: bool = False) -> None:
    try:
        async with asyncio.timeout(timeout_s):
            await ownership.stop()
    except Exception as error:  # the store gone: the leases expire on their own
        (log.debug if quiet else log.info)(
            "projector.release_failed", owner=ownership.leases.owner, error=repr(error)
        )
