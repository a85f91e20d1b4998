"""The inbox consumer as a FastStream app: one subscriber, one `Reclaimer` per inbox stream.

The streams: the shared `Keys.inbox` (`sl:inbox`), then `Keys.integration_inbox(name)`
(`sl:inbox:<name>`) for each name of `IngestSettings.inbox_integrations`, in that order. Each is
a key of its own (its own Redis Cluster slot), read by its own subscriber in the same group
`ingest` under the same consumer name, and settled by its own `Inbox` (`Inbox.sibling`): its
PEL, per-game order check, reclaimer and retention are its own, so a hostile integration's
`XADD ... MAXLEN 0` on its stream can touch no other stream. Source: issue 11 (hostile
integrations); issue 10 (consumer names, reclaiming).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from typing import Any

import structlog
from faststream import AckPolicy, FastStream
from faststream.redis import RedisBroker, RedisClusterBroker, RedisStreamMessage, StreamSub

from services.adapters.redis.connect import parse_target
from services.ingest.inbox import GROUP, Inbox
from services.ingest.inbox_entry import (
    INBOX_DESCRIPTION,
    INTEGRATION_INBOX_DESCRIPTION,
    keep_raw_parser,
)
from services.ingest.inbox_guard import StreamGuard
from services.ingest.inbox_pel import Reclaimer
from services.settings import IngestSettings

log = structlog.get_logger("inbox")


def default_consumer() -> str:
    """`ingest-<hostname>-<pid>`: the consumer name of a replica that sets none."""
    return f"ingest-{socket.gethostname()}-{os.getpid()}"


def inbox_broker(settings: IngestSettings) -> RedisBroker:
    """FastStream's broker for the inbox: `RedisClusterBroker` (its startup nodes from the
    cluster URL) on a Redis Cluster, `RedisBroker` on a single node."""
    target = parse_target(settings.redis_url, settings.redis_cluster)
    # FastStream's own logger writes to stdout, which `demo` keeps for the final standings.
    options: dict[str, Any] = {"logger": None, **settings.redis_options()}
    if target.cluster:
        options.pop("ssl_context", None)  # RedisCluster takes TLS options, not a context
        return RedisClusterBroker(target.url, startup_nodes=list(target.nodes), **options)
    return RedisBroker(target.url, **options)


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
    """Register `door`'s stream with `broker` (batches of `inbox_batch`, acks ours: MANUAL)
    and return its reclaimer and its guard (neither started)."""
    shared = door.stream == door.keys.inbox

    subscriber = broker.subscriber(
        stream=StreamSub(
            door.stream,
            group=GROUP,
            consumer=consumer,
            batch=True,
            max_records=settings.inbox_batch,
        ),
        parser=keep_raw_parser,
        ack_policy=AckPolicy.MANUAL,
        title=title,
        description=INBOX_DESCRIPTION if shared else INTEGRATION_INBOX_DESCRIPTION,
    )

    @subscriber
    async def consume_inbox(msg: RedisStreamMessage) -> None:
        raw: Any = msg.raw_message  # `entries` is added by `keep_raw_parser`
        try:
            await door.process(raw["message_ids"], raw["entries"], consumer)
        except Exception as error:  # FastStream's logger is off: say it here
            log.error(
                "inbox.delivery_failed", consumer=consumer, inbox=door.stream, error=repr(error)
            )
            raise

    async def settle_claimed(ids: list[bytes], entries: list[dict[bytes, bytes]]) -> None:
        await door.process(ids, entries, consumer, wait_s=0)

    reclaimer = Reclaimer(
        door.client,
        door.stream,
        GROUP,
        consumer,
        settle_claimed,
        door.in_flight,
        claim_idle_ms=settings.inbox_claim_idle_ms,
        count=settings.inbox_batch,
    )
    return reclaimer, StreamGuard(door, subscriber)


def build_inbox_app(
    settings: IngestSettings, inbox: Inbox, consumer: str | None = None
) -> FastStream:
    """The inbox consumer as a FastStream app, consumer `consumer` (default: the setting
    `inbox_consumer`, else `default_consumer()`; one name per replica), reading the shared
    stream of `inbox` and the stream of every integration in `settings.inbox_integrations`.

    FastStream's broker reads new entries over its own connection (acks are ours: MANUAL);
    appends, lookups, dead letters, acks and the `Reclaimer`s go through `inbox`'s ports and
    client (the process's one client, with its own retries). At start every stream's group is
    created at `0` (FastStream would create it at `$`, missing entries sent before) and every
    reclaimer drains its own PEL before the broker reads.
    """
    name = consumer or settings.inbox_consumer or default_consumer()
    broker = inbox_broker(settings)
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
