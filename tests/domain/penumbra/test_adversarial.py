"""Adversarial Given-events / Then-standings cases for Penumbra, answers computed by hand first.

Rule lines ("L<n>") are those of the Russian rules text summarised in docs/rules/penumbra.md; G(n) is the
identical-set table of L18-L22: 0, 1, 2, 4, 6, 9 for n = 0..5.
"""

from __future__ import annotations

import pytest

from contracts.penumbra import PenumbraOptions
from tests.domain.penumbra.builders import PenumbraGame, xp
from tests.domain.refusal import violation


def rule_of(g: PenumbraGame) -> str:
    refused = violation(g)
    return refused.rule


# -- experience: 6+ identical symbols, several six-sets, symbols from every source --------------
@pytest.mark.parametrize(
    ("policy", "vp"),
    [("cap", 14 + 9 + 10), ("extrapolate", 14 + 16 + 10), ("chunk", 14 + 11 + 10)],
)
def test_seven_of_one_kind_and_two_six_sets(policy: str, vp: int) -> None:
    # XP (7,2,2,2,2,2): min = 2 six-sets -> 14 (L15); five kinds at 2 -> 5 x G(2) = 10;
    # G(7): cap 9, extrapolate (8^2)//4 = 16, chunk 9 + G(2) = 11.
    g = PenumbraGame(["ada"], PenumbraOptions(six_plus_identical=policy))  # type: ignore[arg-type]
    g.tome_gained("ada", "t1", xp=xp(7, 2, 2, 2, 2, 2))
    assert g.breakdown("ada")["experience"] == vp


@pytest.mark.parametrize(
    ("policy", "vp"), [("cap", 42 + 54), ("extrapolate", 42 + 72), ("chunk", 42 + 60)]
)
def test_six_of_every_kind(policy: str, vp: int) -> None:
    # XP (6,6,6,6,6,6): 6 six-sets -> 42; G(6) x 6 kinds:
    # cap 9 -> 54, extrapolate 12 -> 72, chunk 10 -> 60.
    g = PenumbraGame(["ada"], PenumbraOptions(six_plus_identical=policy))  # type: ignore[arg-type]
    g.tome_gained("ada", "t1", xp=xp(6, 6, 6, 6, 6, 6))
    assert g.breakdown("ada")["experience"] == vp


def test_a_six_set_built_from_a_trial_a_contract_and_a_tome_but_not_a_reserved_contract() -> None:
    # L13: Trial (1,1,0,0,0,0) + fulfilled Contract (0,0,1,1,0,0) + Tome (0,0,0,0,1,1) -> all 1:
    # 7 + 6 x G(1) = 13. A reserved, unfulfilled Contract with (3,0,0,0,0,0) adds nothing (REC).
    g = PenumbraGame(["ada"])
    g.trial_completed("ada", "tr", vp=0, xp=xp(1, 1))
    g.contract_fulfilled("ada", "c1", vp=0, xp=xp(0, 0, 1, 1))
    g.tome_gained("ada", "t1", xp=xp(0, 0, 0, 0, 1, 1))
    g.contract_reserved("ada", "c2", xp=xp(3))
    assert g.breakdown("ada")["experience"] == 13


def test_losing_a_tome_breaks_the_six_set() -> None:
    # From (1,1,1,1,1,1) = 13, losing the Tome with (0,0,0,0,1,1) -> (1,1,1,1,0,0) = 4.
    g = PenumbraGame(["ada"])
    g.trial_completed("ada", "tr", vp=0, xp=xp(1, 1, 1, 1))
    g.tome_gained("ada", "t1", xp=xp(0, 0, 0, 0, 1, 1))
    assert g.breakdown("ada")["experience"] == 13
    g.tome_lost("ada", "t1")
    assert g.breakdown("ada")["experience"] == 4


# -- Fate, Contracts, Arcana, negative totals ---------------------------------------------------
def test_fate_is_the_absolute_difference_over_trials_and_fulfilled_contracts_only() -> None:
    # L34-L40: Trial L5/D0, Contract L0/D9 -> |5 - 9| = 4. A reserved Contract's L6 does not count.
    g = PenumbraGame(["ada"])
    g.trial_completed("ada", "tr", vp=0, light=5)
    g.contract_fulfilled("ada", "c1", vp=0, dark=9)
    g.contract_reserved("ada", "c2", light=6)
    assert g.breakdown("ada")["fate"] == 4


