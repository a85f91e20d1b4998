"""The event envelope: the metadata every game-action event travels in.

Wire shape (one JSON object per event, one per JSONL line)::

    {"event_id": "<uuid>", "game_id": "g-1", "seq": 1, "type": "trickerion.advertised",
     "schema_version": 1, "occurred_at": "2026-11-30T10:00:00Z", "recorded_at": null,
     "actor": "table-7", "correlation_id": null, "causation_id": null,
     "payload": {...}}

`type` is a stable wire name, independent of Python paths. `recorded_at` is set by the store,
never by the sender. Source: docs/decisions/0001-events-are-immutable-facts.md (the envelope).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, ClassVar, Generic, Literal, Self, TypeVar, Union
from uuid import UUID

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    create_model,
    field_validator,
)

GameId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")]
"""A game id: 1-64 characters, letters, digits, `_ . -`; it becomes part of Redis keys."""

PlayerId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$")]
"""A player id, unique within its game: 1-32 characters, letters, digits, `_ . -`."""

NonEmptyText = Annotated[
    str, StringConstraints(min_length=1, max_length=500, strip_whitespace=True)
]
"""Free text (names, reasons, referees, actors): 1-500 characters after stripping."""

TypeName = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_.]{0,63}$")]
"""A wire type name such as `trickerion.advertised`: 1-64 lower-case characters."""


class Payload(BaseModel):
    """Base of every event payload: frozen, unknown fields rejected.

    Subclasses set `TYPE` (the wire name) and `SCHEMA_VERSION` (bumped when the payload's
    shape changes; older versions are upcast on read, see `contracts.upcasting`). Whole
    numbers are declared `Field(strict=True)` (or `Strict()` in an `Annotated` alias): JSON
    `true`, `"5"` and `99.0` are refused, never read as 1, 5 and 99 (docs/decisions/0019-hostile-input-at-every-door.md).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    TYPE: ClassVar[str]
    SCHEMA_VERSION: ClassVar[int] = 1


_E = TypeVar("_E", bound="EnvelopeChecks")


class EnvelopeChecks(BaseModel):
    """The checks of every stream kind's envelope (the kernel's base, under `StreamHead`):
    frozen, unknown fields refused, `schema_version` a JSON integer, the timestamps RFC 3339
    text (docs/decisions/0019-hostile-input-at-every-door.md), and `with_recorded_at`.
    Declares no field: the field order is `StreamHead`'s and `StreamBody`'s."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    @field_validator("schema_version", mode="before", check_fields=False)
    @classmethod
    def _whole_number(cls, value: object) -> object:
        # Subclasses narrow schema_version to a Literal, which alone would read `true` as 1.
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"must be a JSON integer, got {type(value).__name__}")
        return value

    @field_validator("occurred_at", "recorded_at", mode="before", check_fields=False)
    @classmethod
    def _rfc3339_text(cls, value: object) -> object:
        # pydantic would read a number as Unix seconds (-5 -> 1969); the wire has RFC 3339.
        if value is not None and not isinstance(value, str | datetime):
            raise ValueError(f"must be an RFC 3339 date-time string, got {type(value).__name__}")
        return value

    def with_recorded_at(self, when: datetime) -> Self:
        """Return a copy stamped with the store's `recorded_at` (the event itself is unchanged)."""
        return self.model_copy(update={"recorded_at": when})


def envelope_model(base: type[_E], payload_cls: type[Payload], name: str) -> type[_E]:
    """The envelope model `name` of one payload type: `base` with `type` and `schema_version`
    pinned to the payload's (`Literal`s: the tagged union's discriminator) and `payload` typed;
    its docstring says which type and version, then the payload's."""
    fields: dict[str, Any] = {
        "type": (Literal[payload_cls.TYPE], ...),
        "schema_version": (Literal[payload_cls.SCHEMA_VERSION], payload_cls.SCHEMA_VERSION),
        "payload": (payload_cls, ...),
    }
    doc = f"Envelope of `{payload_cls.TYPE}` (schema v{payload_cls.SCHEMA_VERSION}).\n\n"
    return create_model(name, __base__=base, __doc__=doc + (payload_cls.__doc__ or ""), **fields)


_S = TypeVar("_S", bound="StreamBody")


