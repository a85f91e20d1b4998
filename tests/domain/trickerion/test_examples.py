"""The worked examples E1-E9 of docs/rules/trickerion.md#end-of-game and the applicable rules questions,
as Given events / Then standings: build events, fold with `domain.fold.fold`, assert
`domain.standings.standings`.

Each player is brought to the example's in-play Fame, Coins and Shards in the final turn, learns
the named tricks and declares the named inventory.
"""

from __future__ import annotations

from typing import Any

import pytest

from domain.fold import fold
from domain.standings import Standings, standings
from tests.domain.trickerion.builders import TrickerionGame


def play(
    players: dict[str, dict[str, Any]], order: list[str] | None = None, **options: Any
) -> Standings:
    """Given: each player's `fame`, `coins`, `shards`, `learn` (trick ids) and `inventory`
    (fields of the end-game inventory). Then: the final standings."""
    g = TrickerionGame(list(players), **options)
    g.turn()
    for pid, p in players.items():
        for trick_id in p.get("learn", ()):
            g.learn(pid, trick_id)
    g.to_final_turn(order)
    for pid, p in players.items():
        g.reach(pid, fame=p["fame"], coins=p["coins"], shards=p["shards"])
        g.declare(pid, **p.get("inventory", {}))
    g.end()
    return standings(fold(g.events))


def totals(s: Standings) -> dict[str, int]:
    return {p.player_id: p.total for p in s.players}


def test_e1_base_game_three_players() -> None:
    s = play(
        {
            "anna": {
                "fame": 41,
                "shards": 3,
                "coins": 14,
                "inventory": {"apprentices": 2, "specialists": ("manager", "engineer")},
            },
            "ben": {
                "fame": 44,
                "shards": 0,
                "coins": 2,
                "inventory": {"apprentices": 1, "specialists": ("assistant",)},
            },
            "cleo": {
                "fame": 38,
                "shards": 5,
                "coins": 21,
                "inventory": {
                    "apprentices": 3,
                    "specialists": ("assistant", "manager", "engineer"),
                },
            },
        },
        dark_alley=False,
    )
    assert totals(s) == {"cleo": 65, "anna": 58, "ben": 49}
    assert s.winner == "cleo"
    cleo = next(p for p in s.players if p.player_id == "cleo")
    assert {
        k: cleo.categories[k]
        for k in ("endgame_shards", "endgame_coins", "apprentices", "specialists")
    } == {
        "endgame_shards": 5,
        "endgame_coins": 7,
        "apprentices": 6,
        "specialists": 9,
    }


def test_e2_dark_alley_four_players_level3_eligibility() -> None:
    s = play(
        {
            "dora": {
                "fame": 60, "shards": 4, "coins": 11, "learn": ("T47", "T17", "T18", "T25"),
                "inventory": {"special_assignments_in_hand": 2, "level3": (("T47", True, 0),)},
            },
            "emil": {
                "fame": 58, "shards": 2, "coins": 9, "learn": ("T36", "T12", "T26", "T27"),
                "inventory": {
                    "specialists": ("manager",),
                    "level3": (("T36", False, 1), ("T12", False, 0)),
                },
            },
            "finn": {
                "fame": 63, "shards": 0, "coins": 0, "learn": ("T34",),
                "inventory": {"special_assignments_in_hand": 1, "level3": (("T34", True, 0),)},
            },
            "gia": {
                "fame": 55, "shards": 7, "coins": 16, "learn": ("T22",),
                "inventory": {
                    "special_assignments_in_hand": 3,
                    "apprentices": 3,
                    "level3": (("T22", True, 0),),
                },
            },
        }
    )  # fmt: skip
    assert totals(s) == {"gia": 82, "dora": 79, "emil": 71, "finn": 65}
    assert s.winner == "gia"


def test_e3_dark_alley_two_players_caps() -> None:
    s = play(
        {
            "hugo": {
                "fame": 70, "shards": 23, "coins": 64, "learn": ("T46", "T24"),
                "inventory": {
                    "special_assignments_in_hand": 4,
                    "level3": (("T46", True, 0), ("T24", False, 1)),
                },
            },
            "ines": {
                "fame": 90, "shards": 1, "coins": 5, "learn": ("T10", "T21"),
                "inventory": {
                    "advanced_components": 11, "superior_components": 5,
                    "level3": (("T10", True, 0), ("T21", True, 0)),
                },
            },
        }
    )  # fmt: skip
    assert totals(s) == {"hugo": 158, "ines": 127}
    hugo = next(p for p in s.players if p.player_id == "hugo")
    assert hugo.categories["level3_tricks"] == 40


