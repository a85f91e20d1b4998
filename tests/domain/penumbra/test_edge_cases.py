"""Penumbra rules (docs/rules/penumbra.md): the edge cases the engine decides, Given / Then.

EC-12 and EC-13 are decided by the contracts (no Light / Dark fields on Tomes or Marks; a
Trial carries the realised symbols); EC-22 (a replayed event id) is the store's dedupe, and
here the fold's seq check keeps a replay from counting twice.
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from contracts.penumbra import MarkPlaced, TomeGained, TrialCompleted
from domain.errors import RuleViolation
from domain.fold import evolve
from tests.domain.penumbra.builders import PenumbraGame, xp
from tests.domain.refusal import violation


def rejected(g: PenumbraGame) -> str:
    refused = violation(g)
    return refused.rule


def test_ec01_seven_identical_symbols_score_9_by_default() -> None:
    g = PenumbraGame(["ada"])
    g.tome_gained("ada", "tome", xp=xp(7))
    assert g.breakdown("ada")["experience"] == 9  # cap: G(7) = 9


def test_ec02_two_complete_six_different_sets_give_14() -> None:
    g = PenumbraGame(["ada"])
    g.tome_gained("ada", "tome", xp=xp(2, 2, 2, 2, 2, 3))
    assert g.breakdown("ada")["experience"] == 28  # 7 x 2 + 5 x G(2)=2 + G(3)=4


def test_ec03_one_kind_at_zero_gives_no_six_set_but_identical_sets_score() -> None:
    g = PenumbraGame(["ada"])
    g.tome_gained("ada", "tome", xp=xp(5, 5, 5, 5, 5, 0))
    assert g.breakdown("ada")["experience"] == 45  # 0 sets + 5 x 9


def test_ec04_a_symbol_counts_in_a_six_set_and_in_its_identical_set() -> None:
    g = PenumbraGame(["ada"])
    g.tome_gained("ada", "tome", xp=xp(1, 1, 1, 1, 1, 3))
    assert g.breakdown("ada")["experience"] == 16  # 7 + 5 x 1 + 4


def test_ec05_contract_reserved_then_fulfilled_in_the_final_turn_gives_vp_only() -> None:
    g = PenumbraGame(["ada", "bea"])
    g.contract_reserved("ada", "c-1", vp=6)
    g.prophecy("pr", by="bea")
    g.final_turn("bea")
    g.contract_fulfilled("ada", "c-1", vp=6)
    g.final_turn("ada")
    g.ended()
    assert g.breakdown("ada")["contracts"] == 6  # no -3


def test_ec06_removed_reservation_gives_no_penalty_and_logs_the_reason() -> None:
    g = PenumbraGame(["ada"])
    g.contract_reserved("ada", "c-1", vp=6)
    g.contract_reservation_removed("ada", "c-1")
    assert g.breakdown("ada")["contracts"] == 0
    assert g.events[-1].payload.reason == "discarded"


def test_ec07_reserved_trial_not_completed_at_the_end_scores_0() -> None:
    g = PenumbraGame(["ada"])
    g.trial_reserved("ada", "t-1")
    g.finish()
    assert g.totals() == {"ada": 0}


def test_ec08_second_trial_reservation_while_one_is_open_is_rejected() -> None:
    g = PenumbraGame(["ada"])
    g.trial_reserved("ada", "t-1")
    g.trial_reserved("ada", "t-2")
    assert rejected(g) == "penumbra.trial.one_reserved"


def test_ec08_a_new_trial_may_be_reserved_after_completing_the_reserved_one() -> None:
    g = PenumbraGame(["ada"])
    g.trial_reserved("ada", "t-1")
    g.trial_completed("ada", "t-1", vp=3)
    g.trial_reserved("ada", "t-2")
    assert g.state().rules.tableaux["ada"].reserved_trial == "t-2"


def test_ec09_symbols_on_an_unfulfilled_contract_do_not_count() -> None:
    g = PenumbraGame(["ada"])
    g.contract_reserved("ada", "c-1", vp=5, xp=xp(2), light=3)
    b = g.breakdown("ada")
    assert (b["experience"], b["fate"], b["contracts"]) == (0, 0, -3)


def test_ec10_light_equal_to_dark_gives_0() -> None:
    g = PenumbraGame(["ada"])
    g.trial_completed("ada", "t-1", vp=0, light=3, dark=1)
    g.contract_fulfilled("ada", "c-1", vp=0, dark=2)
    assert g.breakdown("ada")["fate"] == 0


def test_ec11_only_dark_gives_the_dark_count() -> None:
    g = PenumbraGame(["ada"])
    g.trial_completed("ada", "t-1", vp=0, dark=5)
    assert g.breakdown("ada")["fate"] == 5


def test_ec12_tomes_and_marks_carry_no_light_or_dark() -> None:
    with pytest.raises(ValidationError):
        TomeGained.model_validate({"player_id": "ada", "tome_id": "t", "light": 1})
    with pytest.raises(ValidationError):
        MarkPlaced.model_validate({"player_id": "ada", "slot_id": "s", "dark": 1})


def test_ec13_a_moral_choice_counts_only_the_realised_side() -> None:
    g = PenumbraGame(["ada"])
    g.add(TrialCompleted(player_id="ada", trial_id="t-choice", vp=4, light=0, dark=2))
    assert g.breakdown("ada")["fate"] == 2


def test_ec14_arcana_above_12_is_clamped_and_12_arcana_with_other_ingredients_is_legal() -> None:
    g = PenumbraGame(["ada"])
    g.arcana_gained("ada", 12)
    g.arcana_gained("ada", 1)
    assert g.breakdown("ada")["arcana"] == 12
    assert g.state().rules.tableaux["ada"].arcana_lost == 1


def test_ec15_arcana_spent_in_the_final_turn_is_scored_after_it() -> None:
    g = PenumbraGame(["ada"])
    g.arcana_gained("ada", 6)
    g.prophecy("pr", by="ada")
    g.arcana_spent("ada", 4)
    g.final_turn("ada")
    g.ended()
    assert g.totals() == {"ada": 2}


def test_ec16_negative_total_is_never_clamped() -> None:
    g = PenumbraGame(["ada"])
    g.mortal_wound_taken("ada", "w-1")
    g.finish()
    assert g.totals() == {"ada": -3}


def test_ec17_a_spark_mark_scores_0_board_vp() -> None:
    g = PenumbraGame(["ada"])
    g.mark_placed("ada", "spark-1", vp_under=3, spark=True)
    g.mark_placed("ada", "slot-1", vp_under=2)
    assert g.breakdown("ada")["board"] == 2


def test_ec18_a_mark_on_a_slot_without_printed_vp_scores_0() -> None:
    g = PenumbraGame(["ada"])
    g.mark_placed("ada", "slot-1")
    assert g.breakdown("ada")["board"] == 0


def test_ec19_a_removed_mortal_wound_gives_the_3_back() -> None:
    g = PenumbraGame(["ada"])
    g.mortal_wound_taken("ada", "w-1")
    g.mortal_wound_taken("ada", "w-2")
    g.mortal_wound_removed("ada", "w-1")
    assert g.breakdown("ada")["mortal_wounds"] == -3


def test_ec20_a_second_prophecy_in_the_final_lap_changes_nothing() -> None:
    g = PenumbraGame(["ada", "bea"])
    g.turn(1)
    g.prophecy("pr-1", by="ada")
    g.final_turn("ada")
    g.prophecy("pr-2", by="bea")
    g.final_turn("bea")
    g.ended()
    state = g.state()
    assert state.status == "final"
    assert state.rules.prophecy.prophecy_id == "pr-1"
    assert state.rules.prophecy.by_player == "ada"


def test_ec21_events_after_game_ended_are_rejected_except_corrections() -> None:
    g = PenumbraGame(["ada"])
    g.finish()
    g.corrected("ada", 2, category="goals")
    assert g.breakdown("ada")["goals"] == 2
    g.arcana_gained("ada", 1)
    assert rejected(g) == "log.after_game_ended"


def test_ec22_a_replayed_event_does_not_count_twice() -> None:
    g = PenumbraGame(["ada"])
    gained = g.trial_completed("ada", "t-1", vp=5)
    state = g.state()
    with pytest.raises(RuleViolation) as caught:
        evolve(state, gained)
    assert caught.value.rule == "log.seq_order"
    assert g.totals() == {"ada": 5}


def test_ec23_the_same_trial_completed_twice_is_rejected() -> None:
    g = PenumbraGame(["ada", "bea"])
    g.trial_completed("ada", "t-1", vp=5)
    g.trial_completed("bea", "t-1", vp=5)
    assert rejected(g) == "penumbra.trial.completed_twice"


def test_ec23_the_same_contract_fulfilled_twice_is_rejected() -> None:
    g = PenumbraGame(["ada"])
    g.contract_fulfilled("ada", "c-1", vp=5)
    g.contract_fulfilled("ada", "c-1", vp=5)
    assert rejected(g) == "penumbra.contract.fulfilled_twice"


def test_ec24_a_tie_shares_the_place_1_1_3() -> None:
    g = PenumbraGame(["ada", "bea", "cyr"])
    g.arcana_gained("ada", 4)
    g.goal_scored("bea", "goal", vp=4)
    g.arcana_gained("cyr", 1)
    g.finish()
    s = g.standings()
    assert {p.player_id: p.rank for p in s.players} == {"ada": 1, "bea": 1, "cyr": 3}
    assert s.winner is None
    assert s.winners == ["ada", "bea"]
    assert "shared" in (s.tie_break or "")


def test_ec25_a_revoked_goal_scores_0() -> None:
    g = PenumbraGame(["ada"])
    g.goal_scored("ada", "goal-1", vp=5)
    g.goal_revoked("ada", "goal-1")
    assert g.breakdown("ada")["goals"] == 0


def test_ec26_a_card_with_two_symbols_of_one_kind_counts_2() -> None:
    g = PenumbraGame(["ada"])
    g.contract_fulfilled("ada", "c-1", vp=0, xp={"XP3": 2})
    assert g.breakdown("ada")["experience"] == 2  # G(2)


def test_ec27_printed_vp_0_is_valid() -> None:
    g = PenumbraGame(["ada"])
    g.trial_completed("ada", "t-0", vp=0, light=1)
    g.contract_fulfilled("ada", "c-0", vp=0)
    assert g.breakdown("ada")["trials"] == 0
    assert g.totals() == {"ada": 1}


def test_ec28_one_player_game_uses_the_same_formula() -> None:
    g = PenumbraGame(["ada"])
    g.arcana_gained("ada", 2)
    g.trial_completed("ada", "t-1", vp=3, xp=xp(1), dark=1)
    g.finish()
    s = g.standings()
    assert s.players[0].total == 7  # 2 + 3 + 1 + 1
    assert s.winner is None  # the same formula, but no solo win condition (research §9.6, §13.8)


def test_ec29_two_open_reservations_give_minus_3_each() -> None:
    g = PenumbraGame(["ada"])
    g.contract_reserved("ada", "c-1", vp=4)
    g.contract_reserved("ada", "c-2", vp=4)
    assert g.breakdown("ada")["contracts"] == -6
