"""The inbox entry format: as the AsyncAPI document tells integrators (`INBOX_DESCRIPTION`,
`INTEGRATION_INBOX_DESCRIPTION`), the transport's part of how the settling use case reads it
(`INBOX_FORM`: field `data` or FastStream's `__data__` binary format with its headers, and a
dead letter's reason as the HTTP problem; the fields' meaning is
`services.usecases.inbox.entries.FieldsForm`'s), and FastStream's parser step that keeps the
raw field maps.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from faststream.redis.parser import BinaryMessageFormatV1

from services.doors.asgi.http_errors import refusal_item
from services.usecases.inbox.entries import EntryForm, FieldsForm
from services.usecases.refusal import Refusal

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
`field`, `message`), `source` = `inbox`, `time`, `inbox_id`; the token is never kept. An entry
is dead-lettered once, and only when refused: while Redis is unavailable entries wait and are
retried. One game's entries are applied in stream order, also across ingest replicas; after a
refused entry, send its seq again (later entries of the game are refused by version until then).

An entry larger than the request body limit (`SCORELEDGER_MAX_BODY_BYTES`, 1 MiB) is refused
unread (`body.too_large`, its first bytes kept in the dead letter) and deleted from the stream.
Add entries with the id `*`: an explicit id blocks later `XADD *` calls while it is the
stream's newest, and the largest possible one (`18446744073709551615-18446744073709551615`)
blocks them until ingest has settled the stream's entries and renewed the stream.

Example:

    redis-cli XADD sl:inbox '*' token 'my-table-7-write-token-0123456789abcdef' data '{"event_id":"0b8f5d3e-4c1a-4d3e-9a43-2f4e8f1b7c10","game_id":"g-1","seq":2,"type":"game.score_corrected","schema_version":2,"occurred_at":"2026-11-30T10:00:00Z","actor":"referee","payload":{"player_id":"ann","amount":2,"reason":"missed Advertise","referee":"Olga"}}'
"""

INTEGRATION_INBOX_DESCRIPTION = """One integration's own inbox, `sl:inbox:<integration>`.

Entries exactly as on the shared `sl:inbox` (fields `data`, `token`, `creator_key`), settled
the same way.

Only the integration's own Redis user, `integration-<integration>`, may XADD here, and it may
XADD nowhere else: so an `XADD ... MAXLEN 0` (which an ACL cannot forbid) trims no other
integration's entries (docs/decisions/0019-hostile-input-at-every-door.md). An operator lists the integrations
in ingest's `SCORELEDGER_INBOX_INTEGRATIONS` and renders their ACL users with
`deploy/scripts/redis-acl.sh`. A refused entry's dead letter also carries `inbox`, the stream's
key. Order is kept per stream: send all of one game's entries through one stream.

Example:

    redis-cli --user integration-table-7 XADD sl:inbox:table-7 '*' token 'my-table-7-write-token-0123456789abcdef' data '{"event_id": ...}'
"""


def _unpacked(fields: dict[bytes, bytes]) -> tuple[bytes | None, dict[str, Any]]:
    """The entry's body and, for FastStream's `__data__` format, its message headers."""
    if b"data" in fields:
        return fields[b"data"], {}
    if b"__data__" in fields:
        body, headers = BinaryMessageFormatV1.parse(fields[b"__data__"])
        return body, headers
    return None, {}


def _reason(refusal: Refusal) -> dict[str, object]:
    """A dead letter's reason: the problem the HTTP door answers for the same refusal (RFC
    9457 members: `type`, `title`, `status`, `detail`, `rule`, `field`, `index`, `errors`,
    `expected` / `actual` / `version`), plus the refusal's `kind` and `message`."""
    item = refusal_item(refusal).model_dump(mode="json", exclude_none=True)
    return {**refusal.to_dict(), **item}


INBOX_FORM: EntryForm = FieldsForm(_unpacked, _reason)
"""How the settling use case reads an inbox entry and words its dead letter."""

game_of_entry = INBOX_FORM.game
"""The game an entry names (the adapters' `GameOf`, for their order check)."""


async def keep_raw_parser(raw: dict[str, Any], original: Callable[..., Any]) -> Any:
    """Hand FastStream empty bodies (its JSON step fails on non-UTF-8 garbage, which would strand
    the batch in the PEL) and keep the real field maps under `raw_message["entries"]`."""
    batch = isinstance(raw["data"], list)
    entries = raw["data"] if batch else [raw["data"]]
    return await original(
        {**raw, "data": [{} for _ in entries] if batch else {}, "entries": entries}
    )
