"""Schema bounds equal to the service's: a game's `players` in its `*.game_started` schema
(`contracts/schemas/*.json`) allow exactly as many players as its rules seat (both games
seat 1 to 4, the rule books' player counts; the schema said 6, and a table sending 5 or 6
learnt it only from the service)."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from contracts.penumbra import PenumbraGameStarted
from contracts.trickerion import TrickerionGameStarted
from domain.rulesets import ruleset_for_started
from services.rules.ids import ROOT

SCHEMAS = ROOT / "contracts" / "schemas"


@pytest.mark.parametrize(
    ("game", "model"),
    [("trickerion", TrickerionGameStarted), ("penumbra", PenumbraGameStarted)],
)
def test_the_published_schema_seats_what_the_rules_seat(game: str, model: type) -> None:
    schema = json.loads((SCHEMAS / f"{game}.game_started.json").read_text(encoding="utf-8"))
    players = schema["properties"]["payload"]
    players = schema["$defs"][players["$ref"].rsplit("/", 1)[1]]["properties"]["players"]
    assert (players["minItems"], players["maxItems"]) == (1, 4)
    assert ruleset_for_started(f"{game}.game_started").max_players == 4
    seated = [
        {"player_id": f"p{i}", "name": f"P{i}", "seat": i, "initiative": i} for i in range(1, 6)
    ]
    with pytest.raises(ValidationError) as caught:
        model.model_validate({"players": seated})
    assert caught.value.errors()[0]["loc"] == ("players",)
