"""Parse a write's body: JSON bytes -> envelopes (upcast if old), or a `Refusal`.

A body is one envelope (a JSON object) or a batch (a JSON array) of 1..`MAX_BATCH`. Schema
errors name the field (pydantic `loc` within the event) and never echo the input.
Source: issue brief (ingest, hostile input); contracts/envelope.py.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from pydantic import ValidationError

import contracts.events
from contracts.envelope import Envelope
from contracts.events import parse_event
from services.usecases.refusal import Refusal, bounded, listing


class _Validator(Protocol):
    """A JSON validator: pydantic-core's `SchemaValidator` or a pydantic `TypeAdapter`."""

    def validate_json(self, data: bytes, /) -> Any:
        """The decoded value. Raises: pydantic_core.ValidationError (a ValueError)."""
        ...


MAX_BATCH = 1000
"""Most events one write may carry."""


def _json_safe(errors: list[Any]) -> list[dict[str, Any]]:
    """pydantic errors as JSON-ready dicts, without the offending input and with unpaired
    surrogates escaped (they cannot be UTF-8)."""
    safe = []
    for e in errors:
        item = {"type": e["type"], "loc": list(e["loc"]), "msg": e["msg"]}
        text = json.dumps(item, ensure_ascii=False, default=str)
        safe.append(json.loads(text.encode("utf-8", "backslashreplace").decode("utf-8")))
    return safe


def schema_refusal(error: ValidationError, index: int | None) -> Refusal:
    """`invalid` / `schema.field`: `field` is the first error's dotted loc within the event
    (without the union tag; `type` when the tag itself is wrong); extras `index` and `errors`
    (at most 10 errors: type, loc prefixed by `body` and the batch index, msg)."""
    prefix: list[str | int] = ["body"] + ([index] if index is not None else [])
    errors = _json_safe(error.errors(include_url=False, include_input=False, include_context=False))
    # A message can quote the input (an unknown union tag whole): clipped, at most 10 errors.
    errors = [{**e, "msg": bounded(str(e["msg"]), 120)} for e in errors[:10]]
    detail = [{**e, "loc": prefix + e["loc"]} for e in errors]
    first = errors[0]
    message = first["msg"]
    loc = list(first["loc"])
    if first["type"] == "union_tag_invalid":
        message = unknown_type_message(error.errors(include_url=False)[0].get("ctx", {}))
        detail[0]["msg"] = "unknown event type"
    if first["type"].startswith("union_tag"):
        loc = ["type"]
    elif loc and isinstance(loc[0], str) and "." in loc[0]:  # the union tag, e.g. game.ended
        loc = loc[1:]
    return Refusal(
        "invalid",
        "schema.field",
        message,
        ".".join(map(str, loc)),
        {"index": index, "errors": detail},
    )


def unknown_type_message(context: dict[str, Any]) -> str:
    """`unknown event type 'x'; valid types: a, b, ...`: the type quoted (at most 40
    characters of input, `services.platform.problems.quote`'s rule) and every valid type, sorted, as
    many as `listing` fits (then `and N more`)."""
    tag = str(context.get("tag", ""))
    shown = repr(tag) if len(tag) <= 40 else f"{tag[:40]!r}… ({len(tag)} characters)"
    valid = sorted(contracts.events.ENVELOPE_BY_TYPE)
    return f"unknown event type {shown}; valid types: {listing(valid)}"


def decode_json(raw: bytes | None, field: str) -> Any:
    """The JSON value of `raw`.

    Raises:
        Refusal: `invalid` / `body.json` naming `field` (missing or not JSON).
    """
    if raw is None:
        raise Refusal("invalid", "body.json", f"the entry has no `{field}` field", field)
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as error:  # UnicodeDecodeError; absurd nesting
        raise Refusal("invalid", "body.json", f"invalid JSON: {error}", field) from None


