"""`parse_event_json` calls the adapter's validator itself (not `TypeAdapter.validate_json`):
for any line, good or broken (a field dropped or of another type, cut short, not UTF-8, not
JSON, an old schema version), it answers exactly as the `TypeAdapter` path did: the same event,
or the same error (type, `errors()`, and the text the dead-letter reasons quote)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from contracts.envelope import Envelope
from contracts.events import (
    EVENT_ADAPTER,
    _needs_upcast,
    _with_version,
    parse_event,
    parse_event_json,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "contracts" / "examples"
LINES = [
    line
    for path in sorted(EXAMPLES.glob("*.jsonl"))
    for line in path.read_text().splitlines()[:40]
    if line.strip()
]


def _as_before(data: str | bytes) -> Envelope:
    """`parse_event_json` as it was at 7d95402: `EVENT_ADAPTER.validate_json`."""
    try:
        return EVENT_ADAPTER.validate_json(data)
    except ValidationError as error:
        try:
            raw = json.loads(data)
        except ValueError:
            raise error from None
        if isinstance(raw, dict) and _needs_upcast(_with_version(raw)):
            return parse_event(raw)
        raise


def _answer(parse: Any, data: str | bytes) -> tuple[object, ...]:
    try:
        return ("event", parse(data))
    except ValidationError as error:
        # the errors as JSON: an exception in `ctx` compares by identity
        errors = json.dumps(error.errors(include_url=False), default=repr)
        return ("invalid", error.title, errors, str(error)[:300])
    except Exception as error:  # anything else must match too
        return ("raised", type(error).__name__, str(error))


def _broken(line: str, how: int, key: str, value: object, cut: int) -> str | bytes:
    raw = json.loads(line)
    where = raw["payload"] if how % 2 and raw.get("payload") else raw
    name = sorted(where)[sum(map(ord, key)) % len(where)] if where else key
    if how == 0:
        return line
    if how in (1, 2):  # a field dropped
        where.pop(name, None)
    elif how in (3, 4):  # a field of another type, or an unknown field
        where[key if how == 4 else name] = value
    elif how == 5:  # cut short
        return line[: cut % max(1, len(line))]
    elif how == 6:  # not UTF-8
        return line.encode()[:cut] + b"\xff\xfe" + line.encode()[cut:]
    elif how == 7:  # an old schema version, or none
        raw["schema_version"] = value
    elif how == 8:  # not an object
        return json.dumps([raw])
    else:  # trailing garbage
        return line + "x"
    return json.dumps(raw)


values = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=5), st.lists(st.integers())
)


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(LINES),
    st.integers(0, 9),
    st.text(min_size=1, max_size=6),
    values,
    st.integers(0, 400),
    st.booleans(),
)
def test_a_line_parses_or_fails_as_through_the_type_adapter(
    line: str, how: int, key: str, value: object, cut: int, as_bytes: bool
) -> None:
    data = _broken(line, how, key, value, cut)
    if as_bytes and isinstance(data, str):
        data = data.encode()
    assert _answer(parse_event_json, data) == _answer(_as_before, data)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.binary(max_size=64), st.text(max_size=64)))
def test_any_bytes_fail_as_through_the_type_adapter(data: str | bytes) -> None:
    assert _answer(parse_event_json, data) == _answer(_as_before, data)
