"""What the settling use case needs to know of an inbox entry's format, given by the door that
reads the stream (`services.doors.ingest.inbox_entry.INBOX_FORM`): so no use case knows
FastStream's message format or HTTP's problem documents.
"""

from __future__ import annotations

from typing import Protocol

from services.ports.inbox import Fields
from services.usecases.record import Entry
from services.usecases.refusal import Refusal


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
