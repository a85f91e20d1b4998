"""The reclaimer of an inbox stream: it settles pending entries no live consumer works on,
through the `InboxQueue` port (the order check's "is an older entry of this game pending?"
is the port's `pending_older`). One per stream: the shared inbox and each integration's own
(made by `services.usecases.inbox.consumer.InboxConsumer`) have one each.

* `drain`, at start-up before the consumer reads: settle the consumer's own pending entries (a
  previous process of the same consumer name died holding them). FastStream does not: a
  subscriber reading `>` never sees its own PEL again, and one reading `0` never reads new
  entries (docs/decisions/0006-inbox-consumer-group.md, measured on 0.7.8).
* `once`, every `every_s`: settle its own pending entries that nothing in this process works on,
  idle `ORPHAN_IDLE_MS` (a read whose reply was lost in a Redis restart); with `claim_others`,
  take entries idle `claim_idle_ms` in any consumer's PEL (a dead replica's: `claim_idle`);
  every 60th pass, drop consumers with nothing pending idle ten claim periods (names of
  replicas gone for good). The inbox app leaves `claim_others` to FastStream's own claiming
  subscriber (`StreamSub(..., min_idle_time=)`, XAUTOCLAIM) and keeps the rest here.
Re-delivery is harmless: appends are idempotent by event id, dead letters are written once per
entry id. Source: docs/decisions/0011-faults-are-answered-not-crashed.md; docs/decisions/0006-inbox-consumer-group.md (stranded PELs, XAUTOCLAIM).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection
from dataclasses import KW_ONLY, dataclass, field

import structlog

from services.ports.inbox import Fields, InboxQueue
from services.runtime.cancel import raise_if_stop_requested

log = structlog.get_logger("inbox")

ORPHAN_IDLE_MS = 2000
"""An own pending entry idle this long that no task of this process works on is an orphan."""

Settle = Callable[[list[bytes], list[Fields]], Awaitable[None]]


@dataclass(eq=False, slots=True)
class Reclaimer:
    """Settles pending entries no live consumer works on (see the module docstring).

    Args:
        queue: the stream's `InboxQueue`.
        settle: the inbox's `process` for a list of (id, fields), acking what it settles.
        in_flight: entry ids this process is working on right now (never taken again).
        claim_others: also take other consumers' idle entries (off where FastStream's claiming
            subscriber does it).
    """

    queue: InboxQueue
    consumer: str
    settle: Settle
    in_flight: Collection[bytes]
    _: KW_ONLY
    claim_idle_ms: int
    count: int
    every_s: float = 1.0
    claim_others: bool = True
    stream: str = field(init=False)
    _passes: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        self.stream = self.queue.stream

    async def run(self) -> None:
        """Reclaim forever (a failed pass is logged and tried again `every_s` later)."""
        while True:
            try:
                await self.once()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                raise_if_stop_requested(error)
                log.warning(
                    "inbox.reclaim_failed",
                    consumer=self.consumer,
                    inbox=self.stream,
                    error=repr(error),
                )
            raise_if_stop_requested()
            await asyncio.sleep(self.every_s)

    async def drain(self) -> int:
        """Settle every entry of this consumer's own PEL (at start-up, before it reads anything
        new: a previous process of the same name died holding them). Returns how many."""
        return await self._own_orphans(0)

    async def once(self) -> int:
        """One pass: own orphans, then (with `claim_others`) claimable entries of other
        consumers, then (every 60th pass) stale consumers dropped. Returns how many entries
        were settled."""
        self._passes += 1
        taken = await self._own_orphans(ORPHAN_IDLE_MS)
        if self.claim_others:
            claimed = await self.queue.claim_idle(self.consumer, self.claim_idle_ms, self.count)
            taken += await self._settle(claimed)
        if self._passes % 60 == 1:
            await self.queue.drop_idle_consumers(self.consumer, 10 * self.claim_idle_ms)
        return taken

    async def _own_orphans(self, idle_ms: int) -> int:
        taken = 0
        pages = self.queue.own_orphans(self.consumer, idle_ms, self.count, self.in_flight)
        async for page in pages:
            taken += await self._settle(page)
        return taken

    async def _settle(self, claimed: list[tuple[bytes, Fields]]) -> int:
        entries = [(i, f) for i, f in claimed if i not in self.in_flight]
        if entries:
            log.info(
                "inbox.reclaimed", consumer=self.consumer, inbox=self.stream, entries=len(entries)
            )
            await self.settle([i for i, _ in entries], [f for _, f in entries])
        return len(entries)
