"""The event catalogue: one typed envelope per wire type, and the parsers for the wire format.

The wire types are the common `game.*` ones plus each registered game's (`contracts.games`);
`AnyEvent` is a discriminated union on `type`, rebuilt when a game is registered; `parse_event` / `parse_event_json` validate one
event (upcasting old `schema_version`s on the way), `dump_event_json` writes one JSONL line.
Source: docs/decisions/0001-events-are-immutable-facts.md (contracts); docs/decisions/0012-hot-reads-and-off-loop-replays.md (pydantic `validate_json` costs ~1.6 µs).
"""

from __future__ import annotations

import json
import threading
from typing import Annotated, Any, Literal, Union

from pydantic import Field, TypeAdapter, ValidationError, create_model
from pydantic_core import SchemaValidator

from contracts import games
from contracts import native as _native
from contracts.common import COMMON_PAYLOADS
from contracts.envelope import Envelope, Payload, envelope_model
from contracts.upcasting import upcast
from contracts.versions import omitted_version

ALL_PAYLOADS: tuple[type[Payload], ...] = COMMON_PAYLOADS
"""Every payload class that parses: the common ones and each registered game's."""
PAYLOAD_BY_TYPE: dict[str, type[Payload]] = {p.TYPE: p for p in COMMON_PAYLOADS}
ENVELOPE_BY_TYPE: dict[str, type[Envelope]] = {}
"""Wire type -> its envelope model (updated in place when a game is registered)."""


def _envelope_for(payload_cls: type[Payload]) -> type[Envelope]:
    """The type's envelope; `schema_version` required when an omitted one means an older
    version than the current (`contracts.versions`): the default would be the current one."""
    name = payload_cls.__name__.removesuffix("Payload") + "Event"
    model = envelope_model(Envelope, payload_cls, name)
    current = payload_cls.SCHEMA_VERSION
    if omitted_version(payload_cls.TYPE, current) == current:
        return model
    pinned: Any = Literal[current]  # a Literal built at run time
    return create_model(name, __base__=model, __doc__=model.__doc__, schema_version=(pinned, ...))


def _union() -> Any:
    return Annotated[
        Union[tuple(ENVELOPE_BY_TYPE.values())],  # noqa: UP007
        Field(discriminator="type"),
    ]


for _payload in COMMON_PAYLOADS:
    ENVELOPE_BY_TYPE[_payload.TYPE] = _envelope_for(_payload)
_LAZY = threading.Lock()
_built = False  # the adapters are built once after the bundled games, then on each change


def _game_changed(game: games.Game, added: bool) -> None:
    """Rebuild the parse union when a game is registered or removed (its payloads parse or not).

    Raises:
        ValueError: the game's payloads reuse a wire type already taken.
    """
    global ALL_PAYLOADS
    types = [p.TYPE for p in game.payloads]
    if added:
        clash = [t for t in types if t in PAYLOAD_BY_TYPE]
        if clash or len(set(types)) != len(types):
            raise ValueError(f"game {game.key!r}: wire types already taken: {clash or types}")
        for payload in game.payloads:
            PAYLOAD_BY_TYPE[payload.TYPE] = payload
            ENVELOPE_BY_TYPE[payload.TYPE] = _envelope_for(payload)
    else:
        for t in types:
            PAYLOAD_BY_TYPE.pop(t, None)
            ENVELOPE_BY_TYPE.pop(t, None)
    ALL_PAYLOADS = tuple(PAYLOAD_BY_TYPE.values())
    if _built:
        _build()


def _build() -> None:
    global AnyEvent, EVENT_ADAPTER, NATIVE_EVENT
    AnyEvent = _union()
    EVENT_ADAPTER = TypeAdapter(AnyEvent)
    NATIVE_EVENT = _native.native_validator(EVENT_ADAPTER.core_schema)
    with _LAZY:
        for lazy in ("EVENT_LIST_ADAPTER", "NATIVE_EVENT_LIST"):
            globals().pop(lazy, None)  # rebuilt on next use (module __getattr__)


