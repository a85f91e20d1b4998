"""The committed JSON Schemas equal what the models generate, and real events validate against
them (so an integrator who only reads the schemas is told the truth). `make schemas` updates."""

from __future__ import annotations

import json
import uuid

import jsonschema
import pytest

from contracts.events import ENVELOPE_BY_TYPE, parse_event
from contracts.schema import SCHEMA_DIR, generate_json_schemas


def test_committed_json_schemas_match_the_models() -> None:
    generated = generate_json_schemas()
    committed = {p.name: p.read_text(encoding="utf-8") for p in SCHEMA_DIR.glob("*.json")}
    assert sorted(committed) == sorted(generated), (
        "schema files added or removed: run `make schemas`"
    )
    stale = [name for name, text in generated.items() if committed[name] != text]
    assert not stale, f"stale schemas {stale}: run `make schemas`"


def test_every_wire_type_has_a_schema_file() -> None:
    names = {p.name for p in SCHEMA_DIR.glob("*.json")}
    assert {f"{t}.json" for t in ENVELOPE_BY_TYPE} <= names


def _correction(**payload_changes: object) -> dict[str, object]:
    payload = {"player_id": "p1", "amount": -2, "reason": "miscounted Shards", "referee": "Ref Ada"}
    payload.update(payload_changes)
    return {
        "event_id": str(uuid.uuid4()),
        "game_id": "g-1",
        "seq": 7,
        "type": "game.score_corrected",
        "schema_version": 2,
        "occurred_at": "2026-11-30T10:00:00+00:00",
        "actor": "referee-desk",
        "payload": payload,
    }


def test_a_valid_event_passes_both_the_schema_and_pydantic() -> None:
    schema = json.loads((SCHEMA_DIR / "event.json").read_text(encoding="utf-8"))
    raw = _correction()
    jsonschema.validate(raw, schema)
    assert parse_event(raw).payload.amount == -2


@pytest.mark.parametrize(
    "change",
    [{"amount": "two"}, {"player_id": "has space"}, {"unexpected": 1}],
    ids=["wrong-type", "bad-player-id", "unknown-field"],
)
def test_an_invalid_event_fails_the_schema_as_it_fails_pydantic(change: dict[str, object]) -> None:
    schema = json.loads((SCHEMA_DIR / "event.json").read_text(encoding="utf-8"))
    raw = _correction(**change)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(raw, schema)
    with pytest.raises(ValueError, match="payload"):
        parse_event(raw)
