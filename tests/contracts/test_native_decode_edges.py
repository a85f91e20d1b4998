"""The native decode at its edges answers as the published validators: timestamps in every
RFC 3339 spelling and many that are not (offsets, a leap second, `Z` / `+00:00` / `-00:00`,
lower-case `t` / `z`, fractions past microseconds, a date only, big years, numbers as text,
escaped characters), `schema_version` as any JSON value, `recorded_at` null or absent, and
stored v1 `game.score_corrected` lines (upcast) with the version given or omitted, and bodies
that are not UTF-8 (test_native_decode_same_answers.py's body property replaces such bytes).
Source: contracts/native.py; docs/decisions/0008-upcast-on-read.md;
docs/decisions/0019-hostile-input-at-every-door.md.
"""

from __future__ import annotations

import json

import pytest

from contracts.events import parse_event_json
from services.usecases.parse import _published, parse_body, parse_line
from tests.contracts.test_native_decode_same_answers import (
    LINES,
    _answer,
    _line_before,
    _stored_before,
)

TIMES = [
    '"2026-11-30T10:00:00Z"', '"2026-11-30T10:00:00+00:00"', '"2026-11-30T10:00:00-00:00"',
    '"2026-11-30t10:00:00z"', '"2026-11-30T23:59:60Z"', '"2026-11-30T10:00:00.1234567Z"',
    '"2026-11-30T10:00:00,5Z"', '"2026-11-30T10:00Z"', '"2026-11-30T10:00:00+14:00"',
    '"2026-11-30T10:00:00+2400"', '"2026-11-30T10:00:00+01"', '"9999-12-31T23:59:59-23:59"',
    '"0001-01-01T00:00:00Z"', '"2026-11-30T10:00:00"', '"+12026-11-30T10:00:00Z"', '"2026-11-30"', '"20261130T100000Z"',
    '"1700000000"', '"1700000000.5"', '"-5"', '" 2026-11-30T10:00:00Z"', '"\\u0032026-11-30T10:00:00\\u005a"',
    '"2026-11-30T10:00:00\\ud800Z"', '"2026-02-30T10:00:00Z"', '""', "1700000000", "-5", "1.5",
    "null", "true", "[]", "{}",
]  # fmt: skip
VERSIONS = ["1", "2", "1.0", "2.0", "1e0", "-0", "0", "true", '"1"', "null", "[1]", "10" * 20]
FIELDS = [("occurred_at", t) for t in TIMES] + [("recorded_at", t) for t in TIMES]
FIELDS += [("schema_version", v) for v in VERSIONS] + [("seq", v) for v in VERSIONS]


def _with(line: str, field: str, raw: str | None) -> str:
    event = json.loads(line)
    event.pop(field, None)
    if raw is None:
        return json.dumps(event)
    return json.dumps({**event, field: "@@"}).replace('"@@"', raw)


def _same(text: str) -> None:
    body = text.encode()
    assert _answer(parse_body, body, "body") == _answer(_published, body, "body")
    batch = b"[" + body + b"," + LINES[2].encode() + b"]"
    assert _answer(parse_body, batch, "body") == _answer(_published, batch, "body")
    assert _answer(parse_line, text, "line") == _answer(_line_before, text, "line")
    assert _answer(parse_event_json, text) == _answer(_stored_before, text)


@pytest.mark.parametrize(("field", "raw"), FIELDS)
def test_an_edge_value_is_answered_as_before(field: str, raw: str) -> None:
    _same(_with(LINES[1], field, raw))


@pytest.mark.parametrize("field", ["recorded_at", "schema_version", "occurred_at"])
def test_a_field_left_out_is_answered_as_before(field: str) -> None:
    _same(_with(LINES[1], field, None))


V1 = {
    "event_id": "00000000-0000-0000-0000-0000000000c1",
    "game_id": "g-1",
    "seq": 4,
    "type": "game.score_corrected",
    "occurred_at": "2026-11-30T10:00:00Z",
    "recorded_at": "2026-11-30T10:00:01.5+00:00",
    "actor": "ref",
    "payload": {"player_id": "ann", "points": 3, "reason": "miscount"},
}


@pytest.mark.parametrize("version", [None, "1", "2", "1.0", "true", '"1"', "3", "0"])
def test_a_stored_v1_correction_is_upcast_or_refused_as_before(version: str | None) -> None:
    text = _with(json.dumps(V1), "schema_version", version)
    _same(text)
    if version == "1":
        assert parse_event_json(text).model_dump()["payload"]["amount"] == 3


@pytest.mark.parametrize("field", ["occurred_at", "actor", "type"])
def test_a_body_that_is_not_utf8_is_refused_as_before(field: str) -> None:
    event = json.loads(LINES[1])
    text = json.dumps({**event, field: "@@"}).encode().replace(b"@@", b"2026\xff\xfe")
    for body in (text, b"[" + text + b"]", b"[" + LINES[2].encode() + b"," + text + b"]"):
        assert _answer(parse_body, body, "body") == _answer(_published, body, "body")
    assert _answer(parse_event_json, text) == _answer(_stored_before, text)
