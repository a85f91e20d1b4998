"""Every PenumbraOptions REC with its default and the other reading (docs/rules/penumbra.md)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from contracts.events import parse_event_json
from contracts.penumbra import PenumbraOptions
from domain.penumbra.experience import identical_set_vp
from tests.domain.penumbra.builders import PenumbraGame, xp
from tests.domain.refusal import violation


def test_defaults_are_the_recs() -> None:
    o = PenumbraOptions()
    assert (o.six_plus_identical, o.reserved_contract_penalty, o.arcana_cap) == (
        "cap",
        "per_contract",
        12,
    )
    assert (o.tie_break, o.xp_on_unfulfilled, o.contract_reservation_required) == (
        "shared",
        False,
        False,
    )
    assert o.experience_names == {f"XP{i}": f"XP{i}" for i in range(1, 7)}


def test_options_travel_in_game_started_and_reach_the_ruleset() -> None:
    g = PenumbraGame(["ada"], PenumbraOptions(six_plus_identical="chunk", arcana_cap=15))
    started = parse_event_json(g.events[0].model_dump_json())
    assert started.payload.options.six_plus_identical == "chunk"
    assert g.state().rules.options.arcana_cap == 15


@pytest.mark.parametrize(
    ("n", "cap", "chunk", "extrapolate"),
    [
        (5, 9, 9, 9),
        (6, 9, 10, 12),
        (7, 9, 11, 16),
        (8, 9, 13, 20),
        (10, 9, 18, 30),
        (11, 9, 19, 36),
    ],
)
def test_six_plus_identical_policies(n: int, cap: int, chunk: int, extrapolate: int) -> None:
    # chunk: 9 per block of 5 + G(rest); extrapolate: floor((n+1)^2 / 4)
    assert identical_set_vp(n, "cap") == cap
    assert identical_set_vp(n, "chunk") == chunk
    assert identical_set_vp(n, "extrapolate") == extrapolate


def test_identical_set_vp_rejects_a_negative_count() -> None:
    with pytest.raises(ValueError, match="negative"):
        identical_set_vp(-1)


@pytest.mark.parametrize(("penalty", "contracts"), [("per_contract", -9), ("once", -3)])
def test_reserved_contract_penalty(penalty: str, contracts: int) -> None:
    g = PenumbraGame(["ada"], PenumbraOptions(reserved_contract_penalty=penalty))
    for cid in ("c-1", "c-2", "c-3"):
        g.contract_reserved("ada", cid)
    assert g.breakdown("ada")["contracts"] == contracts


@pytest.mark.parametrize(("cap", "arcana"), [(12, 12), (15, 15), (20, 16)])
def test_arcana_cap(cap: int, arcana: int) -> None:
    g = PenumbraGame(["ada"], PenumbraOptions(arcana_cap=cap))
    g.arcana_gained("ada", 9)
    g.arcana_gained("ada", 7)
    assert g.breakdown("ada")["arcana"] == arcana


def _tied_game(tie_break: str) -> PenumbraGame:
    g = PenumbraGame(["ada", "bea", "cyr"], PenumbraOptions(tie_break=tie_break))
    g.arcana_gained("ada", 5)  # 5
    g.mortal_wound_taken("bea", "w-1")
    g.goal_scored("bea", "goal", vp=8)  # 8 - 3 = 5
    g.arcana_gained("cyr", 2)
    g.goal_scored("cyr", "goal-2", vp=3)  # 2 + 3 = 5
    g.finish()
    return g


def test_tie_break_shared_by_default() -> None:
    s = _tied_game("shared").standings()
    assert [p.rank for p in s.players] == [1, 1, 1]
    assert s.winners == ["ada", "bea", "cyr"]
    assert s.winner is None


def test_tie_break_fewer_wounds_then_more_arcana() -> None:
    s = _tied_game("fewer_wounds_then_arcana").standings()
    assert s.winner == "ada"  # ada and cyr 0 wounds; ada 5 Arcana beats cyr's 2
    assert "Mortal Wounds" in (s.tie_break or "")


@pytest.mark.parametrize(("count", "experience"), [(False, 1), (True, 4)])
def test_xp_on_unfulfilled(count: bool, experience: int) -> None:
    g = PenumbraGame(["ada"], PenumbraOptions(xp_on_unfulfilled=count))
    g.trial_completed("ada", "t-1", vp=0, xp=xp(1))
    g.contract_reserved("ada", "c-1", xp=xp(2), light=2)
    b = g.breakdown("ada")
    assert b["experience"] == experience  # G(1) = 1, or G(3) = 4 with the reserved XP1 x 2
    assert b["fate"] == 0  # Light on an unfulfilled Contract never counts (rules line 34)


def test_contract_reservation_not_required_by_default() -> None:
    g = PenumbraGame(["ada"])
    g.contract_fulfilled("ada", "c-1", vp=5)
    assert g.breakdown("ada")["contracts"] == 5


def test_contract_reservation_required_rejects_an_unreserved_fulfilment() -> None:
    g = PenumbraGame(["ada"], PenumbraOptions(contract_reservation_required=True))
    g.contract_reserved("ada", "c-1", vp=5)
    g.contract_fulfilled("ada", "c-1", vp=5)
    assert g.breakdown("ada")["contracts"] == 5
    g.contract_fulfilled("ada", "c-2", vp=5)
    refused = violation(g)
    assert refused.rule == "penumbra.contract.not_reserved"


def test_experience_names_are_configurable_and_must_name_all_six() -> None:
    names = {f"XP{i}": f"Discipline {i}" for i in range(1, 7)}
    assert PenumbraOptions(experience_names=names).experience_names["XP3"] == "Discipline 3"
    with pytest.raises(ValidationError, match=r"XP1\.\.XP6"):
        PenumbraOptions(experience_names={"XP1": "Amethyst"})
