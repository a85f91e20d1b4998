"""The Penumbra catalogue (`contracts/catalogue/penumbra/cards.json`) is the one source of the
card kinds the events name, the bounds of their values and the tally's fixed VP: the published
schemas carry its bounds, the service (the contracts' parser and the domain's fold) accepts
exactly what they allow, and the domain scores with its fixed VP."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import ValidationError

from contracts import penumbra as pen
from contracts.events import parse_event
from domain.fold import fold
from domain.penumbra import catalog
from domain.penumbra.experience import experience_vp
from services.rules.ids import ROOT

SCHEMAS = ROOT / "contracts" / "schemas"
CARDS = json.loads((ROOT / "contracts/catalogue/penumbra/cards.json").read_text("utf-8"))
SEATED = [
    {"player_id": "ada", "name": "Ada", "seat": 1},
    {"player_id": "bea", "name": "Bea", "seat": 2},
]


def wire(seq: int, type_: str, payload: dict[str, Any]) -> dict[str, Any]:
    """One wire event of game `pen-cat`."""
    return {
        "event_id": str(uuid.uuid4()),
        "game_id": "pen-cat",
        "seq": seq,
        "type": type_,
        "occurred_at": "2026-11-30T10:00:00Z",
        "actor": "table-1",
        "payload": payload,
    }


def schema_errors(event: dict[str, Any]) -> list[list[object]]:
    """The published schema's errors for `event` (its type's own file), as paths."""
    schema = json.loads((SCHEMAS / f"{event['type']}.json").read_text(encoding="utf-8"))
    return [list(e.absolute_path) for e in Draft202012Validator(schema).iter_errors(event)]


def service_accepts(event: dict[str, Any]) -> bool:
    """Whether the service takes `event` after a two-player start: parsed and folded."""
    start = parse_event(wire(1, "penumbra.game_started", {"players": SEATED}))
    try:
        parsed = parse_event(event)
    except ValidationError:
        return False
    fold([start, parsed])  # raises RuleViolation if the rules refuse the value
    return True


def example(kind: dict[str, Any], event_type: str, field: str, value: Any) -> dict[str, Any]:
    """A wire event of `event_type` naming a card of `kind`, with `field` set to `value`."""
    payload: dict[str, Any] = {"player_id": "ada", kind["id_field"]: "card-1"}
    if event_type == "penumbra.prophecy_triggered":
        payload = {"prophecy_id": "card-1", "by_player": "ada"}
    if event_type.endswith(("_removed", "_cleared", "_lost", "_revoked")):
        payload["reason"] = "test"
    if event_type in ("penumbra.trial_completed", "penumbra.contract_fulfilled"):
        payload["vp"] = 1
    if event_type == "penumbra.goal_scored":
        payload["vp"] = 1
    if field == "xp":
        payload["xp"] = {"XP1": value}
    elif field:
        payload[field] = value
    return wire(2, event_type, payload)


def _valued_events() -> list[tuple[str, str, str]]:
    """(event type, field, bound name) for every value a catalogue kind's events carry."""
    found = []
    for kind in CARDS["kinds"]:
        for event_type in kind["events"]:
            model = pen.PENUMBRA_PAYLOADS[[p.TYPE for p in pen.PENUMBRA_PAYLOADS].index(event_type)]
            for field, bound in kind["values"].items():
                if field in model.model_fields:
                    found.append((event_type, field, bound))
    return found


VALUED = _valued_events()


def test_every_kind_names_events_that_carry_its_id() -> None:
    types = {p.TYPE: p for p in pen.PENUMBRA_PAYLOADS}
    for kind in CARDS["kinds"]:
        for event_type in kind["events"]:
            field = "prophecy_id" if kind["kind"] == "prophecy" else kind["id_field"]
            assert field in types[event_type].model_fields, (kind["kind"], event_type)
    named = {t for k in CARDS["kinds"] for t in k["events"]}
    assert named == {
        t
        for t in types
        if any(f.endswith("_id") and f != "player_id" for f in types[t].model_fields)
    }
    assert tuple(k["kind"] for k in CARDS["kinds"]) == catalog.CARD_KINDS


def test_the_contract_s_experience_kinds_are_the_catalogue_s() -> None:
    assert list(pen.EXPERIENCE_KINDS) == CARDS["experience_kinds"]
    schema = json.loads((SCHEMAS / "penumbra.trial_completed.json").read_text(encoding="utf-8"))
    xp = schema["$defs"]["TrialCompleted"]["properties"]["xp"]
    assert sorted(xp["propertyNames"]["enum"]) == CARDS["experience_kinds"]


@pytest.mark.parametrize(("event_type", "field", "bound"), VALUED)
def test_the_schema_s_bounds_are_the_catalogue_s_and_the_service_s(
    event_type: str, field: str, bound: str
) -> None:
    kind = next(k for k in CARDS["kinds"] if event_type in k["events"])
    low, high = CARDS["bounds"][bound]["min"], CARDS["bounds"][bound]["max"]
    for value, ok in ((low, True), (high, True), (low - 1, False), (high + 1, False)):
        event = example(kind, event_type, field, value)
        assert (schema_errors(event) == []) is ok, (field, value)
        assert service_accepts(event) is ok, (field, value)


def test_an_experience_kind_outside_the_catalogue_is_refused_by_schema_and_service() -> None:
    kind = next(k for k in CARDS["kinds"] if k["kind"] == "tome")
    event = example(kind, "penumbra.tome_gained", "", None)
    event["payload"]["xp"] = {"XP7": 1}
    assert schema_errors(event) != []
    assert not service_accepts(event)


def test_players_and_arcana_bounds_are_the_catalogue_s() -> None:
    schema = json.loads((SCHEMAS / "penumbra.game_started.json").read_text(encoding="utf-8"))
    defs = schema["$defs"]
    players = defs["PenumbraGameStarted"]["properties"]["players"]
    assert (players["minItems"], players["maxItems"]) == (
        CARDS["players"]["min"],
        CARDS["players"]["max"],
    )
    cap = defs["PenumbraOptions"]["properties"]["arcana_cap"]
    bounds = CARDS["bounds"]["arcana_cap"]
    assert (cap["minimum"], cap["maximum"], cap["default"]) == (
        bounds["min"],
        bounds["max"],
        bounds["default"],
    )
    amount = json.loads((SCHEMAS / "penumbra.arcana_gained.json").read_text(encoding="utf-8"))
    amount = amount["$defs"]["ArcanaGained"]["properties"]["amount"]
    assert (amount["minimum"], amount["maximum"]) == (
        CARDS["bounds"]["arcana_amount"]["min"],
        CARDS["bounds"]["arcana_amount"]["max"],
    )


def test_the_domain_scores_with_the_catalogue_s_fixed_vp() -> None:
    fixed = CARDS["fixed_vp"]
    assert catalog.MORTAL_WOUND_VP == fixed["mortal_wound_each"] == -3
    assert catalog.RESERVED_CONTRACT_VP == fixed["reserved_contract_each"] == -3
    assert [experience_vp((n, 0, 0, 0, 0, 0)) for n in range(6)] == fixed["identical_set"]
    assert experience_vp((1,) * 6) == fixed["six_different_set"] + 6
