"""Tests added after a mutation check: each one fails on a mutant of a scoring function that the
suite let through before (the mutant is named in the test's docstring). Values by hand."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from contracts.trickerion import EndgameInventoryDeclared
from tests.domain.trickerion.builders import TrickerionGame


def test_players_without_banners_take_no_rank_even_when_ties_pay_the_next_tier() -> None:
    """Mutant: 0-Banner players ranked in `academy_points`. Under `next_tier_down` three
    0-Banner players tied over ranks 2-4 would take tier 3 = 5 Fame; rules L23 "Players with no
    Banners score none": 15 / 0 / 0 / 0."""
    ids = ["p1", "p2", "p3", "p4"]
    g = TrickerionGame(ids, academy=True, academy_ties="next_tier_down")
    g.to_final_turn()
    g.inventory("p1", academy_banners=5)
    for pid in ids[1:]:
        g.inventory(pid)
    g.end()
    s = g.standings()
    assert [
        next(p.categories["academy"] for p in s.players if p.player_id == pid) for pid in ids
    ] == [
        15,
        0,
        0,
        0,
    ]


def test_enchantments_cannot_be_declared_so_they_never_score() -> None:
    """Rules L26 "Enchantments do not score": the inventory has no field for them."""
    with pytest.raises(ValidationError):
        EndgameInventoryDeclared(player_id="ann", enchantments=3)  # type: ignore[call-arg]
