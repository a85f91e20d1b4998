"""Issue 11: a refusal (what a dead letter's `reason` holds) never quotes the input at length:
a 1 MB unknown `type` once gave a 1 MB reason (21 MB for a 10 MB field)."""

from __future__ import annotations

import json

import pytest

from services.usecases.parse import parse_events
from services.usecases.refusal import Refusal


def test_a_huge_unknown_type_gives_a_short_reason() -> None:
    event = {
        "event_id": "0b8f5d3e-4c1a-4d3e-9a43-2f4e8f1b7c10",
        "game_id": "g",
        "seq": 1,
        "type": "t" * 1_000_000,
        "schema_version": 1,
        "occurred_at": "2026-11-30T10:00:00Z",
        "actor": "a",
        "payload": {},
    }
    with pytest.raises(Refusal) as refused:
        parse_events(event)
    reason = json.dumps(refused.value.to_dict())
    assert len(reason) < 2_000
    assert (refused.value.rule, refused.value.field) == ("schema.field", "type")


def test_a_batch_of_many_bad_events_lists_few_errors() -> None:
    bad = {"event_id": 1, "game_id": 2, "seq": "x", "type": "game.started", "payload": 7}
    with pytest.raises(Refusal) as refused:
        parse_events([bad] * 1000)
    assert len(json.dumps(refused.value.to_dict())) < 4_000
