"""Writes made idempotent by a client-chosen request key (the HTTP `Idempotency-Key` header)
on the tournament and league streams, through the append's own idempotency by event id.

The events a keyed request appends get ids derived from the stream, the key and their place
in the batch (`request_ids`), so the store answers a second append of them as duplicates. A
retry (after a `503 append.replicas_unconfirmed`: stored on the primary, not acknowledged, or
after a lost answer) finds the batch in the stream first (`find_request`) and is answered from
the state right after it, as the first would have been, without checking the rules again (a
registration's retry would otherwise be `player_exists`). The same key with another request
(another event type or other fields) is refused: `idempotency.key_reused`. Keys are per
stream and kept as long as the stream. Source: issue brief (tournament and league writes
idempotent by a client-chosen request id); IETF draft "The Idempotency-Key HTTP Header Field"
(a reused key with another payload: 422).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from contracts.envelope import Payload
from contracts.names import without_names
from services.usecases.refusal import Refusal

KEY_MAX = 200
"""Longest key (characters: visible ASCII, no spaces)."""
BATCH_MAX = 8
"""Most events one keyed request appends (a table's approval and its round's close: 2)."""
FIELD = "idempotency-key"


class _Event(Protocol):
    @property
    def event_id(self) -> Any: ...

    @property
    def payload(self) -> Payload: ...


E = TypeVar("E", bound=_Event)


def check_key(key: str | None) -> str | None:
    """`key` when it is None or 1 to `KEY_MAX` visible ASCII characters. Raises `Refusal`
    (`invalid` / `request.idempotency_key`, field `idempotency-key`)."""
    if key is not None and not (
        0 < len(key) <= KEY_MAX and key.isascii() and key.isprintable() and " " not in key
    ):
        raise Refusal(
            "invalid",
            "request.idempotency_key",
            f"an Idempotency-Key is 1 to {KEY_MAX} visible ASCII characters",
            FIELD,
        )
    return key


def request_ids(kind: str, stream_id: str, key: str, count: int) -> list[str]:
    """The event ids of the first `count` events a request under `key` appends to stream
    `stream_id` of `kind` (`tournament`, `league`): UUIDv5, stable across processes."""
    base = f"scoreledger:{kind}:{stream_id}:request:{key}"
    return [str(uuid.uuid5(uuid.NAMESPACE_URL, f"{base}:{i}")) for i in range(count)]


@dataclass(frozen=True, slots=True)
class Found(Generic[E]):
    """A keyed request's batch found in its stream: `upto` events of the stream up to and
    including the batch, and the batch's events."""

    upto: int
    batch: tuple[E, ...]

    @property
    def first(self) -> Payload:
        """The batch's first payload: what the request asked for."""
        return self.batch[0].payload


def find_request(
    events: Sequence[E], kind: str, stream_id: str, key: str | None
) -> Found[E] | None:
    """The batch `key`'s request appended to `events` (one stream, seq order), or None (no
    key, or not appended)."""
    if key is None:
        return None
    ids = request_ids(kind, stream_id, key, BATCH_MAX)
    for i, event in enumerate(events):
        if str(event.event_id) == ids[0]:
            n = 1
            while i + n < len(events) and n < BATCH_MAX and str(events[i + n].event_id) == ids[n]:
                n += 1
            return Found(i + n, tuple(events[i : i + n]))
    return None


def same_request(found: Payload, asked: Payload) -> None:
    """Refuse a key used before for another request: `asked` (what this request would append
    first) must equal `found` (what the key's request appended first). Raises `Refusal`
    (`rule` / `idempotency.key_reused`). Players' names are left out of the comparison: they
    are kept outside the stream, and a forgotten player's reads back as a pseudonym
    (`contracts.names.without_names`)."""
    if type(found) is not type(asked):
        raise key_reused()
    if without_names(found).model_dump() != without_names(asked).model_dump():
        raise key_reused()


def key_reused() -> Refusal:
    """The refusal of a key that named another request."""
    return Refusal(
        "rule",
        "idempotency.key_reused",
        "this Idempotency-Key was used for another request to this stream; use a new key",
        FIELD,
    )
