"""What the settling use case needs to know of an inbox entry's format, given by the door that
reads the stream (`services.doors.ingest.inbox_entry.INBOX_FORM`): so no use case knows
FastStream's message format or HTTP's problem documents. `FieldsForm` reads an entry's fields
(`token`, `creator_key`, the data) with the door's unpacking of its transport format, and
tells whether an entry may hold a player's name (`may_name`: such an entry is deleted once
settled, not kept for the inbox retention; docs/forget.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from contracts.names import is_game_started
from services.ports.inbox import Fields
from services.usecases.authorize import WriteProof
from services.usecases.parse import decode_json, game_of
from services.usecases.record import Entry
from services.usecases.refusal import Refusal

SECRET_FIELDS = {b"token", b"creator_key"}
"""Entry fields never copied into a dead letter."""


class EntryForm(Protocol):
    """An inbox entry's fields read, and a refusal worded for its dead letter."""

    def entry(self, fields: Fields) -> Entry:
        """The record use case's view of the entry: its write proof and its raw data."""
        ...

    def game(self, fields: Fields) -> str | None:
        """The game the entry names (its first event's `game_id`), None when unreadable."""
        ...

    def raw(self, fields: Fields) -> bytes:
        """What a dead letter keeps of the entry (never a token)."""
        ...

    def reason(self, refusal: Refusal) -> dict[str, object]:
        """A dead letter's reason for `refusal` (JSON members)."""
        ...

    def may_name(self, fields: Fields) -> bool:
        """Whether the entry may hold a player's name (a `*.game_started` event)."""
        ...


Unpack = Callable[[Fields], tuple[bytes | None, Mapping[str, Any]]]
"""An entry's body (None: it has none) and the message headers its transport format carries."""


@dataclass(frozen=True, slots=True)
class FieldsForm:
    """`EntryForm` of an inbox stream's entries: the door's `unpack` (its transport format)
    and `word` (a refusal as its problem document); the fields' meaning is read here."""

    unpack: Unpack
    word: Callable[[Refusal], dict[str, object]]

    def entry(self, fields: Fields) -> Entry:
        """The record use case's view of one inbox entry: its proof (fields `token`,
        `creator_key`, or message headers of those names) and its raw data."""
        body, headers = self.unpack(fields)
        proof = WriteProof(_text(fields, headers, "token"), _text(fields, headers, "creator_key"))
        return Entry(proof, body)

    def game(self, fields: Fields) -> str | None:
        """The game an entry names (its first event's `game_id`), None when unreadable."""
        try:
            return game_of(decode_json(self.unpack(fields)[0], "data"))
        except Exception:  # garbage names no game
            return None

    def raw(self, fields: Fields) -> bytes:
        """What a dead letter keeps of an entry: its data as received, else all its fields as
        JSON (never `SECRET_FIELDS`)."""
        body = self.unpack(fields)[0]
        if body is not None:
            return body
        kept = {
            k.decode(errors="replace"): v.decode(errors="replace")
            for k, v in fields.items()
            if k not in SECRET_FIELDS
        }
        return json.dumps(kept).encode()

    def reason(self, refusal: Refusal) -> dict[str, object]:
        """A dead letter's reason for `refusal`, as the door words it."""
        return self.word(refusal)

    def may_name(self, fields: Fields) -> bool:
        """Whether an entry may hold a player's name (names are posted only in a
        `*.game_started` event: `contracts.names`): False when no UTF-8 text of it can spell
        that type, or its data reads as events (a JSON object, or an array of them) none typed
        as a start; True otherwise (a start, or text that spells one in no event shape; a body
        in UTF-16 or UTF-32, which `json.loads` reads too, is decoded first). The settling use
        case keeps a False entry for the inbox retention and deletes the others once settled
        (docs/forget.md: forget cannot reach a name in a kept entry)."""
        try:
            body = self.unpack(fields)[0]
        except Exception:  # unreadable transport format: its raw bytes are looked at
            body = None
        text = body if body is not None else b"".join(fields.values())
        # a start event's type holds `game_started`, spelled out or with a JSON escape, in
        # UTF-8; `json.loads` also reads UTF-16 and UTF-32, where those bytes are not there
        utf8 = json.detect_encoding(text) in _UTF8
        if utf8 and b"game_started" not in text and b"\\" not in text:
            return False
        if body is None:
            return True
        try:
            decoded = json.loads(body)
        except (ValueError, RecursionError):  # UnicodeDecodeError; absurd nesting
            return True
        items = decoded if isinstance(decoded, list) else [decoded]
        return any(_started(item) for item in items)


_UTF8 = ("utf-8", "utf-8-sig")
"""`json.detect_encoding`'s answers for UTF-8 text (the quick byte test above reads only it)."""


def _started(item: object) -> bool:
    """Whether a decoded JSON item may be a `*.game_started` event: typed as one, or not an
    object with a string type (nothing then says what it is)."""
    kind = item.get("type") if isinstance(item, dict) else None
    return not isinstance(kind, str) or is_game_started(kind)


def _text(fields: Fields, headers: Mapping[str, Any], name: str) -> str | None:
    """Field `name` of an entry as text, else its message header of that name."""
    value = fields.get(name.encode())
    if value is not None:
        return value.decode(errors="replace")
    header = headers.get(name)
    return header if isinstance(header, str) else None
