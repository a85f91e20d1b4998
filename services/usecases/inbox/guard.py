"""The inbox's stream guard use case: keeps each inbox stream readable while ingest runs: a stream deleted under it (an operator's
`DEL`, a reset) is detected, logged, counted and read again, with no restart.

FastStream (0.7.8) treats `NOGROUP` on its `XREADGROUP` as terminal: it logs, stops the
subscriber for good and asks the app to exit, which an app run with `async with` (ours, inside
`serve`) ignores, so the stream's entries would strand unread while the process looks healthy.
No FastStream option changes that, and patching its read loop would tie us to its internals;
instead a guard task per stream, beside the reclaimer, checks once a pass (`XINFO GROUPS`, one
command) that the group `ingest` exists and that the subscriber still runs. When either is not
so the use case re-creates the group at `0` (`Inbox.guard`, `MKSTREAM`: entries XADDed since the
delete are read, none skipped) and starts the subscriber again (`start()` is FastStream's own
start: it finds the group and reads with `>`). Nothing unprocessed is lost: a deleted stream's
entries are gone with it (the delete did that), and every entry added after it is read.

Logged `inbox.stream_lost` (warning) and counted in
`scoreledger_inbox_stream_recovered_total{inbox, why="deleted"}`.

The same pass renews an *exhausted* stream (its last id the largest possible, so every
`XADD *` fails; on Redis: `services.adapters.redis.exhausted`): once the group has settled all its
entries, the stream is deleted and re-created with the group at 0 in one script, and the
subscriber goes on reading it. Logged `inbox.stream_exhausted` when found (warning: its writers'
XADDs fail until it is drained) and `inbox.stream_renewed`; counted with `why="exhausted"`.
Source: Redis XINFO GROUPS, XGROUP CREATE MKSTREAM; FastStream
`redis/subscriber/usecases/stream_subscriber.py` (`_stop_on_terminal_error`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Protocol

import structlog

from services.platform.metrics import INBOX_STREAM_RECOVERED
from services.ports.inbox import StreamHealth
from services.usecases.inbox.settle import Inbox

log = structlog.get_logger("inbox")


class Subscriber(Protocol):
    """What the guard needs of a reader of the stream (the door's FastStream subscriber)."""

    running: bool

    async def start(self) -> None: ...


class StreamGuard:
    """Checks `door`'s stream and group every `every_s` seconds and recovers a lost one.

    Args:
        door: the stream's `Inbox` (its queue; `closing` stops it).
        subscribers: the stream's FastStream subscribers (each restarted when it stopped).
    """

    def __init__(
        self, door: Inbox, subscribers: Sequence[Subscriber], every_s: float = 1.0
    ) -> None:
        self.door = door
        self.subscribers = subscribers
        self.every_s = every_s
        self._waiting = False  # found exhausted, entries not all settled yet (logged once)

    async def run(self) -> None:
        """Check forever; a failed check (Redis away) is tried again `every_s` later."""
        while not self.door.closing:
            try:
                await self.check()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("inbox.guard_failed", inbox=self.door.stream, error=repr(error))
            await asyncio.sleep(self.every_s)

    async def check(self) -> bool:
        """One check; True when the stream was found lost or exhausted and has been
        recovered."""
        health = await self.door.guard()
        stopped = [s for s in self.subscribers if not s.running]
        if health is not StreamHealth.LOST and not stopped:
            return self._exhausted(health)
        if self.door.closing:
            return False
        log.warning(
            "inbox.stream_lost",
            inbox=self.door.stream,
            subscriber_running=not stopped,
            action="group re-created at 0, subscriber restarted",
        )
        INBOX_STREAM_RECOVERED.labels(inbox=self.door.stream, why="deleted").inc()
        for subscriber in stopped:
            await subscriber.start()
        return True

    def _exhausted(self, health: StreamHealth) -> bool:
        if health is StreamHealth.EXHAUSTED and not self._waiting:
            self._waiting = True
            log.warning(
                "inbox.stream_exhausted",
                inbox=self.door.stream,
                action="renewed once its entries are settled; XADD fails until then",
            )
        if health is not StreamHealth.RENEWED:
            return False
        self._waiting = False
        log.warning("inbox.stream_renewed", inbox=self.door.stream, why="exhausted")
        INBOX_STREAM_RECOVERED.labels(inbox=self.door.stream, why="exhausted").inc()
        return True
