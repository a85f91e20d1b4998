"""Hostile input (docs/decisions/0019-hostile-input-at-every-door.md): a refusal (what a dead letter's `reason` holds) never quotes the input at length:
a 1 MB unknown `type` once gave a 1 MB reason (21 MB for a 10 MB field)."""

from __future__ import annotations

import json

import pytest

from services.usecases.parse import parse_events
from services.usecases.refusal import Refusal


def event_of_type(wire_type: str) -> dict[str, object]:
    """A first event of `wire_type`, otherwise well formed, with an empty payload."""
    return {
        "event_id": "0b8f5d3e-4c1a-4d3e-9a43-2f4e8f1b7c10",
        "game_id": "g",
        "seq": 1,
        "type": wire_type,
        "schema_version": 1,
        "occurred_at": "2026-11-30T10:00:00Z",
        "actor": "a",
        "payload": {},
    }


def test_a_huge_unknown_type_gives_a_short_reason() -> None:
    event = event_of_type("t" * 1_000_000)
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


def test_an_unknown_type_lists_every_valid_type_in_the_422() -> None:
    """The refusal (and the HTTP problem made of it) names every valid event type, whole; it
    was pydantic's message cut mid-word after about 120 characters."""
    from contracts.events import ENVELOPE_BY_TYPE
    from services.doors.asgi.http_errors import refusal_problem

    event = event_of_type("trickerion.advertise")
    with pytest.raises(Refusal) as refused:
        parse_events(event)
    body = json.loads(refusal_problem(refused.value).body)
    print(body["detail"])
    assert (body["status"], body["rule"], body["field"]) == (422, "schema.field", "type")
    head, _, listed = body["detail"].partition("; valid types: ")
    assert head == "unknown event type 'trickerion.advertise'"
    assert listed.split(", ") == sorted(ENVELOPE_BY_TYPE)


def test_a_list_is_bounded_in_bytes_and_cut_between_items() -> None:
    from services.usecases.refusal import listing

    items = [f"type.number_{i:03d}" for i in range(500)]
    text = listing(items, max_bytes=200)
    shown, _, more = text.rpartition(" and ")
    assert len(shown.encode()) <= 200
    assert shown.split(", ") == items[: len(shown.split(", "))]  # whole items, in order
    assert more == f"{500 - len(shown.split(', '))} more"
    assert listing(["a", "b"]) == "a, b"


def test_a_long_message_is_cut_at_a_word_boundary() -> None:
    from services.usecases.refusal import bounded

    text = " ".join(["word"] * 100)
    cut = bounded(text, 50)
    assert cut.endswith("word…")
    assert len(cut) <= 50
