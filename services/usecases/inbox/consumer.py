"""The inbox consumer's life around what its door reads: one `Inbox` per inbox stream (the
shared `sl:inbox` first, then one per integration, `sl:inbox:<name>`), each with its
`Reclaimer` and `StreamGuard`; settling what the door's reader and claimer deliver; start-up
(groups created at `0`, own pending entries drained) and shutdown.

The door (`services.doors.ingest.inbox_app`) registers FastStream's reader and claimer of each
stream and hands every delivery to `InboxConsumer.read` / `InboxConsumer.claimed`; everything
else (which streams, in which order, reclaiming, guarding, the task lifetimes) is decided here.
Source: docs/decisions/0006-inbox-consumer-group.md; docs/decisions/0011-faults-are-answered-not-crashed.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from typing import Any

import structlog

from services.ports.inbox import Fields
from services.usecases.inbox.guard import StreamGuard, Subscriber
from services.usecases.inbox.reclaim import Reclaimer
from services.usecases.inbox.settle import ORDER_WAIT_S, Inbox

log = structlog.get_logger("inbox")


def default_consumer() -> str:
    """`ingest-<hostname>-<pid>`: the consumer name of a replica that sets none."""
    return f"ingest-{socket.gethostname()}-{os.getpid()}"


@dataclass(eq=False, slots=True)
class _Orphans:
    """A reclaimer's `settle`: the stream's `Inbox.process` for this consumer, not waiting on
    order (what it cannot decide yet stays pending for the next pass)."""

    door: Inbox
    consumer: str

    async def __call__(self, ids: list[bytes], entries: list[Fields]) -> None:
        await self.door.process(ids, entries, self.consumer, wait_s=0)


class InboxConsumer:
    """Consumer `name` of every inbox stream: `inbox`'s and one sibling per name of
    `integrations` (`streams`: (title, door), titles `inbox` and `inbox-<name>`).

    Args:
        claim_idle_ms: idle time after which an entry of another consumer is claimed (the
            door's claimer; the reclaimers settle only this consumer's own entries).
        batch: entries a reclaimer takes per page.
    """

    def __init__(
        self,
        inbox: Inbox,
        integrations: Sequence[str],
        name: str,
        *,
        claim_idle_ms: int,
        batch: int,
    ) -> None:
        self.name = name
        self.claim_idle_ms = claim_idle_ms
        self.streams: list[tuple[str, Inbox]] = [("inbox", inbox)]
        for integration in integrations:
            sibling = inbox.sibling(inbox.keys.integration_inbox(integration))
            self.streams.append((f"inbox-{integration}", sibling))
        self._reclaimers = [
            Reclaimer(
                door.queue,
                name,
                _Orphans(door, name),
                door.in_flight,
                claim_idle_ms=claim_idle_ms,
                count=batch,
                claim_others=False,  # the door's claiming subscriber does it
            )
            for _, door in self.streams
        ]
        self._guards: list[StreamGuard] = []
        self._tasks: list[asyncio.Task[None]] = []

    async def read(self, door: Inbox, ids: list[bytes], entries: list[Fields]) -> None:
        """Settle a delivery of new entries of `door`'s stream (waiting up to `ORDER_WAIT_S`
        for an older entry of a game held elsewhere). A failure is logged and raised: the
        entries stay pending for the reclaimer."""
        await self._settle(door, ids, entries, ORDER_WAIT_S)

    async def claimed(self, door: Inbox, ids: list[bytes], entries: list[Fields]) -> None:
        """Settle entries claimed from another consumer, not waiting on order; entries deleted
        while pending (no fields) and entries this process is settling are left alone."""
        fresh = [(i, f) for i, f in zip(ids, entries, strict=True) if f and i not in door.in_flight]
        if fresh:
            log.info("inbox.reclaimed", consumer=self.name, inbox=door.stream, entries=len(fresh))
            await self._settle(door, [i for i, _ in fresh], [f for _, f in fresh], 0)

    async def _settle(
        self, door: Inbox, ids: list[bytes], entries: list[Fields], wait_s: float
    ) -> None:
        try:
            await door.process(ids, entries, self.name, wait_s=wait_s)
        except Exception as error:
            log.error(
                "inbox.delivery_failed", consumer=self.name, inbox=door.stream, error=repr(error)
            )
            raise

    def watch(self, door: Inbox, readers: Sequence[Subscriber]) -> None:
        """Guard `door`'s stream, restarting `readers` (the door's subscribers) when they stop;
        the guard runs from `guard()` on."""
        self._guards.append(StreamGuard(door, readers))

    async def start(self) -> None:
        """Before the door reads: every stream's group created at `0` (entries sent before the
        first start count), every consumer's own pending entries drained (a previous process of
        this name died holding them), then the reclaimers run."""
        for _, door in self.streams:
            door.closing = False
            await door.ensure_group()
        log.info(
            "inbox.consumer",
            consumer=self.name,
            streams=len(self.streams),
            claim_idle_ms=self.claim_idle_ms,
        )
        for reclaimer in self._reclaimers:
            await reclaimer.drain()
        for reclaimer in self._reclaimers:
            self._run(reclaimer.run(), f"inbox-reclaim-{self.name}-{reclaimer.stream}")

    async def guard(self) -> None:
        """Start the stream guards: after the door's subscribers started (a guard started
        before would take a subscriber not started yet for a stopped one, and start it twice)."""
        for stream_guard in self._guards:
            self._run(stream_guard.run(), f"inbox-guard-{self.name}-{stream_guard.door.stream}")

    async def stop(self) -> None:
        """On shutdown: retries stop (undecided entries stay pending), every task cancelled."""
        for _, door in self.streams:
            door.closing = True
        while self._tasks:
            task = self._tasks.pop()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def _run(self, work: Coroutine[Any, Any, None], name: str) -> None:
        self._tasks.append(asyncio.create_task(work, name=name))
