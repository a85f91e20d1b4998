"""The event envelope: the metadata every game-action event travels in.

Wire shape (one JSON object per event, one per JSONL line)::

    {"event_id": "<uuid>", "game_id": "g-1", "seq": 1, "type": "trickerion.advertised",
     "schema_version": 1, "occurred_at": "2026-11-30T10:00:00Z", "recorded_at": null,
     "actor": "table-7", "correlation_id": null, "causation_id": null,
     "payload": {...}}

`type` is a stable wire name, independent of Python paths. `recorded_at` is set by the store,
never by the sender. Source: issue #2 (contracts), research/anchors.md §1.6 lesson 3.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, ClassVar
from uuid import UUID

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, StringConstraints

GameId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")]
"""A game id: 1-64 characters, letters, digits, `_ . -`; it becomes part of Redis keys."""

PlayerId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$")]
"""A player id, unique within its game: 1-32 characters, letters, digits, `_ . -`."""

NonEmptyText = Annotated[
    str, StringConstraints(min_length=1, max_length=500, strip_whitespace=True)
]


class Payload(BaseModel):
    """Base of every event payload: frozen, unknown fields rejected.

    Subclasses set `TYPE` (the wire name) and `SCHEMA_VERSION` (bumped when the payload's
    shape changes; older versions are upcast on read, see `contracts.upcasting`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    TYPE: ClassVar[str]
    SCHEMA_VERSION: ClassVar[int] = 1


class Envelope(BaseModel):
    """Metadata common to all events; `payload` is typed per event type in `contracts.events`.

    Fields:
        event_id: the idempotency key; appending the same id twice is a no-op.
        game_id: the game (and so the stream) the event belongs to.
        seq: the event's 1-based position in its game; an append with `seq = n` expects the
            game's current version to be `n - 1`.
        type: the stable wire name of the payload type.
        schema_version: the payload's shape version; old versions are upcast on read.
        occurred_at: when it happened at the table (timezone-aware).
        recorded_at: set by the store when appended; senders leave it null.
        actor: who reported it (a table integration, a referee, a player app).
        correlation_id / causation_id: optional tracing ids.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    event_id: UUID
    game_id: GameId
    seq: int = Field(ge=1)
    type: str
    schema_version: int = Field(ge=1)
    occurred_at: AwareDatetime
    recorded_at: AwareDatetime | None = None
    actor: NonEmptyText
    correlation_id: str | None = Field(default=None, max_length=128)
    causation_id: str | None = Field(default=None, max_length=128)
    payload: Payload

    def with_recorded_at(self, when: datetime) -> Envelope:
        """Return a copy stamped with the store's `recorded_at` (the event itself is unchanged)."""
        return self.model_copy(update={"recorded_at": when})

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready dict of this event (the JSONL / stream format)."""
        return self.model_dump(mode="json")
