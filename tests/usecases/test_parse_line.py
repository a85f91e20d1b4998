"""`parse.parse_line` (one pydantic pass over a valid JSONL line, `scoreledger score`'s parser)
answers exactly what the step-by-step path answers: `decode_json`, an object required, then
`parse_events`: the same envelope for valid lines and old versions to upcast, the same refusal
(kind, rule, field, extras) for everything else. Source: docs/decisions/0012-hot-reads-and-off-loop-replays.md."""

from __future__ import annotations

import json
from typing import Any

import pytest

from contracts.envelope import Envelope
from services.usecases.parse import decode_json, parse_events, parse_line
from services.usecases.refusal import Refusal
from tests.contracts.samples import v1_score_correction
from tests.example_lines import EXAMPLE_LINES

LINES = EXAMPLE_LINES
V1 = v1_score_correction(json.loads(LINES[0])["game_id"])


def _step_by_step(text: str) -> Envelope:
    value = decode_json(text.encode("utf-8", "surrogatepass"), "line")
    if not isinstance(value, dict):
        raise Refusal("invalid", "body.shape", "an event must be a JSON object", "body")
    return parse_events(value)[0]


def _outcome(text: str, fast: bool) -> Envelope | dict[str, Any]:
    try:
        return parse_line(text, "line") if fast else _step_by_step(text)
    except Refusal as refusal:
        return refusal.to_dict()


def _same(text: str) -> Envelope | dict[str, Any]:
    fast, slow = _outcome(text, True), _outcome(text, False)
    assert fast == slow
    assert type(fast) is type(slow)
    return fast


def test_every_example_line_parses_the_same() -> None:
    assert len(LINES) > 100
    for line in LINES:
        got = _same(line + "\n")  # as a file's lines come, newline included
        assert isinstance(got, Envelope)
        assert str(got.event_id) == json.loads(line)["event_id"]


def test_an_old_version_is_upcast_as_before() -> None:
    got = _same(json.dumps(V1))
    assert isinstance(got, Envelope)
    assert got.schema_version == 2


@pytest.mark.parametrize(
    "text",
    [
        "",
        "{}",
        "[]",
        "[" + LINES[0] + "]",  # a batch is not a line's event
        '"text"',
        LINES[0].replace('"seq":1', '"seq":"1"'),
        LINES[0].replace('"actor":', '"extra":1,"actor":'),
        json.dumps({**V1, "schema_version": 9}),
        '{"a": NaN}',
        LINES[0] + " trailing",
        "{" * 10_000,
        LINES[0].replace('"actor":"', '"actor":"\ud800'),  # an unpaired surrogate
    ],
)
def test_refusals_are_the_same(text: str) -> None:
    assert isinstance(_same(text), dict)


def test_leading_space_and_a_byte_order_mark_read_as_before() -> None:
    assert isinstance(_same("  " + LINES[0]), Envelope)
    assert isinstance(_same("\ufeff" + LINES[0]), Envelope)
