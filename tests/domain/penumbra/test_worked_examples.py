"""Penumbra rules (docs/rules/penumbra.md#categories): Ex 1-8, as Given-events / Then-standings (fold, then standings).

Each Given spreads the example's inputs over realistic events; each Then is the example's
hand-computed total and breakdown.
"""

from __future__ import annotations

import pytest

from contracts.penumbra import PenumbraOptions
from domain.ledger import Resource
from tests.domain.penumbra.builders import PenumbraGame, xp


def test_ex1_empty_game_scores_0() -> None:
    g = PenumbraGame(["ada"])
    g.finish()
    s = g.standings()
    assert s.status == "final"
    assert [(p.player_id, p.rank, p.total) for p in s.players] == [("ada", 1, 0)]


def test_ex2_ada_solo_scores_33() -> None:
    g = PenumbraGame(["ada"])
    g.turn(1)
    g.arcana_gained("ada", 5)
    g.trial_completed("ada", "t-4", vp=4, xp=xp(1, 2), light=3)
    g.mortal_wound_taken("ada", "w-1")
    g.turn(2)
    g.trial_completed("ada", "t-6", vp=6, xp=xp(0, 0, 0, 3), dark=2)
    g.contract_fulfilled("ada", "c-5", vp=5, xp=xp(0, 0, 0, 0, 1), light=1)
    g.mark_placed("ada", "slot-1", vp_under=2)
    g.goal_scored("ada", "goal-1", vp=4)
    g.finish()
    assert g.breakdown("ada") == {
        "arcana": 5,
        "trials": 10,
        "mortal_wounds": -3,
        "experience": 8,  # XP (1,2,0,3,1,0): 0 sets + 1+2+0+4+1+0
        "contracts": 5,
        "board": 2,
        "goals": 4,
        "fate": 2,  # |4 - 2|
    }
    assert g.totals() == {"ada": 33}


def test_ex3_three_players_bea_61_cyr_54_dan_45() -> None:
    g = PenumbraGame(["bea", "cyr", "dan"])
    g.turn(1)
    g.arcana_gained("bea", 7)
    g.arcana_gained("cyr", 9)
    g.arcana_gained("cyr", 5)  # 14 -> 12, 2 lost
    g.arcana_gained("dan", 2)
    g.trial_completed("bea", "t-3", vp=3, xp=xp(2, 1), light=2)
    g.trial_completed("bea", "t-5", vp=5, xp=xp(0, 0, 1, 3), light=2, dark=1)
    g.trial_completed("bea", "t-8", vp=8, xp=xp(0, 0, 0, 0, 1, 2), light=1)
    g.contract_fulfilled("bea", "c-6", vp=6, light=1)
    g.contract_fulfilled("bea", "c-4", vp=4)
    g.contract_reserved("bea", "c-x", vp=9, xp=xp(5))  # open at the end: -3
    g.mark_placed("bea", "m1", vp_under=1)
    g.mark_placed("bea", "m2", vp_under=2)
    g.goal_scored("bea", "goal-a", vp=5)
    g.turn(2)
    g.trial_completed("cyr", "t-10", vp=10, xp=xp(0, 4, 0, 2), dark=3)
    g.mortal_wound_taken("cyr", "w-1")
    g.mortal_wound_taken("cyr", "w-2")
    g.contract_fulfilled("cyr", "c-3a", vp=3, xp=xp(0, 0, 0, 0, 3), dark=2)
    g.contract_fulfilled("cyr", "c-3b", vp=3, xp=xp(0, 0, 0, 0, 2))
    g.contract_fulfilled("cyr", "c-7", vp=7)
    g.mark_placed("cyr", "m1", vp_under=3)
    g.trial_completed("dan", "t-6a", vp=6, xp=xp(1, 1, 1), light=2, dark=1)
    g.trial_completed("dan", "t-6b", vp=6, xp=xp(0, 0, 0, 1, 1, 1), light=1, dark=1)
    g.contract_fulfilled("dan", "c-8", vp=8, dark=1)
    for slot, vp in (("m1", 1), ("m2", 1), ("m3", 2)):
        g.mark_placed("dan", slot, vp_under=vp)
    g.goal_scored("dan", "goal-b", vp=3)
    g.goal_scored("dan", "goal-c", vp=3)
    g.finish()
    assert g.breakdown("bea") == {
        "arcana": 7, "trials": 16, "mortal_wounds": 0, "experience": 18,
        "contracts": 7, "board": 3, "goals": 5, "fate": 5,
    }  # fmt: skip
    assert g.breakdown("cyr") == {
        "arcana": 12, "trials": 10, "mortal_wounds": -6, "experience": 17,
        "contracts": 13, "board": 3, "goals": 0, "fate": 5,
    }  # fmt: skip
    assert g.breakdown("dan") == {
        "arcana": 2, "trials": 12, "mortal_wounds": 0, "experience": 13,
        "contracts": 8, "board": 4, "goals": 6, "fate": 0,
    }  # fmt: skip
    s = g.standings()
    assert [(p.player_id, p.rank, p.total) for p in s.players] == [
        ("bea", 1, 61),
        ("cyr", 2, 54),
        ("dan", 3, 45),
    ]
    assert s.winner == "bea"


