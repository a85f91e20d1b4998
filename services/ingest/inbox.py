"""Redis-native door of ingest: the inbox stream `Keys.inbox`, read by a FastStream consumer group.

A message is one XADD with field `data` (or FastStream's `__data__`) = one envelope JSON, or a
JSON array of envelopes of one game. Each is validated and appended through the same checked
path as HTTP; anything refused goes to the dead-letter stream with the raw body, and the
consumer goes on. Acks follow the append (FastStream's default REJECT_ON_ERROR): a batch that
fails on a Redis error stays pending and is reclaimed (tech.md §1.2-1.3): our own PEL is
drained at start-up (stable consumer name), and a claim-only subscriber takes entries idle for
`reclaim_idle_ms` from any consumer. Appends are idempotent by event id, so a redelivery
is harmless (a refused message may be dead-lettered twice).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import redis.asyncio as aioredis
import structlog
from fastapi import FastAPI
from faststream import FastStream
from faststream.redis import RedisBroker, RedisStreamMessage, StreamSub
from faststream.redis.parser import BinaryMessageFormatV1
from redis.exceptions import ResponseError

from contracts.envelope import Envelope
from services.adapters.redis.deadletters import dead_letter
from services.adapters.redis.eventlog import AppendResult, EventStore
from services.ingest.http import IngestRejected, count_appended, parse_events, refusal
from services.keys import Keys
from services.settings import IngestSettings
from services.usecases.check import CheckedEventStore

log = structlog.get_logger("inbox")
GROUP = "ingest"
INBOX_DESCRIPTION = """Append game events from any Redis client, no HTTP needed.

Each entry carries field `data` (FastStream publishers: `__data__`) holding one event envelope
as JSON, or a JSON array of envelopes of one game (appended all or nothing). The event is
validated and appended exactly as `POST /games/{game_id}/events` does (expected version
`seq - 1`, duplicate `event_id` = no-op). Anything refused (bad JSON, unknown type, a field,
a rule, a version conflict) lands in the dead-letter stream `sl:deadletter` with fields
`raw`, `reason` (JSON), `source` = `inbox`, `time`, `inbox_id`.

Example:

    redis-cli XADD sl:inbox '*' data '{"event_id":"0b8f5d3e-4c1a-4d3e-9a43-2f4e8f1b7c10","game_id":"g-1","seq":2,"type":"game.score_corrected","schema_version":2,"occurred_at":"2026-11-30T10:00:00Z","actor":"referee","payload":{"player_id":"ann","amount":2,"reason":"missed Advertise","referee":"Olga"}}'
