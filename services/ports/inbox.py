"""The inbox queue port: one inbox stream read by a consumer group (group `ingest`).

An entry is an id (bytes, stream order: `<ms>-<n>`) and its field map (`data`, `token`, ...;
bytes to bytes, as the stream holds it). Entries are delivered to a consumer (a replica's
name), stay pending with it until acked, and may be claimed by another consumer. Which game an
entry belongs to is the door's knowledge (`game_of`, given to the adapter when it is built).

Implementations: `services.adapters.redis.inbox.RedisInboxQueue` (a Redis stream and its
consumer group), `services.adapters.memory.inbox.MemoryInboxQueue`; one contract suite
(`tests/ports/test_inbox_queue.py`). Dead letters have their own port
(`services.ports.deadletters`, `put_once`). Errors: the ports' `StoreError` /
`StoreUnavailable` (`services.ports.errors`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Collection, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

GROUP = "ingest"
"""The inbox streams' consumer group (every stream's; FastStream's subscribers read in it)."""

Fields = dict[bytes, bytes]
"""An entry's fields as the stream holds them."""

GameOf = Callable[[Fields], str | None]
"""The game an entry names (None: none readable)."""


@dataclass(frozen=True, slots=True)
class Held:
    """A pending entry older than the one asked about, and the consumer holding it."""

    entry_id: bytes
    consumer: str


class StreamHealth(Enum):
    """What `InboxQueue.guard` found: the stream readable (`OK`), its group gone and
    re-created at 0 (`LOST`: a `DEL`, a reset), its ids exhausted and entries still pending
    (`EXHAUSTED`: `XADD *` fails until they are settled), or exhausted and renewed
    (`RENEWED`: deleted and re-created with the group at 0, nothing pending lost)."""

    OK = "ok"
    LOST = "lost"
    EXHAUSTED = "exhausted"
    RENEWED = "renewed"


class InboxNames(Protocol):
    """The inbox streams' names a door needs: `inbox`, the shared stream every integration may
    add to (an integration's own stream is named after it). The Redis key layout is one."""

    @property
    def inbox(self) -> str: ...

    def integration_inbox(self, name: str) -> str:
        """The inbox stream of the integration `name`."""
        ...


class InboxQueue(Protocol):
    """One inbox stream and its consumer group (see the module docstring)."""

    stream: str
    """The stream's name (a dead letter names it for an integration's stream)."""

    def sibling(self, stream: str) -> InboxQueue:
        """The same store's queue of another stream (an integration's own)."""
        ...

    async def ensure_group(self) -> None:
        """Create the group at the stream's start (entries added before count), idempotent."""
        ...

    async def add(self, entries: Sequence[Fields]) -> list[bytes]:
        """Append entries (ids `*`); their new ids, in order (writers, tests, the simulator)."""
        ...

    async def read_new(self, consumer: str, count: int) -> list[tuple[bytes, Fields]]:
        """Deliver up to `count` entries never delivered to any consumer, to `consumer` (they
        are pending with it until acked). Empty when there are none (never waits)."""
        ...

    async def pending_older(
        self, game: str, entry_id: bytes, settled: Collection[bytes]
    ) -> list[Held]:
        """The pending entries of `game` older than `entry_id`, but for those in `settled`
        (decided by the caller, not acked yet), oldest first; empty without a group."""
        ...

    async def ack(self, ids: Sequence[bytes], delete: Sequence[bytes] = ()) -> None:
        """Settle `ids` (no longer pending); entries of `delete` (settled ones among `ids`)
        are also removed at once, not kept for retention: an oversized entry's bytes, an
        entry that may name a player (docs/forget.md). Removed before they are acked, so an
        interrupted call leaves them pending without fields (a claim settles them:
        `own_orphans`), never kept."""
        ...

    async def hold(self, consumer: str, ids: Sequence[bytes]) -> None:
        """Keep `ids` pending with `consumer` and make them fresh (idle 0), so no claim by
        idle time takes them from a live consumer that waits on them."""
        ...

    def own_orphans(
        self, consumer: str, idle_ms: int, count: int, skip: Collection[bytes]
    ) -> AsyncIterator[list[tuple[bytes, Fields]]]:
        """The entries pending with `consumer` itself and idle at least `idle_ms` ms (0: any),
        taken again for it (idle reset), page by page (`count` ids a page, oldest first), but for
        the ids in `skip` (read again before each page: entries a task of the caller works
        on). One deleted while pending is settled (acked) and not returned."""
        ...

    async def claim_idle(
        self, consumer: str, idle_ms: int, count: int
    ) -> list[tuple[bytes, Fields]]:
        """Take for `consumer` every entry pending with any consumer and idle at least
        `idle_ms` ms (a dead consumer's), `count` at a time, in one pass; the entries taken."""
        ...

    async def drop_idle_consumers(self, keep: str, idle_ms: int) -> int:
        """Forget consumers other than `keep` with nothing pending, idle at least `idle_ms` ms
        (replicas gone for good; "at least", as XAUTOCLAIM's idle); how many."""
        ...

    async def trim(self, keep_s: float, now_ms: int, max_len: int | None) -> int:
        """Remove settled entries older than `keep_s` seconds before `now_ms` (and, past
        `max_len` entries, the oldest settled ones at once); how many. Pending entries stay."""
        ...

    async def guard(self) -> StreamHealth:
        """Keep the stream readable: re-create a lost group at 0, renew an exhausted stream
        once nothing is pending (see `StreamHealth`)."""
        ...
