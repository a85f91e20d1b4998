"""Trick cards outside the catalog (promo cards, Dawn of Technology's Signature Tricks) declared
in `trickerion.game_started.extra_tricks` with their printed values: checked like catalog cards
(level and its Fame threshold, yield, markers, components by the catalog's names, a Level 3
end-game condition in the catalog's condition language, domain/trickerion/conditions.py), then
learned, yielded and scored like any other; recorded in the start event, so a replay scores the
same. Given the declaration, Then the Fame, or the rule and field of the refusal.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from contracts.trickerion import TrickerionGameStarted
from domain.errors import RuleViolation
from tests.domain.refusal import violation
from tests.domain.trickerion.builders import TrickerionGame, categories_of

FIELD = "payload.extra_tricks"

PROMO = {
    "id": "X-PROMO1",
    "name": "Vanishing Lantern",
    "category": "optical",
    "level": 3,
    "printed_yield": {"fame": 4, "coins": 2, "shards": 1},
    "markers": 2,
    "components": {"glass": 2, "mirror": 1},
    "endgame": {"kind": "per", "of": "level1_tricks", "points": 3},
    "endgame_text": "3 per Level 1 Trick owned",
    "source": "promo card, printed values",
}


def game_with(*extra: dict[str, Any]) -> TrickerionGame:
    g = TrickerionGame(["ann", "ben"])
    start = g.events[0].payload.model_dump()
    start["extra_tricks"] = list(extra)
    g.events[0] = g.envelope(TrickerionGameStarted.model_validate(start), seq=1)
    return g


def test_an_extra_level3_trick_yields_and_scores_its_printed_condition() -> None:
    # Ann learns the promo and T01 (Level 1). The promo's marker on P01 yields 4 Fame, 2 Coins,
    # 1 Shard (its printed yield, rules L7). At the end, "3 per Level 1 Trick owned": 1 x 3 = 3
    # (rules L20), components met.
    g = game_with(PROMO)
    g.turn()
    g.learn("ann", "X-PROMO1")
    g.learn("ann", "T01")
    g.yield_("ann", "X-PROMO1", "P01")
    g.to_final_turn()
    g.declare("ann", level3=(("X-PROMO1", True, 0),))
    g.declare("ben")
    g.end()
    c = categories_of(g.standings(), "ann")
    assert (c["trick_yield"], c["level3_tricks"]) == (4, 3)


@pytest.mark.parametrize(
    ("change", "rule"),
    [
        ({"id": "X-PROMO1", "endgame": None}, "trickerion.extra_card.level3_needs_condition"),
        (
            {"endgame": {"kind": "per", "of": "rabbits", "points": 1}},
            "trickerion.extra_card.condition",
        ),
        ({"components": {"unobtainium": 1}}, "trickerion.extra_card.component"),
        ({"level": 1}, "trickerion.extra_card.condition_below_level3"),
    ],
    ids=[
        "level3_without_condition",
        "unknown_counter",
        "unknown_component",
        "level1_with_condition",
    ],
)
def test_an_extra_card_is_checked_like_a_catalog_card(change: dict[str, Any], rule: str) -> None:
    refused = violation(game_with({**PROMO, **change}))
    assert (refused.rule, refused.field) == (rule, "payload.extra_tricks")


def test_two_extra_cards_with_one_id_are_refused() -> None:
    refused = violation(game_with(PROMO, PROMO))
    assert (refused.rule, refused.field) == (
        "trickerion.extra_card.duplicate_id",
        "payload.extra_tricks",
    )


def test_an_undeclared_extra_id_is_still_unknown() -> None:
    g = game_with()
    g.turn()
    g.learn("ann", "X-PROMO1")
    refused = violation(g)
    assert (refused.rule, refused.field) == (
        "trickerion.card.unknown_trick",
        "payload.trick_id",
    )


@pytest.mark.parametrize(
    "endgame",
    [
        {"kind": "per", "of": "coins", "points": 1, "every": 0},  # was a ZeroDivisionError
        {"kind": "per", "of": "coins", "points": 1, "every": -1},  # was -1 Fame per Coin
        {"kind": "per", "of": "coins", "points": -5},  # was -5 Fame per Coin
        {"kind": "per", "of": "coins", "points": "5"},  # text is not a whole number
        {"kind": "per", "of": "coins", "points": 1, "bogus": 3},  # a key no condition has
        {"kind": "if", "of": [], "at_least": 1, "points": 7},  # "if you have nothing"
        {"kind": "if", "of": ["manager"], "at_least": 0, "points": 7},  # always met
        {"kind": "per", "of": ["coins"], "points": 1},  # "per" counts one counter
        {"kind": "per", "of": "coins", "points": 10**30},  # a trick scores at most 20 (L20)
    ],
    ids=[
        "every_zero",
        "every_negative",
        "points_negative",
        "points_text",
        "unknown_key",
        "if_nothing",
        "at_least_zero",
        "per_list",
        "points_absurd",
    ],
)
def test_a_condition_no_printed_card_has_is_refused_at_the_start(endgame: dict[str, Any]) -> None:
    # Given a Level 3 extra card whose condition could never be printed (a division by zero,
    # negative Fame from an end-game condition, text for a number, a key the language lacks),
    # Then the start event is refused naming payload.extra_tricks, before any Fame is scored.
    with pytest.raises((RuleViolation, ValidationError)) as caught:
        game_with({**PROMO, "endgame": endgame}).state()
    error = caught.value
    if isinstance(error, RuleViolation):
        assert (error.rule, error.field) == ("trickerion.extra_card.condition", FIELD)
    else:
        assert all(e["loc"][:2] == ("extra_tricks", 0) for e in error.errors())


def test_a_level3_extra_card_without_text_says_its_condition_in_the_ledger() -> None:
    # Given a promo with no endgame_text, Then its end-game line reads the condition, not "None":
    # 3 per Level 1 Trick owned, 1 owned -> 3 Fame.
    g = game_with({**PROMO, "endgame_text": None})
    g.turn()
    g.learn("ann", "X-PROMO1")
    g.learn("ann", "T01")
    g.to_final_turn()
    g.declare("ann", level3=(("X-PROMO1", True, 0),))
    g.declare("ben")
    g.end()
    notes = [e.note for e in g.state().ledger if e.category == "level3_tricks"]
    assert notes == ["X-PROMO1 Vanishing Lantern: 3 per level1_tricks -> 3"]