"""


def _body_of(fields: dict[bytes, bytes]) -> bytes | None:
    if b"data" in fields:
        return fields[b"data"]
    if b"__data__" in fields:
        return BinaryMessageFormatV1.parse(fields[b"__data__"])[0]
    return None


async def _keep_raw_parser(raw: dict[str, Any], original: Callable[..., Any]) -> Any:
    """Hand FastStream empty bodies (its JSON step fails on non-UTF-8 garbage, which would strand
    the batch in the PEL) and keep the real field maps under `raw_message["entries"]`."""
    batch = isinstance(raw["data"], list)
    entries = raw["data"] if batch else [raw["data"]]
    return await original(
        {**raw, "data": [{} for _ in entries] if batch else {}, "entries": entries}
    )


def _events_of(raw: bytes | None) -> tuple[str, list[Envelope]]:
    """The game id and envelopes of one inbox body (one envelope or an array of one game's).

    Raises:
        IngestRejected: 422 naming `data` (missing, not JSON), a field, or `game_id` (mixed).
    """
    if raw is None:
        raise IngestRejected(
            422,
            {
                "error": "validation_error",
                "field": "data",
                "message": "the entry has no `data` field",
            },
        )
    try:
        body = json.loads(raw)
    except ValueError as error:
        raise IngestRejected(
            422,
            {"error": "validation_error", "field": "data", "message": f"invalid JSON: {error}"},
        ) from None
    events = parse_events(body)
    games = {e.game_id for e in events}
    if len(games) != 1:
        raise IngestRejected(
            422,
            {
                "error": "validation_error",
                "field": "game_id",
                "message": f"one message, one game; got {sorted(games)}",
            },
        )
    return games.pop(), events


class Inbox:
    """Validates and appends inbox entries; refused ones go to the dead-letter stream."""

    def __init__(self, client: aioredis.Redis, keys: Keys, store: CheckedEventStore) -> None:
        self.client = client
        self.keys = keys
        self.store = store

    async def process(self, ids: list[bytes], entries: list[dict[bytes, bytes]]) -> None:
        """Handle entries in order: each is validated, then all are appended through
        `CheckedEventStore.append_many` (different games' appends share round trips; one
        game's messages stay in order). Raises only on Redis errors (the batch is then not
        acked)."""
        refused: dict[int, IngestRejected] = {}
        accepted: list[tuple[int, str, list[Envelope]]] = []
        bodies = [_body_of(fields) for fields in entries]
        for i, raw in enumerate(bodies):
            try:
                accepted.append((i, *_events_of(raw)))
            except IngestRejected as rejected:
                refused[i] = rejected
            except Exception as error:  # a poison message must not jam the inbox
                log.exception("inbox.unexpected_error", inbox_id=ids[i].decode())
                refused[i] = IngestRejected(
                    422, {"error": "unreadable", "field": "data", "message": repr(error)[:500]}
                )
        outcomes = await self.store.append_many([(g, evs) for _, g, evs in accepted])
        for (i, _, _), outcome in zip(accepted, outcomes, strict=True):
            if isinstance(outcome, AppendResult):
                count_appended(outcome, "inbox")
            else:
                refused[i] = refusal(outcome, "inbox")
        for i in sorted(refused):  # dead letters in inbox order
            await self._dead_letter(ids[i].decode(), entries[i], bodies[i], refused[i])

    async def process_one(self, entry_id: str, fields: dict[bytes, bytes]) -> None:
        """Handle one entry (validate, append, or dead-letter). Raises only on Redis errors."""
        await self.process([entry_id.encode()], [fields])

    async def _dead_letter(
        self, entry_id: str, fields: dict[bytes, bytes], raw: bytes | None, rejected: IngestRejected
    ) -> None:
        kept = (
            raw
            if raw is not None
            else json.dumps(
                {k.decode(errors="replace"): v.decode(errors="replace") for k, v in fields.items()}
            )
        )
        log.warning("inbox.dead_letter", inbox_id=entry_id, reason=rejected.body)
        await dead_letter(self.client, self.keys, kept, rejected.body, "inbox", inbox_id=entry_id)

    async def ensure_group(self) -> None:
        """Create the consumer group at `0` (so entries XADDed before the first start count)."""
        try:
            await self.client.xgroup_create(self.keys.inbox, GROUP, id="0", mkstream=True)
        except ResponseError as error:
            if "BUSYGROUP" not in str(error):
                raise

    async def drain_pending(self, consumer: str, count: int) -> None:
        """Process and ack what `consumer` read but never acked (a crash before the ack)."""
        while True:
            reply = await self.client.xreadgroup(
                GROUP, consumer, {self.keys.inbox: "0"}, count=count
            )
            entries = [(i, f) for i, f in (reply[0][1] if reply else []) if f]
            if not entries:
                return
            await self.process([i for i, _ in entries], [f for _, f in entries])
            await self.client.xack(self.keys.inbox, GROUP, *[i for i, _ in entries])


def build_inbox_app(
    settings: IngestSettings, consumer: str = "ingest-0", reclaim_idle_ms: int = 60_000
) -> FastStream:
    """The inbox consumer as a FastStream app (`consumer` must be stable across restarts)."""
    keys = Keys(settings.shards)
    client = aioredis.Redis.from_url(settings.redis_url)
    inbox = Inbox(
        client, keys, CheckedEventStore(EventStore(client, keys), settings.state_cache_games)
    )
    broker = RedisBroker(settings.redis_url, logger=None)

    @broker.subscriber(
        stream=StreamSub(
            keys.inbox, group=GROUP, consumer=consumer, batch=True, max_records=settings.inbox_batch
        ),
        parser=_keep_raw_parser,
        title="inbox",
        description=INBOX_DESCRIPTION,
    )
    async def consume_inbox(msg: RedisStreamMessage) -> None:
        await inbox.process(msg.raw_message["message_ids"], msg.raw_message["entries"])

    @broker.subscriber(
        stream=StreamSub(
            keys.inbox, group=GROUP, consumer=f"{consumer}-reclaim", min_idle_time=reclaim_idle_ms
        ),
        parser=_keep_raw_parser,
        title="inbox-reclaim",
        include_in_schema=False,
    )
    async def reclaim_inbox(msg: RedisStreamMessage) -> None:
        await inbox.process(msg.raw_message["message_ids"], msg.raw_message["entries"])

    async def prepare() -> None:
        await inbox.ensure_group()
        await inbox.drain_pending(consumer, settings.inbox_batch)

    async def close_client() -> None:
        await client.aclose()

    return FastStream(broker, on_startup=[prepare], after_shutdown=[close_client])


def inbox_lifespan(
    settings: IngestSettings, consumer: str = "ingest-0"
) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """A FastAPI lifespan running the inbox consumer in the app's event loop."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with build_inbox_app(settings, consumer):
            yield

    return lifespan