@dataclass(frozen=True, slots=True)
class StreamEvents(Generic[_S]):
    """The events of one stream kind: per wire type its envelope model (`envelopes`), their
    tagged union on `type` (`union`, what the JSON Schemas are generated from) and its
    validator (`adapter`)."""

    envelopes: dict[str, type[_S]]
    union: Any
    adapter: TypeAdapter[_S]
    stream_field: str = ""

    def parse(self, raw: dict[str, Any]) -> _S:
        """Validate one event given as a dict.

        Raises:
            pydantic.ValidationError: a field is missing or wrong (the error names it).
        """
        return self.adapter.validate_python(raw)

    def parse_json(self, data: str | bytes) -> _S:
        """Validate one event from its JSON text.

        Raises:
            pydantic.ValidationError: invalid JSON or a missing / wrong field.
        """
        return self.adapter.validate_json(data)

    def new(
        self,
        stream_id: str,
        seq: int,
        payload: Payload,
        occurred_at: datetime,
        actor: str,
        event_id: str,
    ) -> _S:
        """A new event of `payload` at position `seq` of stream `stream_id` (in the kind's
        `stream_field`), validated as a received one is.

        Raises:
            pydantic.ValidationError: a field is wrong (e.g. `payload` not of this kind).
        """
        return self.parse(
            {
                "event_id": event_id,
                self.stream_field: stream_id,
                "seq": seq,
                "type": payload.TYPE,
                "schema_version": payload.SCHEMA_VERSION,
                "occurred_at": occurred_at.isoformat(),
                "actor": actor,
                "payload": payload.model_dump(mode="json"),
            }
        )


def stream_events(base: type[_S], payloads: Sequence[type[Payload]]) -> StreamEvents[_S]:
    """The `StreamEvents` of the kind whose envelope is `base` and whose payload types are
    `payloads` (each envelope model named after its payload, `...Event`)."""
    envelopes = {p.TYPE: envelope_model(base, p, p.__name__ + "Event") for p in payloads}
    members: Any = tuple(envelopes.values())
    union: Any = Annotated[Union[members], Field(discriminator="type")]  # noqa: UP007
    return StreamEvents(envelopes, union, TypeAdapter(union), base.STREAM_FIELD)


class StreamHead(EnvelopeChecks):
    """The kernel every stream kind's envelope starts with: `event_id`, the idempotency key
    (appending the same id twice is a no-op). A kind names its stream in a subclass
    (`GameStream`: `game_id`) that sets `STREAM_FIELD`; its envelope is
    `class KindEnvelope(StreamBody, KindStream)`, so the stored JSON's field order is
    `event_id`, the stream id, then `StreamBody`'s fields (pydantic orders fields from the
    furthest base on; docs/decisions/0020-one-stream-kernel.md)."""

    STREAM_FIELD: ClassVar[str] = ""
    event_id: UUID

    def stream_id(self) -> str:
        """The id of the stream this event belongs to (the value of `STREAM_FIELD`)."""
        return str(getattr(self, self.STREAM_FIELD))


class StreamBody(StreamHead):
    """The envelope fields after the stream id, the same for every stream kind.

    Fields:
        seq: the event's 1-based position in its stream; an append with `seq = n` expects the
            stream's current version to be `n - 1`.
        type: the stable wire name of the payload type.
        schema_version: the payload's shape version; old versions are upcast on read.
        occurred_at: when it happened (timezone-aware).
        recorded_at: set by the store when appended; senders leave it null.
        actor: who reported it (a table integration, a referee, an organiser).
        correlation_id / causation_id: optional tracing ids.
    """

    seq: int = Field(ge=1, strict=True)
    type: TypeName
    schema_version: int = Field(ge=1)
    occurred_at: AwareDatetime
    recorded_at: AwareDatetime | None = None
    actor: NonEmptyText
    correlation_id: str | None = Field(default=None, max_length=128)
    causation_id: str | None = Field(default=None, max_length=128)
    payload: Payload


def check_stream(stream_id: str, events: Iterable[StreamHead]) -> None:
    """The envelope check every append makes: each event names stream `stream_id`.

    Raises:
        ValueError: an event names another stream (the message names the kind's field).
    """
    for event in events:
        # the id as stored (a `str` for every kind today) decides without `stream_id()`'s call
        value = getattr(event, event.STREAM_FIELD)
        if value != stream_id and str(value) != stream_id:
            raise ValueError(
                f"{event.STREAM_FIELD}: event {event.event_id} is for {event.stream_id()}, "
                f"not {stream_id}"
            )


class GameStream(StreamHead):
    """A game's stream: named by `game_id`."""

    STREAM_FIELD: ClassVar[str] = "game_id"
    game_id: GameId


class Envelope(StreamBody, GameStream):
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

    `seq` and `schema_version` must be JSON integers (`true`, `"5"`, `1.0` refused) and the
    timestamps RFC 3339 text (a bare number such as `-5` is refused, not read as 1969).
    """

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready dict of this event (the JSONL / stream format)."""
        return self.model_dump(mode="json")
