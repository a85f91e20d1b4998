"""Upcasting: a stored v1 `game.score_corrected` reads as v2 and scores the same; the stored
event is not changed. Source: docs/decisions/0008-upcast-on-read.md ("old payload versions are upcast on read")."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from contracts.events import PAYLOAD_BY_TYPE, parse_event, parse_event_json
from contracts.upcasting import UPCASTERS, upcast
from tests.contracts.samples import v1_score_correction

V1 = v1_score_correction("g-up")


def test_v1_score_correction_is_upcast_to_v2_on_read() -> None:
    event = parse_event_json(json.dumps(V1))
    assert event.schema_version == 2
    assert event.payload.amount == -3  # v1 `points` became `amount`
    assert event.payload.category == "correction"
    assert event.payload.referee == "unknown (v1 event)"


def test_upcasting_leaves_the_stored_dict_alone() -> None:
    raw = json.loads(json.dumps(V1))
    parse_event(raw)
    assert raw == V1


def test_a_version_newer_than_the_reader_is_refused_with_the_field() -> None:
    with pytest.raises(ValueError, match="schema_version"):
        upcast({**V1, "schema_version": 3}, current_version=2)


def test_a_missing_step_of_the_chain_is_refused() -> None:
    with pytest.raises(ValueError, match="no upcaster"):
        upcast({**V1, "type": "game.ended", "schema_version": 0}, current_version=1)


def test_every_upcaster_steps_from_an_older_version_of_a_known_type() -> None:
    for wire_type, version in UPCASTERS:
        assert wire_type in PAYLOAD_BY_TYPE, f"upcaster for unknown type {wire_type}"
        assert 1 <= version < PAYLOAD_BY_TYPE[wire_type].SCHEMA_VERSION, (wire_type, version)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"schema_version": None}, "schema_version"),
        ({"schema_version": [1]}, "schema_version"),
        (
            {"payload": {"player_id": "ana", "amount": 1, "reason": "v2 shape", "referee": "Ref"}},
            "payload",
        ),
    ],
    ids=["null-version", "list-version", "v1-claimed-but-v2-shaped"],
)
def test_a_bad_version_is_a_validation_error_naming_the_field(
    change: dict[str, object], field: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        parse_event_json(json.dumps({**V1, **change}))
    assert field in caught.value.errors()[0]["loc"]
