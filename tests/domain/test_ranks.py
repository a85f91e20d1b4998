"""Ranks and the winner agree in every answer, with the tie-break in ranks as a named option
(`tie_break_ranks`, recorded in the game start): `shared` (default) keeps shared places where
the rules only name a winner; `ordered` ranks tied players by the game's tie-break. A solo game
has no winner: neither game's rules give a solo win (trickerion-scoring.md L27 names the most
Fame among players; docs/rules/penumbra.md#winner: no solo win condition).
"""

from __future__ import annotations

from contracts.penumbra import PenumbraOptions
from domain.standings import Standings
from tests.domain.penumbra.builders import PenumbraGame
from tests.domain.trickerion.builders import TrickerionGame, finish


def ranks(s: Standings) -> dict[str, int]:
    return {p.player_id: p.rank for p in s.players}


def tied_trickerion(**options: object) -> Standings:
    # Given Ann (position 1) and Ben (position 2) both at 5 Fame (set-up, research §2) with
    # Coins 10 / 12 -> 3 / 4 end-game Fame; Ben gives 3 Coins away: 9 -> 3. Tied on 8 Fame.
    g = TrickerionGame(["ann", "ben", "cy"], **options)
    g.turn()
    g.change("ben", "bank", coins=-3)
    g.reach("cy", fame=1)  # Cy 1 + 14 // 3 = 4 + 1 Shard = 1 -> 6, third
    return finish(g)


def test_trickerion_default_shares_the_place_and_names_the_initiative_winner() -> None:
    # Ann 5 + 10//3 + 1 Shard = 9; Ben 5 + 9//3 + 1 = 9; Cy 1 + 14//3 + 1 = 6.
    s = tied_trickerion()
    assert ranks(s) == {"ann": 1, "ben": 1, "cy": 3}
    assert s.winner == "ann"


def test_trickerion_ordered_ranks_follow_the_initiative_tie_break() -> None:
    s = tied_trickerion(tie_break_ranks="ordered")
    assert ranks(s) == {"ann": 1, "ben": 2, "cy": 3}
    assert s.winner == "ann"
    assert [p.player_id for p in s.players] == ["ann", "ben", "cy"]


def test_penumbra_ordered_ranks_follow_the_chosen_tie_break() -> None:
    # Ada: Goal 3 = 3 VP (line 32). Bea: Goal 6 - Mortal Wound 3 (line 11) = 3 VP. Tied; Ada
    # has fewer Mortal Wounds: ranks 1, 2 under fewer_wounds_then_arcana (research §6, EC-24).
    opts = {"tie_break": "fewer_wounds_then_arcana", "tie_break_ranks": "ordered"}
    g = PenumbraGame(["ada", "bea"], PenumbraOptions.model_validate(opts))
    g.goal_scored("ada", "g-1", 3)
    g.mortal_wound_taken("bea", "w-1")
    g.goal_scored("bea", "g-2", 6)
    g.finish()
    s = g.standings()
    assert ranks(s) == {"ada": 1, "bea": 2}
    assert s.winner == "ada"


def test_a_solo_trickerion_game_has_no_winner() -> None:
    s = finish(TrickerionGame(["ann"]))
    assert (s.winner, s.winners, ranks(s)) == (None, [], {"ann": 1})


def test_a_solo_penumbra_game_has_no_winner() -> None:
    g = PenumbraGame(["ada"])
    g.goal_scored("ada", "g-1", 3)
    g.finish()
    s = g.standings()
    assert (s.winner, s.winners) == (None, [])
