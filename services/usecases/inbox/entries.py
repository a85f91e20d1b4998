"""An inbox entry's fields as the use cases read them: its body (field `data`, or FastStream's
`__data__` binary message format with its headers), its write proof (`token`, `creator_key`:
fields, else message headers of those names), its game, and what a dead letter keeps of it.

The format integrators write to: `services.doors.ingest.inbox_entry.INBOX_DESCRIPTION`.
"""

from __future__ import annotations

import json
from typing import Any

from faststream.redis.parser import BinaryMessageFormatV1

from services.usecases.authorize import WriteProof
from services.usecases.parse import decode_json, game_of
from services.usecases.record import Entry

SECRET_FIELDS = {b"token", b"creator_key"}
"""Entry fields never copied into a dead letter."""


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


def game_of_entry(fields: dict[bytes, bytes]) -> str | None:
    """The game an entry names (its first event's `game_id`), None when unreadable."""
    try:
        return game_of(decode_json(_body_of(fields), "data"))
    except Exception:  # garbage names no game
        return None


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


def raw_of(fields: dict[bytes, bytes]) -> bytes:
    """What a dead letter keeps of an entry: its data as received, else all its fields as JSON
    (never `SECRET_FIELDS`)."""
    body = _body_of(fields)
    if body is not None:
        return body
    kept = {
        k.decode(errors="replace"): v.decode(errors="replace")
        for k, v in fields.items()
        if k not in SECRET_FIELDS
    }
    return json.dumps(kept).encode()
