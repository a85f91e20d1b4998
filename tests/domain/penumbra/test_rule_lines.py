"""One test per scoring line of rules/penumbra-scoring.ru.md, named `test_L<line>_...`.

Each test folds events with the builders and checks hand-computed VP (the arithmetic is in
the comment or the expected value).
"""

from __future__ import annotations

from tests.domain.penumbra.builders import PenumbraGame, xp
from tests.domain.refusal import violation


def one() -> PenumbraGame:
    return PenumbraGame(["ada"])


def test_L01_scoring_happens_after_a_prophecy_and_one_more_turn_each() -> None:
    g = PenumbraGame(["ada", "bea"])
    g.arcana_gained("ada", 3)
    g.prophecy("pr-1", by="bea")
    g.final_turn("bea")
    g.final_turn("ada")
    g.ended()
    s = g.standings()
    assert s.status == "final"
    assert s.winner == "ada"
    assert g.totals() == {"ada": 3, "bea": 0}


def test_L01_game_cannot_end_before_every_player_took_the_final_turn() -> None:
    g = PenumbraGame(["ada", "bea"])
    g.prophecy("pr-1", by="ada")
    g.final_turn("ada")
    g.ended()
    refused = violation(g)
    assert refused.rule == "penumbra.end.final_turns_missing"
    assert "bea" in refused.message


def test_L03_score_is_not_wrapped_to_the_physical_track() -> None:
    g = one()
    for i in range(1, 8):
        g.trial_completed("ada", f"t{i}", vp=20)
    assert g.totals() == {"ada": 140}  # 7 x 20, no wrap at the track's end


def test_L07_each_arcana_in_supply_gives_1_vp() -> None:
    g = one()
    g.arcana_gained("ada", 5)
    g.arcana_spent("ada", 1)
    assert g.breakdown("ada")["arcana"] == 4  # 5 - 1 in supply
    assert g.totals() == {"ada": 4}


def test_L09_trials_add_up_the_vp_of_all_completed_trials() -> None:
    g = one()
    g.trial_completed("ada", "t1", vp=4)
    g.trial_completed("ada", "t2", vp=6)
    g.trial_reserved("ada", "t3")  # reserved, not completed: 0
    assert g.breakdown("ada")["trials"] == 10  # 4 + 6


def test_L11_each_mortal_wound_card_gives_minus_3() -> None:
    g = one()
    g.mortal_wound_taken("ada", "w1")
    g.mortal_wound_taken("ada", "w2")
    assert g.breakdown("ada")["mortal_wounds"] == -6  # 2 x -3
    assert g.totals() == {"ada": -6}


def test_L13_experience_counts_symbols_on_contracts_trials_and_tomes() -> None:
    g = one()
    g.trial_completed("ada", "t1", vp=0, xp=xp(1))  # XP1
    g.contract_fulfilled("ada", "c1", vp=0, xp=xp(1))  # XP1
    g.tome_gained("ada", "tome1", xp=xp(1))  # XP1
    assert g.breakdown("ada")["experience"] == 4  # 3 identical XP1 -> 4


def test_L15_each_set_of_six_different_symbols_gives_7() -> None:
    g = one()
    g.tome_gained("ada", "tome1", xp=xp(1, 1, 1, 1, 1, 1))
    assert g.breakdown("ada")["experience"] == 13  # 7 x 1 set + 6 x G(1)=1


def _identical(n: int) -> int:
    g = one()
    g.tome_gained("ada", "tome1", xp=xp(n))
    return g.breakdown("ada")["experience"]


def test_L18_one_symbol_gives_1() -> None:
    assert _identical(1) == 1


def test_L19_two_identical_give_2() -> None:
    assert _identical(2) == 2


def test_L20_three_identical_give_4() -> None:
    assert _identical(3) == 4


def test_L21_four_identical_give_6() -> None:
    assert _identical(4) == 6


def test_L22_five_identical_give_9() -> None:
    assert _identical(5) == 9


def test_L24_each_kind_counts_its_identical_set_separately() -> None:
    g = one()
    g.tome_gained("ada", "tome1", xp=xp(2, 3))
    assert g.breakdown("ada")["experience"] == 6  # G(2) + G(3) = 2 + 4, not G(5) = 9


def test_L24_a_symbol_counts_in_six_different_and_in_identical_sets() -> None:
    g = one()
    g.tome_gained("ada", "tome1", xp=xp(2, 1, 1, 1, 1, 1))
    assert g.breakdown("ada")["experience"] == 14  # 7 + (2 + 1 x 5) = 7 + 7; XP1 used in both


def test_L26_contracts_add_up_the_vp_of_fulfilled_contracts() -> None:
    g = one()
    g.contract_fulfilled("ada", "c1", vp=5)
    g.contract_fulfilled("ada", "c2", vp=3)
    assert g.breakdown("ada")["contracts"] == 8  # 5 + 3


def test_L28_reserved_but_unfulfilled_contract_gives_minus_3() -> None:
    g = one()
    g.contract_reserved("ada", "c1", vp=5)
    assert g.breakdown("ada")["contracts"] == -3
    g.contract_fulfilled("ada", "c1", vp=5)
    assert g.breakdown("ada")["contracts"] == 5  # the -3 goes, +5 comes


def test_L30_vp_under_each_mark_on_the_board_add_up() -> None:
    g = one()
    g.mark_placed("ada", "slot-a", vp_under=2)
    g.mark_placed("ada", "slot-b", vp_under=3)
    g.mark_placed("ada", "slot-c", vp_under=0)
    assert g.breakdown("ada")["board"] == 5  # 2 + 3 + 0


def test_L32_each_active_goal_card_scores_its_vp() -> None:
    g = one()
    g.goal_scored("ada", "goal-1", vp=4)
    g.goal_scored("ada", "goal-2", vp=3)
    assert g.breakdown("ada")["goals"] == 7  # 4 + 3


def test_L34_fate_counts_light_and_dark_on_completed_trials_and_fulfilled_contracts() -> None:
    g = one()
    g.trial_completed("ada", "t1", vp=0, light=2)
    g.contract_fulfilled("ada", "c1", vp=0, light=1)
    g.contract_reserved("ada", "c2", light=5)  # not fulfilled: its Light does not count
    assert g.breakdown("ada")["fate"] == 3  # |3 - 0|


def test_L37_the_difference_between_light_and_dark_is_the_vp() -> None:
    g = one()
    g.trial_completed("ada", "t1", vp=0, light=5, dark=1)
    g.contract_fulfilled("ada", "c1", vp=0, dark=2)
    assert g.breakdown("ada")["fate"] == 2  # |5 - 3|


def test_L39_four_light_two_dark_give_2() -> None:
    g = one()
    g.trial_completed("ada", "t1", vp=0, light=4, dark=2)
    assert g.breakdown("ada")["fate"] == 2


def test_L40_seven_dark_three_light_give_4() -> None:
    g = one()
    g.trial_completed("ada", "t1", vp=0, light=3, dark=7)
    assert g.breakdown("ada")["fate"] == 4
