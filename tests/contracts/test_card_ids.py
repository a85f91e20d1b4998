"""Card ids of the published schemas are the catalogue's: a trick id is one of the 48 Trick
cards (or an `X-` extra card recorded in the game), a performance card id one of the 28
Performance cards; the schemas and the domain read the same files (`contracts/catalogue/`).
The schema said `T[0-9]{2}` and `P[0-9]{2}`: `T49` validated and the service refused it."""

from __future__ import annotations

import json

from jsonschema import Draft202012Validator

from domain.trickerion.catalog import performances, tricks
from services.rules.ids import ROOT
from tests.pipeline.factory import envelope

SCHEMAS = ROOT / "contracts" / "schemas"


def errors(event: dict[str, object]) -> list[list[object]]:
    schema = json.loads((SCHEMAS / "event.json").read_text(encoding="utf-8"))
    return [list(e.absolute_path) for e in Draft202012Validator(schema).iter_errors(event)]


def learned(trick_id: str) -> dict[str, object]:
    return envelope(
        "g1", 2, "trickerion.trick_learned", {"player_id": "ann", "trick_id": "T01"}
    ).to_wire() | {"payload": {"player_id": "ann", "trick_id": trick_id}}


def test_the_schema_lists_the_catalogue_s_tricks_and_performances() -> None:
    schema = json.loads((SCHEMAS / "event.json").read_text(encoding="utf-8"))
    defs = schema["$defs"]
    trick_ids = next(
        s["enum"] for s in defs["TrickLearned"]["properties"]["trick_id"]["anyOf"] if "enum" in s
    )
    assert trick_ids == sorted(tricks())
    assert len(trick_ids) == 48
    cards = defs["PerformanceGiven"]["properties"]["performance_card_id"]["enum"]
    assert cards == sorted(performances())
    assert len(cards) == 28


def test_a_trick_outside_the_catalogue_is_refused_by_the_schema() -> None:
    assert errors(learned("T48")) == []
    assert errors(learned("X-my_card")) == []  # an extra card, recorded at game start
    assert errors(learned("T49")) == [["payload", "trick_id"]]