@pytest.mark.parametrize(
    ("reading", "before", "after"), [("per_contract", -9, 5 - 6), ("once", -3, 5 - 3)]
)
def test_reserved_contract_penalty_readings(reading: str, before: int, after: int) -> None:
    # L28: three open reservations: -9 per Contract / -3 once. One is then fulfilled for 5 VP:
    # per Contract 5 - 6 = -1, once 5 - 3 = 2.
    g = PenumbraGame(["ada"], PenumbraOptions(reserved_contract_penalty=reading))  # type: ignore[arg-type]
    for c in ("c1", "c2", "c3"):
        g.contract_reserved("ada", c, vp=5)
    assert g.breakdown("ada")["contracts"] == before
    g.contract_fulfilled("ada", "c1", vp=5)
    assert g.breakdown("ada")["contracts"] == after


def test_arcana_at_the_cap_loses_the_whole_gain_then_refills() -> None:
    # L7 + S1 cap 12: +12 -> 12; +4 -> 12 (4 lost); -5 -> 7; +10 -> 12 (5 lost). VP 12.
    g = PenumbraGame(["ada"])
    g.arcana_gained("ada", 12)
    g.arcana_gained("ada", 4)
    g.arcana_spent("ada", 5)
    g.arcana_gained("ada", 10)
    s = g.state()
    assert (s.rules.tableaux["ada"].arcana, s.rules.tableaux["ada"].arcana_lost) == (12, 9)
    assert g.totals()["ada"] == 12


def test_negative_total_from_wounds_and_an_open_reservation() -> None:
    # L11: 2 wounds -> -6; L28: one open reservation -> -3. Total -9, not clamped.
    g = PenumbraGame(["ada", "bea"])
    g.mortal_wound_taken("ada", "w1")
    g.mortal_wound_taken("ada", "w2")
    g.contract_reserved("ada", "c1", vp=4)
    g.finish()
    s = g.standings()
    assert g.totals() == {"ada": -9, "bea": 0}
    assert [(p.player_id, p.rank) for p in s.players] == [("bea", 1), ("ada", 2)]


# -- the end, voids and corrections -------------------------------------------------------------
def test_in_play_event_after_the_end_is_refused() -> None:
    g = PenumbraGame(["ada"])
    g.finish()
    g.arcana_gained("ada", 1)
    assert rule_of(g) == "log.after_game_ended"


def test_void_of_a_trial_after_the_end_rescores_it() -> None:
    # Trial 6 VP, (1,0,0,0,0,0) XP, L2: 6 + 1 + 2 = 9. Voided after the end: 0; still final.
    g = PenumbraGame(["ada"])
    trial = g.trial_completed("ada", "tr", vp=6, xp=xp(1), light=2)
    g.finish()
    assert g.totals() == {"ada": 9}
    g.voided(trial)
    s = g.standings()
    assert (s.status, s.players[0].total) == ("final", 0)


def test_void_of_a_final_turn_after_the_end_is_refused() -> None:
    g = PenumbraGame(["ada", "bea"])
    g.finish()
    final_turn = next(e for e in g.events if e.type == "penumbra.final_turn_taken")
    g.voided(final_turn)
    assert rule_of(g) == "void.breaks_later_event"


def test_void_of_a_tome_that_was_later_lost_is_refused() -> None:
    g = PenumbraGame(["ada"])
    tome = g.tome_gained("ada", "t1", xp=xp(1))
    g.tome_lost("ada", "t1")
    g.voided(tome)
    assert rule_of(g) == "void.breaks_later_event"


def test_correction_after_the_end_and_its_void() -> None:
    # A -4 correction after the end moves Ada from 5 (Arcana) to 1; voiding it restores 5.
    g = PenumbraGame(["ada"])
    g.arcana_gained("ada", 5)
    g.finish()
    fix = g.corrected("ada", -4)
    assert g.totals() == {"ada": 1}
    g.voided(fix)
    assert g.totals() == {"ada": 5}


def test_unknown_player_is_refused() -> None:
    g = PenumbraGame(["ada"])
    g.arcana_gained("zed", 1)
    assert rule_of(g) == "penumbra.player.unknown"


def test_nothing_but_game_ended_after_every_final_turn() -> None:
    g = PenumbraGame(["ada", "bea"])
    g.prophecy("pr", by="ada")
    g.final_turn("ada")
    g.final_turn("bea")
    g.arcana_gained("ada", 1)
    assert rule_of(g) == "penumbra.end.all_final_turns_taken"
