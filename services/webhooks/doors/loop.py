"""The webhooks role: one task follows the change notices (`Dispatcher.step`), one watches the
endpoints' queues and runs a sender per endpoint with deliveries pending (`Sender.drain`), so a
slow or failing receiver holds back only its own queue. A failed step (Redis away) is logged,
counted and retried after `poll_s`. Stopping lets a request in flight finish and be settled
(up to `grace_s`), ends every wait between retries, and leaves the other deliveries queued in
the store for the next start."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field

import structlog

from services.runtime.cancel import raise_if_stop_requested
from services.webhooks.doors.meters import ATTEMPTS, DELIVERIES, ERRORS, QUEUE_DEPTH, QUEUED
from services.webhooks.ports import Endpoint
from services.webhooks.usecases.deliver import Sender, Sent
from services.webhooks.usecases.dispatch import Dispatcher

log = structlog.get_logger("webhooks")


@dataclass(eq=False, slots=True)
class WebhooksLoop:
    """The role's tasks over `dispatcher` and `sender` (the endpoints' queues read through
    `Sender.queues`); `poll_s` bounds every wait, `grace_s` a stop's wait for requests in
    flight (the transport's timeout and a little)."""

    dispatcher: Dispatcher
    sender: Sender
    poll_s: float
    grace_s: float = 11.0
    wake: asyncio.Event = field(init=False, default_factory=asyncio.Event)
    senders: dict[str, asyncio.Task[None]] = field(init=False, default_factory=dict)
    _gauged: set[str] = field(init=False, default_factory=set)

    async def dispatch_forever(self) -> None:
        """Notices -> queued deliveries, until cancelled."""
        while True:
            try:
                done = await self.dispatcher.step(block_ms=int(self.poll_s * 1000))
            except Exception as error:  # Redis away, a script refused: logged, retried
                raise_if_stop_requested(error)
                ERRORS.labels(part="dispatch").inc()
                log.warning("webhooks.dispatch_failed", error=f"{type(error).__name__}: {error}")
                await asyncio.sleep(self.poll_s)
                continue
            raise_if_stop_requested()
            if done.queued:
                QUEUED.inc(done.queued)
                self.wake.set()
            for outcome, counts in (
                ("dropped", done.outcome.dropped),
                ("superseded", done.outcome.superseded),
            ):
                if counts:
                    DELIVERIES.labels(outcome=outcome).inc(sum(counts.values()))

    async def send_forever(self) -> None:
        """Start a sender for every endpoint with deliveries pending and none running."""
        while True:
            self.wake.clear()
            try:
                await self._start_senders()
            except Exception as error:
                raise_if_stop_requested(error)
                ERRORS.labels(part="send").inc()
                log.warning("webhooks.queues_failed", error=f"{type(error).__name__}: {error}")
            raise_if_stop_requested()
            with suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), self.poll_s)

    async def _start_senders(self) -> None:
        queues = await self.sender.queues()
        ids = {e.id for e, _ in queues}
        for gone in self._gauged - ids:
            QUEUE_DEPTH.remove(gone)
        self._gauged = ids
        for endpoint, depth in queues:
            QUEUE_DEPTH.labels(endpoint=endpoint.id).set(depth)
            running = self.senders.get(endpoint.id)
            if depth and (running is None or running.done()):
                self.senders[endpoint.id] = asyncio.create_task(
                    self._drain(endpoint), name=f"webhooks-{endpoint.id}"
                )

    async def _drain(self, endpoint: Endpoint) -> None:
        try:
            await self.sender.drain(endpoint, _count)
        except Exception as error:
            ERRORS.labels(part="send").inc()
            log.warning(
                "webhooks.send_failed",
                endpoint=endpoint.id,
                error=f"{type(error).__name__}: {error}",
            )


def _count(sent: Sent) -> None:
    ATTEMPTS.inc(sent.made)
    if sent.outcome is not None:
        DELIVERIES.labels(outcome=sent.outcome).inc()
    if sent.outcome == "failed":
        log.warning("webhooks.delivery_failed", status=sent.http_status, error=sent.error)


@asynccontextmanager
async def running(loop: WebhooksLoop) -> AsyncIterator[WebhooksLoop]:
    """Run `loop` for the block's duration: the dispatcher's checkpoint is read (or set, on its
    first start) before the block begins, so a start-up failure raises here."""
    await loop.dispatcher.start()
    tasks = [
        asyncio.create_task(loop.dispatch_forever(), name="webhooks-dispatch"),
        asyncio.create_task(loop.send_forever(), name="webhooks-send"),
    ]
    try:
        yield loop
    finally:
        loop.sender.stop()
        for task in tasks:
            task.cancel()
        senders = [t for t in loop.senders.values() if not t.done()]
        if senders:  # a request in flight finishes and is settled; waits end at once
            await asyncio.wait(senders, timeout=loop.grace_s)
        for task in [*tasks, *senders]:
            task.cancel()
            with suppress(asyncio.CancelledError, TimeoutError):
                await asyncio.wait_for(task, timeout=5.0)
