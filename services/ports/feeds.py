"""The shard-feeds port: what the projector reads, one feed per shard, in append order.

Every append adds one entry per new event to its game's shard feed (`EventLog.append`); the
projector follows the feeds of the shards it holds from their checkpoints (a catch-up
subscription, docs/decisions/0004-projector-catch-up-subscription.md). Entry ids order within one feed only. A feed keeps the
entries its checkpoint has not passed; the applied ones are trimmed behind it (`FeedTrimming`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from services.ports.eventlog import FeedEntry, MalformedFeedEntry


@dataclass(frozen=True, slots=True)
class LiveRead:
    """What the projector needs of a read whose every entry is well-formed and flagged `live`
    (`FeedEntry.live`: its append projected the game): the first and last entries' feed ids
    and each game's highest seq in it (games in their first entry's order), the
    `usecases.projected.live_lasts` of its entries. Enough to move the checkpoint over
    entries the appends projected without a `FeedEntry` built
    (docs/profiles/projector-round-trips.md)."""

    first_id: str
    last_id: str
    lasts: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class FeedBatch:
    """Entries of shard `shard`'s feed read in one go: `last_id`, the id of the last one read
    (good or malformed: the position to read after next), the well-formed entries and the
    malformed ones (dead-lettered alone by `Project.apply`), each in feed order. `live`: the
    read's `LiveRead` when every entry is well-formed and live and the adapter saw it without
    building the entries (which it may then build only when iterated); None otherwise. It is
    derived from the entries, so not compared."""

    shard: int
    last_id: str
    entries: Sequence[FeedEntry] = field(default_factory=tuple)
    malformed: Sequence[MalformedFeedEntry] = field(default_factory=tuple)
    live: LiveRead | None = field(default=None, compare=False)

    @property
    def size(self) -> int:
        """Entries read, malformed ones included (to compare with a read's `count`)."""
        return len(self.entries) + len(self.malformed)


class ShardFeeds(Protocol):
    """Implementations: `adapters.redis.feeds.RedisShardFeeds`, `adapters.memory.feeds`."""

    async def read(self, after: Mapping[int, str], count: int, block_ms: int) -> list[FeedBatch]:
        """The entries after each shard's position in `after` (shard -> feed id), at most
        `count` per shard, only shards with entries; waits up to `block_ms` (0: not at all)
        for one when there is none, then returns [] (a Redis Cluster polls: it may answer []
        sooner; callers read again). Raises: `StoreUnavailable` (transient: read again)."""
        ...

    def read_soon(
        self, after: Mapping[int, str], count: int
    ) -> asyncio.Future[list[FeedBatch]] | None:
        """Start a read that does not wait, sent with the writes of this event-loop turn (no
        round trip of its own); None when the adapter has no such read. The future's
        exception, if any, needs no retrieval."""
        ...


Reseed = Callable[[int, str], Awaitable[Any]]
"""`usecases.reseed.Reseed.shard`: refold a shard from the game streams, checkpoint to an id."""


class ShardThrottle:
    """At most one go per shard within `every_s` seconds (`time.monotonic`): the trim interval
    both `FeedTrimming` implementations keep. A shard's first call always goes."""

    def __init__(self, every_s: float) -> None:
        self.every_s = every_s
        self._last: dict[int, float] = {}  # shard -> monotonic time of its last go

    def due(self, shard: int) -> bool:
        """True (and the time noted) when `shard` last went `every_s` or more seconds ago."""
        now = time.monotonic()
        if now - self._last.get(shard, -self.every_s) < self.every_s:
            return False
        self._last[shard] = now
        return True


class FeedTrimming(Protocol):
    """The projector's feed retention. Implementations: `adapters.redis.retention.FeedRetention`,
    `adapters.memory.feeds.MemoryFeedRetention` (both built with `keep_s`, `every_s` and a
    `Reseed`)."""

    async def advanced(self, shard: int, checkpoint: str | None = None) -> int:
        """After a checkpoint advance of `shard`: trim its feed behind the checkpoint (keeping
        `keep_s` of applied entries) unless trimmed within `every_s`; returns entries trimmed.
        `checkpoint`: one the caller wrote or saw stored (the stored one only moves forward,
        so trimming behind it is safe); None: the stored one is read."""
        ...

    async def resume(self, shard: int, checkpoint: str) -> str:
        """The position to read `shard`'s feed from: `checkpoint`; but a shard without one
        (a rebuild) whose feed was trimmed is first refolded from the game streams (`Reseed`)
        and read from just before the first entry its feed kept."""
        ...
