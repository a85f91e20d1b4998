"""The integer rule is written where the schemas are: JSON Schema accepts 2.0 for an integer
(its own rule), the service refuses it, and every committed schema and contracts/README.md
say so (it was undocumented)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from contracts.schema import INTEGER_RULE, SCHEMA_DIR
from services.usecases.parse import parse_events
from services.usecases.refusal import Refusal

EVENT = {
    "event_id": "0b8f5d3e-4c1a-4d3e-9a43-2f4e8f1b7c10",
    "game_id": "g",
    "seq": 2.0,
    "type": "game.ended",
    "schema_version": 1,
    "occurred_at": "2026-11-30T10:00:00Z",
    "actor": "a",
    "payload": {},
}


def test_the_schema_accepts_2_0_the_service_refuses_it_and_the_schema_says_so() -> None:
    schema = json.loads((SCHEMA_DIR / "game.ended.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(EVENT)  # JSON Schema's rule: no error
    with pytest.raises(Refusal) as refused:
        parse_events(EVENT)
    assert (refused.value.rule, refused.value.field) == ("schema.field", "seq")
    assert INTEGER_RULE in schema["description"]
    assert schema["$comment"] == INTEGER_RULE


@pytest.mark.parametrize("path", sorted(SCHEMA_DIR.glob("*.json")), ids=lambda p: p.name)
def test_every_schema_states_the_integer_rule(path: Path) -> None:
    schema = json.loads(path.read_text(encoding="utf-8"))
    assert INTEGER_RULE in schema["description"]


def test_the_contracts_readme_states_it() -> None:
    text = (SCHEMA_DIR.parent / "README.md").read_text(encoding="utf-8")
    assert "The integer rule." in text
    assert "`2.0`" in text
