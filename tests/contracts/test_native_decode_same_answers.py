"""The native decode (`contracts.native`: the envelope's Python checks done by pydantic-core)
answers exactly as the published validators did, at the HTTP door (`parse_body`), for an
offline JSONL line (`parse_line`) and for a stored line (`parse_event_json`): for any body,
good or broken (a field dropped or of another type, a version or a timestamp of another JSON
type or format, cut short, not UTF-8), the same events (same classes, same fields set, same
JSON) or the same refusal (kind, rule, field, message, extras) or error. The old parsers are
kept below as they were before the native decode.
Source: docs/profiles/decode-profiles.md; docs/decisions/0019-hostile-input-at-every-door.md.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

import contracts.events
from contracts.envelope import Envelope
from contracts.events import parse_event_json
from contracts.native import native_validator
from services.usecases.parse import (
    MAX_BATCH,
    decode_json,
    parse_body,
    parse_events,
    parse_line,
)
from services.usecases.refusal import Refusal
from tests.envelope_calls import envelope_calls

EXAMPLES = Path(__file__).resolve().parents[2] / "contracts" / "examples"
LINES = [
    line
    for path in sorted(EXAMPLES.glob("*.jsonl"))
    for line in path.read_text().splitlines()[:40]
    if line.strip()
]


def _body_before(raw: bytes | None, field: str) -> list[Envelope]:
    """`parse_body` as it was before the native decode."""
    if raw is not None:
        start = raw[:1]
        try:
            if start == b"[":
                events = contracts.events.EVENT_LIST_ADAPTER.validate_json(raw)
                if 0 < len(events) <= MAX_BATCH:
                    return events
            elif start == b"{":
                return [contracts.events.EVENT_ADAPTER.validate_json(raw)]
        except ValueError:
            pass
    return parse_events(decode_json(raw, field))


def _line_before(text: str | bytes, field: str) -> Envelope:
    """`parse_line` as it was before the native decode."""
    if text[:1] in ("{", b"{"):
        try:
            return contracts.events.EVENT_ADAPTER.validate_json(text)
        except ValueError:
            pass
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    value = decode_json(raw, field)
    if not isinstance(value, dict):
        raise Refusal("invalid", "body.shape", "an event must be a JSON object", "body")
    return parse_events(value)[0]


def _stored_before(data: str | bytes) -> Envelope:
    """`parse_event_json` as it was before the native decode."""
    try:
        event: Envelope = contracts.events.EVENT_ADAPTER.validator.validate_json(data)
    except ValidationError as error:
        try:
            raw = json.loads(data)
        except ValueError:
            raise error from None
        if isinstance(raw, dict) and contracts.events._needs_upcast(
            contracts.events._with_version(raw)
        ):
            return contracts.events.parse_event(raw)
        raise
    return event


def _events(events: list[Envelope]) -> list[tuple[object, ...]]:
    return [
        (type(e), e, e.model_fields_set, e.payload.model_fields_set, e.model_dump_json())
        for e in events
    ]


def _answer(parse: Any, *args: Any) -> tuple[object, ...]:
    try:
        got = parse(*args)
        return ("events", _events(got if isinstance(got, list) else [got]))
    except Refusal as refusal:
        return ("refused", refusal.kind, refusal.to_dict())
    except ValidationError as error:
        errors = json.dumps(error.errors(include_url=False), default=repr)
        return ("invalid", error.title, errors, str(error)[:300])
    except Exception as error:
        return ("raised", type(error).__name__, str(error))


TIMES = [
    "2026-11-30T10:00:00Z",
    "2026-11-30 10:00:00z",
    "2026-11-30T10:00:00.123456789+02:00",
    "2026-11-30T10:00:00",
    "2026-11-30",
    "1700000000",
    "",
    5,
    -5,
    1.5,
    True,
    None,
    [],
]
VERSIONS = [1, 2, 3, 0, -1, True, False, 1.0, 2.0, "1", None, 10**30, {}]
VALUES = st.one_of(st.sampled_from(TIMES + VERSIONS), st.text(max_size=5), st.integers(-5, 5))


def _broken(line: str, how: int, key: str, value: object, cut: int) -> str | bytes:
    raw = json.loads(line)
    where = raw["payload"] if how == 3 and raw.get("payload") else raw
    name = sorted(where)[sum(map(ord, key)) % len(where)] if where else key
    if how == 0:
        return line
    if how == 1:  # a field dropped
        where.pop(name, None)
    elif how in (2, 3):  # a field of another type
        where[name] = value
    elif how == 4:  # cut short
        return line[: cut % max(1, len(line))]
    elif how == 5:  # not UTF-8
        return line.encode()[:cut] + b"\xff\xfe" + line.encode()[cut:]
    elif how == 6:
        raw["schema_version"] = value
    elif how == 7:
        raw["occurred_at"] = value
    else:
        raw["recorded_at"] = value
    return json.dumps(raw)


CHANGES = st.tuples(st.integers(0, 8), st.text(min_size=1, max_size=6), VALUES, st.integers(0, 400))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(LINES), CHANGES), min_size=1, max_size=4), st.booleans())
def test_a_body_parses_or_is_refused_as_before(
    items: list[tuple[str, tuple[int, str, object, int]]], batch: bool
) -> None:
    parts = [_broken(line, *change) for line, change in items]
    texts = [p.decode("utf-8", "replace") if isinstance(p, bytes) else p for p in parts]
    body = ("[" + ",".join(texts) + "]" if batch else texts[0]).encode()
    assert _answer(parse_body, body, "body") == _answer(_body_before, body, "body")


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(LINES), CHANGES, st.booleans())
def test_a_line_parses_or_is_refused_as_before(
    line: str, change: tuple[int, str, object, int], as_bytes: bool
) -> None:
    data = _broken(line, *change)
    if as_bytes and isinstance(data, str):
        data = data.encode()
    assert _answer(parse_line, data, "line") == _answer(_line_before, data, "line")
    assert _answer(parse_event_json, data) == _answer(_stored_before, data)


def test_every_example_and_a_full_batch_parse_to_equal_models() -> None:
    body = ("[" + ",".join(LINES) + "]").encode()
    assert _answer(parse_body, body, "body") == _answer(_body_before, body, "body")
    for line in LINES:
        assert _answer(parse_event_json, line) == _answer(_stored_before, line)


def _python_calls(parse: Any, *args: Any) -> list[str]:
    """The functions of contracts/envelope.py (the envelope's checks) `parse(*args)` runs."""
    return envelope_calls(parse, *args)[0]


def test_a_valid_body_and_a_stored_line_run_no_python_envelope_check() -> None:
    lines = [line for line in LINES if "game_started" not in line]
    stored = lines[0].replace('"recorded_at":null', '"recorded_at":"2026-11-30T10:00:01Z"')
    assert '"recorded_at":"' in stored
    assert _python_calls(parse_body, ("[" + ",".join(lines[:50]) + "]").encode(), "body") == []
    assert _python_calls(parse_body, lines[0].encode(), "body") == []
    assert _python_calls(parse_event_json, stored) == []
    assert _python_calls(parse_line, lines[0], "line") == []


def test_building_a_native_validator_leaves_the_published_models_as_they_were() -> None:
    models = list(contracts.events.ENVELOPE_BY_TYPE.values())
    complete = [m.__dict__.get("__pydantic_complete__") for m in models]
    schemas = [m.model_json_schema() for m in models]
    native_validator(contracts.events.EVENT_ADAPTER.core_schema)
    assert [m.__dict__.get("__pydantic_complete__") for m in models] == complete
    assert all(complete)
    assert [m.model_json_schema() for m in models] == schemas
    # each model's own validator still runs the envelope's checks and words them as before
    raw = json.loads(LINES[1])
    model = contracts.events.ENVELOPE_BY_TYPE[raw["type"]]
    with pytest.raises(ValidationError, match="must be a JSON integer, got bool"):
        model.model_validate_json(json.dumps({**raw, "schema_version": True}))
    with pytest.raises(ValidationError, match="must be an RFC 3339 date-time string, got int"):
        model.model_validate_json(json.dumps({**raw, "occurred_at": 5}))
