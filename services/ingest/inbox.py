"""Redis-native door of ingest: the inbox stream `Keys.inbox`, read by a FastStream consumer group.

An entry is one XADD with fields `data` (or FastStream's `__data__`: one envelope JSON, or a
JSON array of envelopes of one game), `token` (the game's write token; an entry creating a
game carries the token its creator chose) and, where the deployment requires one,
`creator_key`. The handler translates each entry and calls the record use case
(`Record.record_entries`), exactly as HTTP does; a `Refusal` goes to the dead-letter port with
the raw body and the refusal's kind/rule/field/message (never a token), and the consumer goes
on. Acks follow the append (FastStream's default REJECT_ON_ERROR): a batch that fails on a
Redis error stays pending and is reclaimed (tech.md §1.2-1.3): our own PEL is drained at
start-up (stable consumer name), and a claim-only subscriber takes entries idle for
`reclaim_idle_ms` from any consumer. Appends are idempotent by event id, so a redelivery is
harmless (a refused entry may be dead-lettered twice).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import structlog
from faststream import FastStream
from faststream.redis import RedisBroker, RedisClusterBroker, RedisStreamMessage, StreamSub
from faststream.redis.parser import BinaryMessageFormatV1
from redis.exceptions import ResponseError

from services.adapters.redis.connect import RedisClient, parse_target
from services.adapters.redis.retention import trim_dead_letters, trim_inbox
from services.keys import Keys
from services.metrics import count_appended, count_refused
from services.ports.deadletters import DeadLetter, DeadLetters
from services.settings import IngestSettings
from services.usecases.authorize import WriteProof
from services.usecases.record import Entry, Record, Recorded

log = structlog.get_logger("inbox")
GROUP = "ingest"
SECRET_FIELDS = {b"token", b"creator_key"}
"""Entry fields never copied into a dead letter."""

INBOX_DESCRIPTION = """Append game events from any Redis client, no HTTP needed.

Each entry carries field `data` (FastStream publishers: `__data__`) holding one event envelope
as JSON, or a JSON array of envelopes of one game (appended all or nothing), and field `token`:
the game's write token (FastStream publishers: a message header `token`). The entry that creates a game (seq 1) MUST carry the token its creator
chose (32 to 256 URL-safe characters `A-Z a-z 0-9 _ -`; the inbox has no reply channel to hand
one back); its SHA-256 digest is stored in the same atomic step as the event. Every later
entry of the game carries the same token. Where the deployment sets a creator key, a creating
entry also carries field `creator_key`. The token is checked first (one lookup), then the
events are validated and appended exactly as `POST /games/{game_id}/events` does (expected
version `seq - 1`, duplicate `event_id` = no-op). Anything refused (bad JSON, no or a wrong
token, unknown type, a field, a rule, a version conflict) lands in the dead-letter stream
`sl:deadletter` with fields `raw` (the data as received), `reason` (JSON: `kind`, `rule`,
`field`, `message`), `source` = `inbox`, `time`, `inbox_id`; the token is never kept.

Example:

    redis-cli XADD sl:inbox '*' token 'my-table-7-write-token-0123456789abcdef' data '{"event_id":"0b8f5d3e-4c1a-4d3e-9a43-2f4e8f1b7c10","game_id":"g-1","seq":2,"type":"game.score_corrected","schema_version":2,"occurred_at":"2026-11-30T10:00:00Z","actor":"referee","payload":{"player_id":"ann","amount":2,"reason":"missed Advertise","referee":"Olga"}}'
