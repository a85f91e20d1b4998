"""Events that break a rule are rejected with `RuleViolation(rule, message, field)`."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from contracts.common import Player
from contracts.penumbra import PenumbraGameStarted
from domain.errors import RuleViolation
from tests.domain.penumbra.builders import PenumbraGame
from tests.domain.refusal import violation


def _rule_of(steps: Callable[[PenumbraGame], object]) -> tuple[str, str | None]:
    g = PenumbraGame(["ada", "bea"])
    steps(g)
    refused = violation(g)
    return refused.rule, refused.field


CASES: dict[str, tuple[Callable[[PenumbraGame], object], str, str | None]] = {
    "unknown player": (
        lambda g: g.arcana_gained("zed", 1),
        "penumbra.player.unknown",
        "payload.player_id",
    ),
    "unknown prophecy trigger": (
        lambda g: g.prophecy("pr", by="zed"),
        "penumbra.player.unknown",
        "payload.by_player",
    ),
    "overspent Arcana": (
        lambda g: (g.arcana_gained("ada", 2), g.arcana_spent("ada", 3)),
        "penumbra.arcana.not_enough",
        "payload.amount",
    ),
    "Trial other than the reserved one (S1)": (
        lambda g: (g.trial_reserved("ada", "t-1"), g.trial_completed("ada", "t-2", vp=1)),
        "penumbra.trial.not_the_reserved_one",
        "payload.trial_id",
    ),
    "Trial reserved by another": (
        lambda g: (g.trial_reserved("ada", "t-1"), g.trial_completed("bea", "t-1", vp=1)),
        "penumbra.trial.reserved_by_other",
        "payload.trial_id",
    ),
    "reserving a completed Trial": (
        lambda g: (g.trial_completed("ada", "t-1", vp=1), g.trial_reserved("bea", "t-1")),
        "penumbra.trial.already_completed",
        "payload.trial_id",
    ),
    "clearing an unreserved Trial": (
        lambda g: g.trial_reservation_cleared("ada", "t-1"),
        "penumbra.trial.not_reserved",
        "payload.trial_id",
    ),
    "Contract reserved by another": (
        lambda g: (g.contract_reserved("ada", "c-1"), g.contract_fulfilled("bea", "c-1", vp=2)),
        "penumbra.contract.reserved_by_other",
        "payload.contract_id",
    ),
    "Contract reserved twice": (
        lambda g: (g.contract_reserved("ada", "c-1"), g.contract_reserved("ada", "c-1")),
        "penumbra.contract.already_reserved",
        "payload.contract_id",
    ),
    "reserving a fulfilled Contract": (
        lambda g: (g.contract_fulfilled("ada", "c-1", vp=2), g.contract_reserved("bea", "c-1")),
        "penumbra.contract.already_fulfilled",
        "payload.contract_id",
    ),
    "removing an unreserved Contract": (
        lambda g: g.contract_reservation_removed("ada", "c-1"),
        "penumbra.contract.not_reserved",
        "payload.contract_id",
    ),
    "Tome held twice": (
        lambda g: (g.tome_gained("ada", "tm"), g.tome_gained("bea", "tm")),
        "penumbra.tome.already_held",
        "payload.tome_id",
    ),
    "losing a Tome not held": (
        lambda g: g.tome_lost("ada", "tm"),
        "penumbra.tome.not_held",
        "payload.tome_id",
    ),
    "Mortal Wound held twice": (
        lambda g: (g.mortal_wound_taken("ada", "w"), g.mortal_wound_taken("bea", "w")),
        "penumbra.wound.already_held",
        "payload.card_id",
    ),
    "removing a Mortal Wound not held": (
        lambda g: g.mortal_wound_removed("ada", "w"),
        "penumbra.wound.not_held",
        "payload.card_id",
    ),
    "two Marks on one slot": (
        lambda g: (g.mark_placed("ada", "s"), g.mark_placed("ada", "s")),
        "penumbra.mark.slot_taken",
        "payload.slot_id",
    ),
    "removing a missing Mark": (
        lambda g: g.mark_removed("ada", "s"),
        "penumbra.mark.no_mark",
        "payload.slot_id",
    ),
    "Goal scored twice": (
        lambda g: (g.goal_scored("ada", "gl", 2), g.goal_scored("ada", "gl", 2)),
        "penumbra.goal.scored_twice",
        "payload.goal_id",
    ),
    "revoking an unscored Goal": (
        lambda g: g.goal_revoked("ada", "gl"),
        "penumbra.goal.not_scored",
        "payload.goal_id",
    ),
    "turn number going back": (
        lambda g: (g.turn(2), g.turn(2)),
        "penumbra.turn.order",
        "payload.turn",
    ),
    "final turn before a Prophecy": (
        lambda g: g.final_turn("ada"),
        "penumbra.final_turn.before_prophecy",
        "type",
    ),
    "final turn twice": (
        lambda g: (g.prophecy("pr", by="ada"), g.final_turn("ada"), g.final_turn("ada")),
        "penumbra.final_turn.twice",
        "payload.player_id",
    ),
    "game.ended without a Prophecy": (lambda g: g.ended(), "penumbra.end.no_prophecy", "type"),
    "game.ended before every final turn": (
        lambda g: (g.prophecy("pr", by="ada"), g.final_turn("bea"), g.ended()),
        "penumbra.end.final_turns_missing",
        "type",
    ),
    "play after every final turn": (
        lambda g: (
            g.prophecy("pr", by="ada"),
            g.final_turn("ada"),
            g.final_turn("bea"),
            g.arcana_gained("ada", 1),
        ),
        "penumbra.end.all_final_turns_taken",
        "type",
    ),
    "play after game.ended": (
        lambda g: (g.finish(), g.goal_scored("ada", "gl", 3)),
        "log.after_game_ended",
        "type",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_rejected(case: str) -> None:
    steps, rule, field = CASES[case]
    assert _rule_of(steps) == (rule, field)


def test_more_than_four_players_is_rejected() -> None:
    players = tuple(Player(player_id=f"p{i}", name=f"P{i}", seat=i) for i in range(1, 6))
    g = PenumbraGame(["ada"])
    g.events.clear()
    # the contract refuses 5 (its bound is the rules'); built unchecked, the rules refuse too
    g.add(PenumbraGameStarted.model_construct(players=players))
    refused = violation(g)
    assert refused.rule == "penumbra.setup.players"


def test_a_rejected_event_leaves_the_state_unchanged() -> None:
    g = PenumbraGame(["ada"])
    g.arcana_gained("ada", 4)
    before = g.state()
    g.arcana_spent("ada", 9)
    with pytest.raises(RuleViolation):
        g.state()
    assert before.rules.tableaux["ada"].arcana == 4
    assert sum(e.amount for e in before.ledger if e.resource.value == "vp") == 4


def test_a_voided_trial_completion_is_refolded_away() -> None:
    g = PenumbraGame(["ada"])
    done = g.trial_completed("ada", "t-1", vp=7, xp={"XP1": 1}, light=2)
    g.voided(done)
    assert g.totals() == {"ada": 0}
    g.trial_completed("ada", "t-1", vp=7)  # the card is free again
    assert g.totals() == {"ada": 7}