def test_ex4_two_six_different_sets_score_54() -> None:
    g = PenumbraGame(["eve"])
    g.arcana_gained("eve", 3)
    g.trial_completed("eve", "t-5", vp=5, xp=xp(1, 1, 2, 1, 2, 1), light=1)
    g.trial_completed("eve", "t-7", vp=7, xp=xp(1, 1, 1, 1, 2, 1))
    g.contract_fulfilled("eve", "c-6", vp=6)
    g.finish()
    assert g.breakdown("eve")["experience"] == 32  # XP (2,2,3,2,4,2): 7x2 + 18
    assert g.totals() == {"eve": 54}


def test_ex5_dark_path_scores_22() -> None:
    g = PenumbraGame(["fay"])
    g.arcana_gained("fay", 1)
    g.trial_completed("fay", "t-9", vp=9, xp=xp(0, 0, 0, 0, 0, 2), light=3, dark=4)
    g.contract_fulfilled("fay", "c-4", vp=4, xp=xp(0, 0, 0, 0, 0, 1), dark=3)
    g.finish()
    assert g.breakdown("fay")["experience"] == 4
    assert g.breakdown("fay")["fate"] == 4  # |3 - 7|
    assert g.totals() == {"fay": 22}


@pytest.mark.parametrize(("penalty", "total"), [("per_contract", -13), ("once", -10)])
def test_ex6_negative_total_is_shown_not_clamped(penalty: str, total: int) -> None:
    g = PenumbraGame(["gus"], PenumbraOptions(reserved_contract_penalty=penalty))
    for card in ("w-1", "w-2", "w-3"):
        g.mortal_wound_taken("gus", card)
    g.contract_reserved("gus", "c-a", vp=4)
    g.contract_reserved("gus", "c-b", vp=2)
    g.trial_completed("gus", "t-0", vp=0, xp=xp(0, 0, 1), dark=1)
    g.finish()
    assert g.totals() == {"gus": total}  # -9 + 1 - 6 (or -3) + 1


def test_ex7_arcana_cap_gains_8_then_7_then_spends_2_scores_10() -> None:
    g = PenumbraGame(["hal"])
    g.arcana_gained("hal", 8)
    g.arcana_gained("hal", 7)
    assert g.totals() == {"hal": 12}  # 3 lost, not 15
    g.arcana_spent("hal", 2)
    g.finish()
    assert g.totals() == {"hal": 10}  # not 13
    arcana = [e for e in g.state().ledger if e.resource is Resource.ARCANA]
    assert [e.amount for e in arcana] == [8, 4, -2]
    assert "3 lost" in arcana[1].note


@pytest.mark.parametrize(("policy", "total"), [("cap", 32), ("chunk", 33), ("extrapolate", 35)])
def test_ex8_six_identical_symbols_by_policy(policy: str, total: int) -> None:
    g = PenumbraGame(["ivy"], PenumbraOptions(six_plus_identical=policy))
    g.arcana_gained("ivy", 4)
    g.trial_completed("ivy", "t-5", vp=5, xp=xp(3, 1, 1), light=2)
    g.tome_gained("ivy", "tome-1", xp=xp(3, 0, 0, 1, 1, 1))
    g.finish()
    assert g.totals() == {"ivy": total}  # 4 + 5 + (7 + G(6) + 5) + 2