"""


def _unpacked(fields: dict[bytes, bytes]) -> tuple[bytes | None, dict[str, Any]]:
    """The entry's body and, for FastStream's `__data__` format, its message headers."""
    if b"data" in fields:
        return fields[b"data"], {}
    if b"__data__" in fields:
        body, headers = BinaryMessageFormatV1.parse(fields[b"__data__"])
        return body, headers
    return None, {}


def _body_of(fields: dict[bytes, bytes]) -> bytes | None:
    return _unpacked(fields)[0]


def _text(fields: dict[bytes, bytes], headers: dict[str, Any], name: str) -> str | None:
    value = fields.get(name.encode())
    if value is not None:
        return value.decode(errors="replace")
    header = headers.get(name)
    return header if isinstance(header, str) else None


def entry_of(fields: dict[bytes, bytes]) -> Entry:
    """The record use case's view of one inbox entry: its proof (fields `token`,
    `creator_key`, or FastStream message headers of those names) and its raw data."""
    body, headers = _unpacked(fields)
    proof = WriteProof(_text(fields, headers, "token"), _text(fields, headers, "creator_key"))
    return Entry(proof, body)


async def _keep_raw_parser(raw: dict[str, Any], original: Callable[..., Any]) -> Any:
    """Hand FastStream empty bodies (its JSON step fails on non-UTF-8 garbage, which would strand
    the batch in the PEL) and keep the real field maps under `raw_message["entries"]`."""
    batch = isinstance(raw["data"], list)
    entries = raw["data"] if batch else [raw["data"]]
    return await original(
        {**raw, "data": [{} for _ in entries] if batch else {}, "entries": entries}
    )


@dataclass(frozen=True, slots=True)
class Retention:
    """How long settled inbox entries and dead letters are kept (seconds), and the least time
    between two trims (`IngestSettings.inbox_keep_s`, `dead_letter_keep_s`,
    `retention_every_s`)."""

    inbox_keep_s: float = 86_400.0
    dead_letter_keep_s: float = 30 * 86_400.0
    every_s: float = 10.0


class Inbox:
    """Translates inbox entries for the record use case; refusals become dead letters."""

    def __init__(
        self,
        client: RedisClient,
        keys: Keys,
        record: Record,
        letters: DeadLetters,
        retention: Retention | None = None,
    ) -> None:
        self.client = client
        self.keys = keys
        self.record = record
        self.letters = letters
        self.retention = retention  # None: no trimming (tests that count every entry)
        self._trimmed_at = -math.inf

    async def trim(self) -> tuple[int, int]:
        """Retention (`services.adapters.redis.retention`), at most once per
        `retention.every_s`: (inbox entries, dead letters) trimmed."""
        now = time.monotonic()
        if self.retention is None or now - self._trimmed_at < self.retention.every_s:
            return (0, 0)
        self._trimmed_at = now
        now_ms = int(time.time() * 1000)
        inbox = await trim_inbox(
            self.client, self.keys.inbox, GROUP, self.retention.inbox_keep_s, now_ms
        )
        letters = await trim_dead_letters(
            self.client, self.keys.dead_letter, self.retention.dead_letter_keep_s, now_ms
        )
        return inbox, letters

    async def process(self, ids: list[bytes], entries: list[dict[bytes, bytes]]) -> None:
        """Handle entries in order (see the module docstring). Raises only on Redis errors (the
        batch is then not acked)."""
        outcomes = await self.record.record_entries([entry_of(f) for f in entries])
        for entry_id, fields, outcome in zip(ids, entries, outcomes, strict=True):
            if isinstance(outcome, Recorded):
                count_appended(outcome.result, "inbox")
                continue
            count_refused(outcome, "inbox")
            raw = _body_of(fields)
            kept = raw if raw is not None else self._fields_json(fields)
            log.warning("inbox.dead_letter", inbox_id=entry_id.decode(), reason=outcome.to_dict())
            await self.letters.put(
                DeadLetter(kept, outcome.to_dict(), "inbox", {"inbox_id": entry_id.decode()})
            )
        await self.trim()

    @staticmethod
    def _fields_json(fields: dict[bytes, bytes]) -> bytes:
        kept = {
            k.decode(errors="replace"): v.decode(errors="replace")
            for k, v in fields.items()
            if k not in SECRET_FIELDS
        }
        return json.dumps(kept).encode()

    async def process_one(self, entry_id: str, fields: dict[bytes, bytes]) -> None:
        """Handle one entry (validate, append, or dead-letter). Raises only on Redis errors."""
        await self.process([entry_id.encode()], [fields])

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
            reply: Any = await self.client.xreadgroup(
                GROUP, consumer, {self.keys.inbox: "0"}, count=count
            )
            entries = [(i, f) for i, f in (reply[0][1] if reply else []) if f]
            if not entries:
                return
            await self.process([i for i, _ in entries], [f for _, f in entries])
            await self.client.xack(self.keys.inbox, GROUP, *[i for i, _ in entries])


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


def build_inbox_app(
    settings: IngestSettings,
    inbox: Inbox,
    consumer: str = "ingest-0",
    reclaim_idle_ms: int = 60_000,
) -> FastStream:
    """The inbox consumer as a FastStream app (`consumer` must be stable across restarts).

    FastStream's broker reads the inbox over its own connection; appends, lookups and dead
    letters go through `inbox`'s ports (the process's one client).
    """
    keys = inbox.keys
    broker = inbox_broker(settings)

    @broker.subscriber(
        stream=StreamSub(
            keys.inbox, group=GROUP, consumer=consumer, batch=True, max_records=settings.inbox_batch
        ),
        parser=_keep_raw_parser,
        title="inbox",
        description=INBOX_DESCRIPTION,
    )
    async def consume_inbox(msg: RedisStreamMessage) -> None:
        raw: Any = msg.raw_message  # `entries` is added by `_keep_raw_parser`
        await inbox.process(raw["message_ids"], raw["entries"])

    @broker.subscriber(
        stream=StreamSub(
            keys.inbox, group=GROUP, consumer=f"{consumer}-reclaim", min_idle_time=reclaim_idle_ms
        ),
        parser=_keep_raw_parser,
        title="inbox-reclaim",
        include_in_schema=False,
    )
    async def reclaim_inbox(msg: RedisStreamMessage) -> None:
        raw: Any = msg.raw_message
        await inbox.process(raw["message_ids"], raw["entries"])

    async def prepare() -> None:
        await inbox.ensure_group()
        await inbox.drain_pending(consumer, settings.inbox_batch)

    return FastStream(broker, on_startup=[prepare])