def __getattr__(name: str) -> Any:
    # The list validators cost as much to build as the event's and few callers need them.
    if name not in ("EVENT_LIST_ADAPTER", "NATIVE_EVENT_LIST"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    while True:
        adapter = EVENT_ADAPTER
        built: Any
        if name == "EVENT_LIST_ADAPTER":
            built = TypeAdapter(list[AnyEvent])
        else:
            built = _native.native_validator({"type": "list", "items_schema": adapter.core_schema})
        with _LAZY:  # kept only if no game joined or left meanwhile (another thread)
            if adapter is EVENT_ADAPTER:
                globals()[name] = built
                return built


games.on_change(_game_changed)
AnyEvent: Any
EVENT_ADAPTER: TypeAdapter[Envelope]
EVENT_LIST_ADAPTER: TypeAdapter[list[Envelope]]
NATIVE_EVENT: SchemaValidator
"""`EVENT_ADAPTER`'s validator for JSON text with the envelope's checks native
(`contracts.native`): the same models for what it accepts; what it refuses is decided by
`EVENT_ADAPTER`. `NATIVE_EVENT_LIST` is the same for a JSON array (built on first use)."""
NATIVE_EVENT_LIST: SchemaValidator
_build()
_built = True


def _needs_upcast(raw: dict[str, Any]) -> bool:
    payload_cls = PAYLOAD_BY_TYPE.get(str(raw.get("type")))
    version = raw.get("schema_version")
    # Only a whole number can name a version; anything else is left to validation (422).
    if payload_cls is None or not isinstance(version, int) or isinstance(version, bool):
        return False
    return version != payload_cls.SCHEMA_VERSION


def _upcast_or_invalid(raw: dict[str, Any]) -> dict[str, Any]:
    """`upcast`, with any failure reported as a ValidationError naming the field, like every
    other bad input (an old version whose payload is not that version's shape)."""
    try:
        return upcast(raw, PAYLOAD_BY_TYPE[str(raw["type"])].SCHEMA_VERSION)
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        field = "schema_version" if str(error).startswith("schema_version") else "payload"
        message = (
            str(error)
            if isinstance(error, ValueError)
            else f"not a v{raw['schema_version']} payload: missing or wrong {error}"
        )
        raise ValidationError.from_exception_data(
            "upcast",
            [
                {
                    "type": "value_error",
                    "loc": (field,),
                    "input": raw.get(field),
                    "ctx": {"error": message},
                }
            ],
        ) from None


def parse_event(raw: dict[str, Any]) -> Envelope:
    """Validate one event given as a dict, upcasting an old `schema_version` first.

    Raises:
        pydantic.ValidationError: a field is missing or wrong, or an old version cannot be
            upcast (the error names the field).
    """
    raw = _with_version(raw)
    if _needs_upcast(raw):
        raw = _upcast_or_invalid(raw)
    return EVENT_ADAPTER.validate_python(raw)


def _with_version(raw: dict[str, Any]) -> dict[str, Any]:
    """`raw` with an omitted `schema_version` of a known type made the table's
    (`contracts.versions.omitted_version`), so it is upcast from there."""
    payload_cls = PAYLOAD_BY_TYPE.get(str(raw.get("type")))
    if payload_cls is None or "schema_version" in raw:
        return raw
    return {**raw, "schema_version": omitted_version(payload_cls.TYPE, payload_cls.SCHEMA_VERSION)}


def parse_event_json(data: str | bytes) -> Envelope:
    """Validate one event from its JSON text (the fast path; falls back to upcasting).

    Raises:
        pydantic.ValidationError: invalid JSON, a missing / wrong field, or an old version that
            cannot be upcast.
    """
    try:
        native: Envelope = NATIVE_EVENT.validate_json(data)
    except ValueError:  # refused natively: the published validator decides and says why
        pass
    else:
        return native
    try:
        # the adapter's validator itself: `TypeAdapter.validate_json` only checks its keyword
        # arguments and passes them on (defaults here), a Python frame per event on the
        # projector's hot path (docs/profiles/hot-path-profiles.md)
        event: Envelope = EVENT_ADAPTER.validator.validate_json(data)
    except ValidationError as error:
        try:
            raw = json.loads(data)
        except ValueError:
            raise error from None
        if isinstance(raw, dict) and _needs_upcast(_with_version(raw)):
            return parse_event(raw)
        raise
    return event


def dump_event_json(event: Envelope) -> str:
    """One event as compact JSON (one JSONL line, without the newline)."""
    return event.model_dump_json()