def test_e4_dark_alley_academy_four_players() -> None:
    s = play(
        {
            "jan": {
                "fame": 50,
                "shards": 2,
                "coins": 8,
                "inventory": {"special_assignments_in_hand": 1, "academy_banners": 5},
            },
            "kai": {"fame": 52, "shards": 0, "coins": 6, "inventory": {"academy_banners": 5}},
            "lea": {
                "fame": 49,
                "shards": 3,
                "coins": 3,
                "inventory": {"special_assignments_in_hand": 2, "academy_banners": 3},
            },
            "max": {"fame": 57, "shards": 0, "coins": 1},
        },
        academy=True,
    )
    assert totals(s) == {"jan": 66, "kai": 64, "lea": 62, "max": 57}
    assert {p.player_id: p.categories["academy"] for p in s.players} == {
        "jan": 10,
        "kai": 10,
        "lea": 5,
        "max": 0,
    }


def test_e5_dark_alley_academy_three_players() -> None:
    s = play(
        {
            "nia": {"fame": 45, "shards": 1, "coins": 4, "inventory": {"academy_banners": 6}},
            "oto": {
                "fame": 47,
                "shards": 0,
                "coins": 0,
                "inventory": {"special_assignments_in_hand": 1, "academy_banners": 6},
            },
            "pia": {"fame": 50, "shards": 2, "coins": 7, "inventory": {"academy_banners": 2}},
        },
        academy=True,
    )
    assert totals(s) == {"oto": 55, "pia": 54, "nia": 53}
    assert s.winner == "oto"


def test_e6_dark_alley_academy_two_players_tied_banners() -> None:
    s = play(
        {
            "quin": {
                "fame": 61,
                "shards": 3,
                "coins": 10,
                "inventory": {"special_assignments_in_hand": 1, "academy_banners": 4},
            },
            "rosa": {"fame": 64, "shards": 0, "coins": 14, "inventory": {"academy_banners": 4}},
        },
        academy=True,
    )
    assert totals(s) == {"quin": 69, "rosa": 68}


E7 = {
    "sam": {
        "fame": 52,
        "shards": 4,
        "coins": 12,
        "inventory": {"contraption_shards": 3, "special_assignments_in_hand": 1},
    },
    "tia": {"fame": 55, "shards": 3, "coins": 5},
    "uwe": {"fame": 50, "shards": 1, "coins": 17, "inventory": {"special_assignments_in_hand": 2}},
}


@pytest.mark.parametrize(
    ("reading", "expected"),
    [
        ("ceil_two_thirds", {"sam": 63, "uwe": 60, "tia": 58}),
        ("two_per_started_three", {"sam": 64, "uwe": 61, "tia": 58}),
    ],
)
def test_e7_dark_alley_dawn_of_technology(reading: str, expected: dict[str, int]) -> None:
    s = play(E7, dawn_of_technology=True, dot_rounding=reading)
    assert totals(s) == expected


def test_e8_dark_alley_magician_powers() -> None:
    s = play(
        {
            "vic": {
                "fame": 66, "shards": 9, "coins": 20, "learn": ("T46",),
                "inventory": {"special_assignments_in_hand": 1, "level3": (("T46", True, 0),)},
            },
            "wen": {
                "fame": 70, "shards": 2, "coins": 11,
                "inventory": {"special_assignments_in_hand": 2},
            },
        },
        magician_powers=True,
    )  # fmt: skip
    assert totals(s) == {"vic": 83, "wen": 77}


def test_e9_dark_alley_three_players_tie_break() -> None:
    s = play(
        {
            "bo": {"fame": 60, "shards": 2, "coins": 7},
            "cy": {
                "fame": 58,
                "shards": 1,
                "coins": 11,
                "inventory": {"special_assignments_in_hand": 1},
            },
            "di": {"fame": 62, "shards": 0, "coins": 2},
        },
        order=["cy", "bo", "di"],
    )
    assert totals(s) == {"cy": 64, "bo": 64, "di": 62}
    assert [p.rank for p in s.players] == [1, 1, 3]
    assert (s.winner, s.winners) == ("cy", ["cy"])
    assert (
        s.tie_break
        == "Bo and Cy tied on 64 Fame; Cy is ahead in initiative order (position 1 vs 2)"
    )


def test_q7_a_golem_unpaid_in_shards_costs_4_fame() -> None:
    g = TrickerionGame(["ann", "ben"], arcane_arts=True)
    g.turn()
    g.hire("ann", "golem")
    g.reach("ann", shards=0, fame=10)
    g.change("ann", "arcane_wages", fame=-4, note="Golem wage: no Shard")
    line = next(p for p in g.standings().players if p.player_id == "ann")
    assert (line.total, line.categories["arcane_wages"]) == (6, -4)