def parse_events(body: Any) -> list[Envelope]:
    """One envelope (a JSON object) or a batch (a JSON array) -> envelopes, upcast if old.

    Raises:
        Refusal: `invalid`: `body.shape` (count, not an object), `schema.field`,
            `schema.version` (an unknown or non-upcastable version).
    """
    items, batch = (body, True) if isinstance(body, list) else ([body], False)
    if not items or len(items) > MAX_BATCH:
        raise Refusal(
            "invalid", "body.shape", f"send 1 to {MAX_BATCH} events, got {len(items)}", "body"
        )
    events = []
    for i, item in enumerate(items):
        index = i if batch else None
        if not isinstance(item, dict):
            raise Refusal(
                "invalid", "body.shape", "an event must be a JSON object", "body", {"index": index}
            )
        try:
            events.append(parse_event(item))
        except ValidationError as error:
            raise schema_refusal(error, index) from None
        except ValueError as error:  # upcasting: version unknown
            raise Refusal(
                "invalid", "schema.version", str(error), "schema_version", {"index": index}
            ) from None
    return events


def parse_body(raw: bytes | None, field: str) -> list[Envelope]:
    """`parse_events(decode_json(raw, field))`, the same envelopes and the same refusals, with
    one pass of pydantic over the JSON text when it is a valid batch (or envelope) of current
    schemas: the common case, about 20% cheaper than `json.loads` then validating each item.
    Anything else (invalid JSON, a wrong field, an old `schema_version` to upcast, a count out
    of bounds) takes the step-by-step path, which decides and names the refusal.

    Raises:
        Refusal: as `decode_json` and `parse_events`.
    """
    native = _whole(raw, contracts.events.NATIVE_EVENT_LIST, contracts.events.NATIVE_EVENT)
    return native if native is not None else _published(raw, field)


def _whole(raw: bytes | None, many: _Validator, one: _Validator) -> list[Envelope] | None:
    """`raw` decoded in one call: an array by `many` (1 to `MAX_BATCH` items), an object by
    `one`; None when it is neither, or is refused (leading whitespace included: the caller's
    next path decides it, with the same outcome)."""
    if raw is not None:
        start = raw[:1]
        try:
            if start == b"[":
                events: list[Envelope] = many.validate_json(raw)
                if 0 < len(events) <= MAX_BATCH:
                    return events
            elif start == b"{":
                return [one.validate_json(raw)]
        except ValueError:  # ValidationError
            pass  # refused or to upcast: decided by the caller's next path
    return None


def _published(raw: bytes | None, field: str) -> list[Envelope]:
    """`parse_body` through the published validators (what the native ones refuse: the
    refusal, or an old version to upcast, is decided and worded here)."""
    events = _whole(raw, contracts.events.EVENT_LIST_ADAPTER, contracts.events.EVENT_ADAPTER)
    return events if events is not None else parse_events(decode_json(raw, field))


def parse_line(text: str | bytes, field: str) -> Envelope:
    """One event given as one JSON object (a JSONL line): the same envelope and the same
    refusals as `parse_events(decode_json(text, field))` with a JSON object required, with one
    pass of pydantic over the text when it is a valid event of a current schema (the common
    case: about 40% of the cost of `json.loads` then validating the dict). Anything else (not
    JSON, not an object, a wrong field, an old `schema_version` to upcast) takes the
    step-by-step path, which decides and names the refusal.

    Raises:
        Refusal: as `decode_json` and `parse_events`; `body.shape` when the value is not an
            object.
    """
    start = text[:1]
    if start in ("{", b"{"):
        try:
            event: Envelope = contracts.events.NATIVE_EVENT.validate_json(text)
        except ValueError:  # refused natively: the published validator decides below
            pass
        else:
            return event
        try:
            return contracts.events.EVENT_ADAPTER.validate_json(text)
        except ValueError:  # ValidationError, or text that is not UTF-8: decided below
            pass
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    value = decode_json(raw, field)
    if not isinstance(value, dict):  # one event, not a batch
        raise Refusal("invalid", "body.shape", "an event must be a JSON object", "body")
    return parse_events(value)[0]


def game_of(body: Any) -> str | None:
    """The `game_id` a decoded body names (its first event's), or None when it names none; the
    inbox authorizes on it before validating the events (a mismatch is refused later)."""
    first = body[0] if isinstance(body, list) and body else body
    game_id = first.get("game_id") if isinstance(first, dict) else None
    return game_id if isinstance(game_id, str) else None
