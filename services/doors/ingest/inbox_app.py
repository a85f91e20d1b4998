"""The inbox door: a FastStream app with, per inbox stream (the shared `sl:inbox`, then
`sl:inbox:<name>` for each of `IngestSettings.inbox_integrations`), a reading subscriber and a
claiming one in the group `ingest`, each handing its deliveries to the use case
`services.usecases.inbox.consumer.InboxConsumer` (which settles, reclaims, guards the stream and
owns start-up and shutdown).

* **Reading**: `StreamSub(group=, consumer=, batch=True)`, `XREADGROUP >`, in the AsyncAPI
  document.
* **Claiming a dead replica's entries**: `StreamSub(..., min_idle_time=inbox_claim_idle_ms)`
  (XAUTOCLAIM), left out of the AsyncAPI document.
* **Acks are the use case's (`AckPolicy.MANUAL`)**: FastStream acks or leaves a batch pending
  as a whole, while a delivery settles per entry and per game.

Source: docs/decisions/0006-inbox-consumer-group.md (what FastStream 0.7.8 does and does not).
"""

from __future__ import annotations

from typing import Any

from faststream import AckPolicy, FastStream
from faststream.redis import RedisBroker, RedisStreamMessage, StreamSub

from services.doors.ingest.inbox_entry import (
    INBOX_DESCRIPTION,
    INTEGRATION_INBOX_DESCRIPTION,
    keep_raw_parser,
)
from services.platform.settings import IngestSettings
from services.ports.inbox import GROUP
from services.usecases.inbox.consumer import InboxConsumer, default_consumer
from services.usecases.inbox.settle import Inbox

READ_BLOCK_MS = 1000
"""How long one `XREADGROUP` of the reader blocks (faststream's `polling_interval`; its default,
100 ms, made an idle inbox about 0.8% of a core, 20 round trips a second with the claimer). A
new entry ends the block at once, so the reader is as quick; a stop cancels the read."""


def claim_pause_ms(claim_idle_ms: int) -> int:
    """The claimer's pause after an `XAUTOCLAIM` that found nothing (ms): a tenth of the claim
    idle time, 100 to 1000 ms, so a dead replica's entries wait at most about 10% longer than
    `inbox_claim_idle_ms` (faststream's default pause is 100 ms, whatever the idle time)."""
    return max(100, min(1000, claim_idle_ms // 10))


def _subscribe(
    broker: RedisBroker, settings: IngestSettings, consumer: InboxConsumer, title: str, door: Inbox
) -> None:
    """Register `door`'s stream with `broker`: its reader (batches of `inbox_batch`) and its
    claimer (entries idle `inbox_claim_idle_ms`), both guarded by `consumer`."""
    shared = door.stream == door.keys.inbox
    stream = StreamSub(
        door.stream,
        group=GROUP,
        consumer=consumer.name,
        batch=True,
        max_records=settings.inbox_batch,
        polling_interval=READ_BLOCK_MS,
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
        consumer=consumer.name,
        batch=True,
        min_idle_time=settings.inbox_claim_idle_ms,
        polling_interval=claim_pause_ms(settings.inbox_claim_idle_ms),
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
        await consumer.read(door, [bytes(i) for i in raw["message_ids"]], raw["entries"])

    @claimer
    async def claim_inbox(msg: RedisStreamMessage) -> None:
        raw: Any = msg.raw_message
        await consumer.claimed(door, [bytes(i) for i in raw["message_ids"]], raw["entries"])

    consumer.watch(door, [reader, claimer])


def build_inbox_app(
    settings: IngestSettings, inbox: Inbox, broker: RedisBroker, consumer: str | None = None
) -> FastStream:
    """The inbox consumer as a FastStream app, consumer `consumer` (default: the setting
    `inbox_consumer`, else `default_consumer()`; one name per replica), reading the shared
    stream of `inbox` and the stream of every integration in `settings.inbox_integrations`.

    `broker` (FastStream's, `services.bootstrap.inbox_broker`) reads and claims entries over
    its own connection; appends, lookups, dead letters, acks and reclaiming go through
    `inbox`'s ports. The use case prepares every stream before the broker reads, guards them
    once the subscribers run and stops its tasks on shutdown.
    """
    name = consumer or settings.inbox_consumer or default_consumer()
    use = InboxConsumer(
        inbox,
        settings.inbox_integrations,
        name,
        claim_idle_ms=settings.inbox_claim_idle_ms,
        batch=settings.inbox_batch,
    )
    for title, door in use.streams:
        _subscribe(broker, settings, use, title, door)
    return FastStream(
        broker, on_startup=[use.start], after_startup=[use.guard], on_shutdown=[use.stop]
    )
