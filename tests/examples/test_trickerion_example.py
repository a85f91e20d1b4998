"""The Trickerion example game: the domain's standings equal the hand-worked score sheet,
category by category (contracts/examples/trickerion-4p-dark-alley-academy.*)."""

from __future__ import annotations

import json

import pytest

from contracts.events import parse_event_json
from domain.fold import fold
from domain.ledger import Resource
from domain.standings import standings
from tests.examples.make_scoresheet import EXAMPLE, expected
from tests.examples.tally import tally

LINES = EXAMPLE.with_suffix(".jsonl").read_text(encoding="utf-8").splitlines()
EXPECTED = json.loads(EXAMPLE.with_suffix(".expected.json").read_text(encoding="utf-8"))
STATE = fold([parse_event_json(line) for line in LINES])
STANDINGS = {p.player_id: p for p in standings(STATE).players}


def test_the_log_is_a_full_seven_turn_game() -> None:
    types = [json.loads(line)["type"] for line in LINES]
    assert len(LINES) >= 150
    assert types.count("game.turn_started") == 7
    assert types[-1] == "game.ended"
    assert STATE.status == "final"


@pytest.mark.parametrize("player_id", sorted(EXPECTED["players"]))
def test_domain_matches_the_score_sheet_per_category(player_id: str) -> None:
    sheet = EXPECTED["players"][player_id]
    domain = {k: v for k, v in STANDINGS[player_id].categories.items()}
    for category in sorted(set(sheet["categories"]) | set(domain)):
        assert domain.get(category, 0) == sheet["categories"].get(category, 0), category
    assert STANDINGS[player_id].total == sheet["total"]


@pytest.mark.parametrize("resource", [Resource.COINS, Resource.SHARDS])
def test_final_coins_and_shards_match(resource: Resource) -> None:
    for player_id, sheet in EXPECTED["players"].items():
        held = sum(
            e.amount for e in STATE.ledger if e.player_id == player_id and e.resource is resource
        )
        assert held == sheet[resource.value], player_id


def test_winner() -> None:
    assert standings(STATE).winner == EXPECTED["winner"]


def test_expected_json_is_the_independent_tally() -> None:
    assert expected(tally(LINES)) == EXPECTED
