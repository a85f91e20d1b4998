"""`parse.parse_body` (one pydantic pass over a valid body) answers exactly what the
step-by-step `parse_events(decode_json(...))` answers: the same envelopes for valid batches,
single envelopes and old versions to upcast, the same refusal (kind, rule, field, extras) for
everything else. Source: docs/decisions/0012-hot-reads-and-off-loop-replays.md (ingest profile: parse)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from contracts.envelope import Envelope
from services.usecases.parse import MAX_BATCH, decode_json, parse_body, parse_events
from services.usecases.refusal import Refusal
from tests.contracts.samples import v1_score_correction

EXAMPLE = Path(__file__).parents[2] / "contracts/examples/trickerion-4p-dark-alley-academy.jsonl"
LINES = [line for line in EXAMPLE.read_text().splitlines() if line.strip()]
V1 = v1_score_correction(json.loads(LINES[0])["game_id"])


Outcome = list[Envelope] | dict[str, Any]
"""The envelopes, or the refusal's `to_dict()`."""


def _outcome(parse: Callable[[], list[Envelope]]) -> Outcome:
    try:
        return parse()
    except Refusal as refusal:
        return refusal.to_dict()


def _same(raw: bytes) -> Outcome:
    fast = _outcome(lambda: parse_body(raw, "body"))
    slow = _outcome(lambda: parse_events(decode_json(raw, "body")))
    assert fast == slow
    if isinstance(fast, list) and isinstance(slow, list):
        assert [type(e) for e in fast] == [type(e) for e in slow]
    return fast


def _events(raw: bytes) -> list[Envelope]:
    got = _same(raw)
    assert isinstance(got, list), got
    return got


def test_valid_batches_and_single_envelopes_parse_the_same() -> None:
    for i in range(0, len(LINES), 50):
        assert len(_events(("[" + ",".join(LINES[i : i + 50]) + "]").encode())) == len(
            LINES[i : i + 50]
        )
    assert len(_events(LINES[0].encode())) == 1


def test_an_old_version_is_upcast_on_both_paths() -> None:
    assert _events(json.dumps([json.loads(LINES[0]), V1]).encode())[1].schema_version == 2
    assert _events(json.dumps(V1).encode())[0].schema_version == 2


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"[]",
        b"{}",
        b"[1]",
        b'"text"',
        b"[" + b",".join([LINES[0].encode()] * (MAX_BATCH + 1)) + b"]",
        ("[" + LINES[0] + "," + LINES[1].replace('"seq":2', '"seq":"2"') + "]").encode(),
        LINES[0].replace('"actor":', '"extra":1,"actor":').encode(),
        json.dumps({**V1, "schema_version": 9}).encode(),
        b' [{"a": NaN}]',
        LINES[0].encode() + b" trailing",
        b"[" * 10_000,
    ],
)
def test_refusals_are_the_same(raw: bytes) -> None:
    assert isinstance(_same(raw), dict)


def test_a_byte_order_mark_is_read_as_before() -> None:
    assert len(_events("\ufeff".encode() + LINES[0].encode())) == 1  # json.loads reads it


def test_no_body_is_refused_as_before() -> None:
    with pytest.raises(Refusal) as refused:
        parse_body(None, "data")
    assert (refused.value.rule, refused.value.field) == ("body.json", "data")
