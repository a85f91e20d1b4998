"""The inbox consumer as a FastStream app: per inbox stream a reading subscriber, a claiming
subscriber, a `Reclaimer` and a `StreamGuard`.

The streams: the shared `Keys.inbox` (`sl:inbox`), then `Keys.integration_inbox(name)`
(`sl:inbox:<name>`) for each name of `IngestSettings.inbox_integrations`, in that order. Each is
a key of its own (its own Redis Cluster slot), read by its own subscribers in the same group
`ingest` under the same consumer name, and settled by its own `Inbox` (`Inbox.sibling`): its
PEL, per-game order check, reclaimer and retention are its own, so a hostile integration's
`XADD ... MAXLEN 0` on its stream can touch no other stream. Source: docs/decisions/0019-hostile-input-at-every-door.md (hostile
integrations); docs/decisions/0011-faults-are-answered-not-crashed.md (consumer names, reclaiming).

What FastStream does here, and what it does not (0.7.8; docs/decisions/0006-inbox-consumer-group.md, measured):

* **Reading**: FastStream's subscriber (`StreamSub(group=, consumer=, batch=True)`) reads new
  entries (`XREADGROUP >`) and calls `Inbox.process`, which records each through the use case
  and settles it through the `InboxQueue` port.
* **Claiming a dead replica's entries**: FastStream's claiming subscriber (`StreamSub(...,
  min_idle_time=inbox_claim_idle_ms)`, XAUTOCLAIM, one entry per call) on the same group and
  consumer name; each claimed entry is settled like a read one (not waiting on order: what it
  cannot decide yet stays pending for the next claim). Entries this process is working on are
  skipped (left pending).
* **Acks are ours (`AckPolicy.MANUAL`)**: FastStream acks or leaves a batch pending as a whole
  (all ids in one XACK), while one delivery settles per entry and per game: settled entries are
  acked at once, entries waiting for an older one of their game stay pending (`Inbox`), and a
  refusal is dead-lettered before its ack. `REJECT_ON_ERROR` would leave the whole batch pending
  for one waiting entry; `ACK` would ack entries never settled.
* **Not FastStream's** (`Reclaimer`): draining a consumer's own PEL at start-up (a restart of the
  same consumer name never sees its pending entries again: reading `>` skips them, reading `0`
  never reads new ones), settling own entries orphaned by a lost reply (idle 2 s, sooner than a
  claim of another consumer's), dropping consumers gone for good; creating each group at `0`
  (FastStream creates it at `$`, missing entries sent before); and recovering a stream deleted
  under the group (FastStream stops the subscriber for good on `NOGROUP`: `StreamGuard`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from typing import Any

import structlog
from faststream import AckPolicy, FastStream
from faststream.redis import RedisBroker, RedisStreamMessage, StreamSub

from services.doors.ingest.inbox_entry import (
    INBOX_DESCRIPTION,
    INTEGRATION_INBOX_DESCRIPTION,
    keep_raw_parser,
)
from services.doors.ingest.inbox_guard import StreamGuard
from services.platform.settings import IngestSettings
from services.ports.inbox import GROUP
from services.usecases.inbox.reclaim import Reclaimer
from services.usecases.inbox.settle import ORDER_WAIT_S, Inbox

log = structlog.get_logger("inbox")


def default_consumer() -> str:
    """`ingest-<hostname>-<pid>`: the consumer name of a replica that sets none."""
    return f"ingest-{socket.gethostname()}-{os.getpid()}"


def inbox_doors(settings: IngestSettings, inbox: Inbox) -> list[tuple[str, Inbox]]:
    """(title, door) of every inbox stream: `inbox` (the shared stream, title `inbox`) first,
    then one sibling per listed integration (title `inbox-<name>`)."""
    doors = [("inbox", inbox)]
    for name in settings.inbox_integrations:
        doors.append((f"inbox-{name}", inbox.sibling(inbox.keys.integration_inbox(name))))
    return doors


def _subscribe(
    broker: RedisBroker, settings: IngestSettings, door: Inbox, title: str, consumer: str
) -> tuple[Reclaimer, StreamGuard]:
    """Register `door`'s stream with `broker`: its reader (batches of `inbox_batch`) and its
    claimer (entries idle `inbox_claim_idle_ms`, not in the AsyncAPI document), acks ours
    (MANUAL); return its reclaimer and its guard (neither started)."""
    shared = door.stream == door.keys.inbox
    stream = StreamSub(
        door.stream, group=GROUP, consumer=consumer, batch=True, max_records=settings.inbox_batch
    )
    reader = broker.subscriber(
        stream=stream,
        parser=keep_raw_parser,
        ack_policy=AckPolicy.MANUAL,
        title=title,
        description=INBOX_DESCRIPTION if shared else INTEGRATION_INBOX_DESCRIPTION,
    )
    claiming = StreamSub(
        door.stream,
        group=GROUP,
        consumer=consumer,
        batch=True,
        min_idle_time=settings.inbox_claim_idle_ms,
    )
    claimer = broker.subscriber(
        stream=claiming,
        parser=keep_raw_parser,
        ack_policy=AckPolicy.MANUAL,
        include_in_schema=False,
    )

    @reader
    async def consume_inbox(msg: RedisStreamMessage) -> None:
        raw: Any = msg.raw_message  # `entries` is added by `keep_raw_parser`
        await _settle(door, consumer, raw["message_ids"], raw["entries"], ORDER_WAIT_S)

    @claimer
    async def claim_inbox(msg: RedisStreamMessage) -> None:
        raw: Any = msg.raw_message
        pairs = zip(raw["message_ids"], raw["entries"], strict=True)
        fresh = [(bytes(i), f) for i, f in pairs if f and bytes(i) not in door.in_flight]
        if fresh:
            log.info("inbox.reclaimed", consumer=consumer, inbox=door.stream, entries=len(fresh))
            await _settle(door, consumer, [i for i, _ in fresh], [f for _, f in fresh], 0)

    async def settle_orphans(ids: list[bytes], entries: list[dict[bytes, bytes]]) -> None:
        await door.process(ids, entries, consumer, wait_s=0)

    reclaimer = Reclaimer(
        door.queue,
        consumer,
        settle_orphans,
        door.in_flight,
        claim_idle_ms=settings.inbox_claim_idle_ms,
        count=settings.inbox_batch,
        claim_others=False,  # FastStream's claiming subscriber does it
    )
    return reclaimer, StreamGuard(door, [reader, claimer])


async def _settle(
    door: Inbox, consumer: str, ids: list[bytes], entries: list[dict[bytes, bytes]], wait_s: float
) -> None:
    """`door.process` a delivery; a failure is logged (FastStream's logger is off) and raised
    (the entries stay pending for the reclaimer)."""
    try:
        await door.process(ids, entries, consumer, wait_s=wait_s)
    except Exception as error:
        log.error("inbox.delivery_failed", consumer=consumer, inbox=door.stream, error=repr(error))
        raise


def build_inbox_app(
    settings: IngestSettings, inbox: Inbox, broker: RedisBroker, consumer: str | None = None
) -> FastStream:
    """The inbox consumer as a FastStream app, consumer `consumer` (default: the setting
    `inbox_consumer`, else `default_consumer()`; one name per replica), reading the shared
    stream of `inbox` and the stream of every integration in `settings.inbox_integrations`.

    `broker` (FastStream's, `services.bootstrap.inbox_broker`) reads and claims entries over
    its own connection (acks are ours: MANUAL); appends, lookups, dead letters, acks and the
    `Reclaimer`s go through `inbox`'s ports (the process's one client, with its own retries).
    At start every stream's group is created at `0` (FastStream would create it at `$`,
    missing entries sent before) and every reclaimer drains its own PEL before the broker
    reads.
    """
    name = consumer or settings.inbox_consumer or default_consumer()
    doors = inbox_doors(settings, inbox)
    parts = [_subscribe(broker, settings, door, title, name) for title, door in doors]
    reclaimers = [reclaimer for reclaimer, _ in parts]
    tasks: list[asyncio.Task[None]] = []

    async def prepare() -> None:
        for _, door in doors:
            door.closing = False
            await door.ensure_group()
        log.info(
            "inbox.consumer",
            consumer=name,
            streams=len(doors),
            claim_idle_ms=settings.inbox_claim_idle_ms,
        )
        for reclaimer in reclaimers:
            await reclaimer.drain()
        for reclaimer in reclaimers:
            task_name = f"inbox-reclaim-{name}-{reclaimer.stream}"
            tasks.append(asyncio.create_task(reclaimer.run(), name=task_name))

    async def guard() -> None:
        # after the broker started the subscribers: a guard started before would take a
        # subscriber not started yet for one FastStream stopped, and start it twice
        for reclaimer, stream_guard in parts:
            task_name = f"inbox-guard-{name}-{reclaimer.stream}"
            tasks.append(asyncio.create_task(stream_guard.run(), name=task_name))

    async def finish() -> None:
        for _, door in doors:
            door.closing = True
        while tasks:
            task = tasks.pop()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    return FastStream(broker, on_startup=[prepare], after_startup=[guard], on_shutdown=[finish])
