"""End-game Fame: one test per row and sentence of trickerion-scoring.md 'End of the game',
'Module changes' and the tie-break, plus each end-game REC option with both readings.

Totals are hand-computed: in-play Fame (set with `reach`) + each end-game line.
"""

from __future__ import annotations

from typing import Any

import pytest

from domain.standings import Standings
from tests.domain.trickerion.builders import TrickerionGame, categories_of, finish, total_of

cats = categories_of
total = total_of


ENDGAME = ("endgame_shards", "endgame_coins", "special_assignments", "apprentices", "specialists")


def endgame(s: Standings, pid: str) -> dict[str, int]:
    """The end-game categories of a player (those present)."""
    c = cats(s, pid)
    return {k: c[k] for k in (*ENDGAME, "level3_tricks", "academy") if k in c}


def duo(**options: Any) -> TrickerionGame:
    return TrickerionGame(["ann", "ben"], **options)


# -- the rows ---------------------------------------------------------------------------------
def test_each_unspent_trickerion_shard_scores_1() -> None:
    g = duo()
    g.turn()
    g.reach("ann", shards=4)
    assert endgame(finish(g), "ann")["endgame_shards"] == 4


@pytest.mark.parametrize(("coins", "fame"), [(14, 4), (2, 0), (3, 1), (0, 0)])
def test_each_3_leftover_coins_score_1_the_remainder_is_discarded(coins: int, fame: int) -> None:
    g = duo()
    g.turn()
    g.reach("ann", coins=coins)
    assert endgame(finish(g), "ann")["endgame_coins"] == fame


def test_each_special_assignment_card_remaining_in_hand_scores_2() -> None:
    s = finish(duo(), ann={"special_assignments_in_hand": 3})
    assert endgame(s, "ann")["special_assignments"] == 6


L3_SETUP = {
    "apprentices": 2,
    "specialists": ("assistant", "manager"),
    "basic_components": 5,
    "advanced_components": 4,
    "superior_components": 3,
    "workshop_trick_markers": 6,
    "special_assignments_in_hand": 2,
}


@pytest.mark.parametrize(
    ("trick_id", "fame"),
    [
        ("T09", 0),  # 12 if Assistant, Engineer and Manager: no Engineer
        ("T10", 8),  # 2 x 4 Advanced
        ("T11", 10),  # owns 4 tricks
        ("T12", 7),  # has a Manager
        ("T21", 9),  # 3 x 3 Superior
        ("T22", 6),  # 3 x 2 Apprentices
        ("T23", 5),  # 1 x 5 Basic
        ("T24", 5),  # 17 Coins // 3
        ("T33", 0),  # no Engineer
        ("T34", 7),  # has an Assistant
        ("T35", 4),  # 4 x 1 Level 1 trick
        ("T36", 4),  # 4 x 1 Level 3 trick, itself
        ("T45", 12),  # 2 x 6 markers in the Workshop
        ("T46", 4),  # 4 unspent Shards
        ("T47", 8),  # 4 x 2 Level 2 tricks
        ("T48", 4),  # 2 x 2 Special Assignment cards
    ],
)
def test_each_eligible_level3_trick_scores_its_printed_condition(trick_id: str, fame: int) -> None:
    g = duo()
    g.turn()
    for t in (trick_id, "T01", "T05", "T06"):
        g.learn("ann", t)
    g.reach("ann", coins=17, shards=4)
    s = finish(g, ann={**L3_SETUP, "level3": ((trick_id, True, 0),)})
    assert endgame(s, "ann")["level3_tricks"] == fame


def test_t09_scores_12_with_assistant_engineer_and_manager() -> None:
    g = duo()
    g.turn()
    g.learn("ann", "T09")
    s = finish(
        g, ann={"specialists": ("assistant", "engineer", "manager"), "level3": (("T09", True, 0),)}
    )
    assert endgame(s, "ann")["level3_tricks"] == 12


@pytest.mark.parametrize(
    ("met", "markers", "fame"),
    [(True, 0, 7), (False, 1, 7), (False, 0, 0)],
    ids=["components_met", "one_trick_marker", "neither"],
)
def test_level3_trick_is_eligible_if_components_met_or_at_least_one_trick_marker(
    met: bool, markers: int, fame: int
) -> None:
    g = duo()
    g.turn()
    g.learn("ann", "T12")
    s = finish(g, ann={"specialists": ("manager",), "level3": (("T12", met, markers),)})
    assert endgame(s, "ann")["level3_tricks"] == fame


def test_level3_counting_conditions_count_owned_tricks_eligible_or_not() -> None:
    g = duo()
    g.turn()
    for t in ("T36", "T12", "T47"):
        g.learn("ann", t)
    s = finish(g, ann={"level3": (("T36", True, 0), ("T12", False, 0), ("T47", False, 0))})
    assert endgame(s, "ann")["level3_tricks"] == 12  # T36: 4 x 3 Level 3 owned; T12, T47 ineligible


def test_t48_and_the_special_assignment_category_stack() -> None:
    g = duo()
    g.turn()
    g.learn("ann", "T48")
    s = finish(g, ann={"special_assignments_in_hand": 2, "level3": (("T48", True, 0),)})
    assert endgame(s, "ann") == {
        "endgame_shards": 1,
        "endgame_coins": 3,
        "special_assignments": 4,
        "level3_tricks": 4,
    }


def test_t24_and_the_coins_category_both_score_the_same_coins() -> None:
    g = duo()
    g.turn()
    g.learn("ann", "T24")
    g.reach("ann", coins=17)
    s = finish(g, ann={"level3": (("T24", False, 1),)})
    assert (endgame(s, "ann")["endgame_coins"], endgame(s, "ann")["level3_tricks"]) == (5, 5)


def test_coins_below_zero_score_nothing() -> None:
    g = duo(negative_coins="allow")
    g.turn()
    g.change("ann", "wages", coins=-13)
    assert endgame(finish(g), "ann")["endgame_coins"] == 0


def test_professor_bernards_set_aside_tricks_are_not_owned_at_the_end_q6() -> None:
    g = duo()
    g.turn()
    for t in ("T36", "T47"):
        g.learn("ann", t)
    s = finish(g, ann={"set_aside_trick_ids": ("T47",), "level3": (("T36", True, 0),)})
    assert endgame(s, "ann")["level3_tricks"] == 4


# -- the cap ----------------------------------------------------------------------------------
def test_each_category_can_award_at_most_20_fame() -> None:
    g = duo()
    g.turn()
    g.reach("ann", coins=64, shards=23)
    s = finish(g, ann={"special_assignments_in_hand": 11})
    assert endgame(s, "ann") == {
        "endgame_shards": 20,
        "endgame_coins": 20,
        "special_assignments": 20,
    }


def test_each_individual_level3_trick_can_award_at_most_20_but_not_their_sum() -> None:
    g = duo()
    g.turn()
    g.learn("ann", "T46")
    g.learn("ann", "T24")
    g.reach("ann", coins=64, shards=23)
    s = finish(g, ann={"level3": (("T46", True, 0), ("T24", False, 1))})
    assert endgame(s, "ann")["level3_tricks"] == 40


def test_the_cap_does_not_touch_in_play_fame() -> None:
    g = duo()
    g.turn()
    g.reach("ann", fame=95)
    assert total(finish(g), "ann") == 95 + 1 + 3


@pytest.mark.parametrize(("cap", "fame"), [(20, 20), (30, 23)])
def test_option_category_cap(cap: int, fame: int) -> None:
    g = duo(category_cap=cap)
    g.turn()
    g.reach("ann", shards=23)
    assert endgame(finish(g), "ann")["endgame_shards"] == fame


# -- game length and the base game ----------------------------------------------------------
def test_the_full_game_ends_after_turn_seven() -> None:
    g = duo()
    g.to_turn(7)
    g.inventory("ann")
    g.inventory("ben")
    g.end()
    assert g.standings().status == "final"


def test_without_the_dark_alley_the_base_game_ends_after_turn_five() -> None:
    g = duo(dark_alley=False)
    g.to_turn(5)
    g.inventory("ann")
    g.inventory("ben")
    g.end()
    assert g.standings().status == "final"


def test_base_game_scores_2_per_apprentice_3_per_specialist_not_special_assignments() -> None:
    s = finish(
        duo(dark_alley=False), ann={"apprentices": 3, "specialists": ("assistant", "engineer")}
    )
    assert endgame(s, "ann") == {
        "endgame_shards": 1,
        "endgame_coins": 3,
        "apprentices": 6,
        "specialists": 6,
    }


def test_base_game_apprentices_are_capped_at_20() -> None:
    s = finish(duo(dark_alley=False), ann={"apprentices": 11})
    assert endgame(s, "ann")["apprentices"] == 20


# -- modules ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("players", "banners", "fame"),
    [
        (2, {"p1": 3, "p2": 1}, [8, 0]),
        (3, {"p1": 1, "p2": 5, "p3": 2}, [0, 12, 6]),
        (4, {"p1": 4, "p2": 3, "p3": 2, "p4": 1}, [15, 10, 5, 0]),
        (4, {"p1": 4, "p2": 0, "p3": 2, "p4": 0}, [15, 0, 10, 0]),
    ],
    ids=["2p_leader_8", "3p_12_6", "4p_15_10_5", "4p_no_banners_no_rank"],
)
def test_academy_ranks_players_by_banners(
    players: int, banners: dict[str, int], fame: list[int]
) -> None:
    ids = [f"p{n}" for n in range(1, players + 1)]
    s = finish(
        TrickerionGame(ids, academy=True), **{p: {"academy_banners": b} for p, b in banners.items()}
    )
    assert [endgame(s, p)["academy"] for p in ids] == fame


@pytest.mark.parametrize(
    ("reading", "fame"),
    [("lowest_covered_tier", [5, 5, 5, 0]), ("next_tier_down", [10, 10, 10, 0])],
)
def test_option_academy_ties_receive_the_lower_tier(reading: str, fame: list[int]) -> None:
    ids = ["p1", "p2", "p3", "p4"]
    banners = {"p1": 3, "p2": 3, "p3": 3, "p4": 1}
    s = finish(
        TrickerionGame(ids, academy=True, academy_ties=reading),
        **{p: {"academy_banners": b} for p, b in banners.items()},
    )
    assert [endgame(s, p)["academy"] for p in ids] == fame


def test_academy_in_a_base_game_applies_as_written() -> None:
    s = finish(duo(dark_alley=False, academy=True), ann={"academy_banners": 2})
    assert endgame(s, "ann")["academy"] == 8


@pytest.mark.parametrize(
    ("reading", "fame_by_shards"),
    [("ceil_two_thirds", [1, 2, 2, 3, 4, 4]), ("two_per_started_three", [2, 2, 2, 4, 4, 4])],
)
def test_option_dawn_of_technology_2_per_3_shards_rounded_up(
    reading: str, fame_by_shards: list[int]
) -> None:
    got = []
    for shards in range(1, 7):
        g = duo(dawn_of_technology=True, dot_rounding=reading)
        g.turn()
        g.reach("ann", shards=shards)
        got.append(endgame(finish(g), "ann")["endgame_shards"])
    assert got == fame_by_shards


def test_dawn_of_technology_shards_on_contraption_slots_count_q5() -> None:
    g = duo(dawn_of_technology=True)
    s = finish(g, ann={"contraption_shards": 3})  # 1 loose + 3 on slots: ceil(8 / 3) = 3
    assert endgame(s, "ann")["endgame_shards"] == 3


@pytest.mark.parametrize(("capped", "fame"), [(True, 20), (False, 22)])
def test_option_dot_category_cap(capped: bool, fame: int) -> None:
    g = duo(dawn_of_technology=True, dot_category_cap=capped)
    g.turn()
    g.reach("ann", shards=33)
    assert endgame(finish(g), "ann")["endgame_shards"] == fame


def test_magician_powers_shards_do_not_score_q4() -> None:
    g = duo(magician_powers=True)
    g.turn()
    g.reach("ann", shards=5)
    assert endgame(finish(g), "ann")["endgame_shards"] == 0


@pytest.mark.parametrize(("reading", "fame"), [("magician_powers_wins", 0), ("dot_applies", 4)])
def test_option_dot_with_magician_powers(reading: str, fame: int) -> None:
    g = duo(magician_powers=True, dawn_of_technology=True, dot_with_magician_powers=reading)
    g.turn()
    g.reach("ann", shards=6)
    assert endgame(finish(g), "ann")["endgame_shards"] == fame


def test_arcane_workers_count_as_apprentices_for_final_scoring_conditions() -> None:
    g = duo(arcane_arts=True)
    g.turn()
    g.learn("ann", "T22")
    s = finish(
        g,
        ann={
            "apprentices": 2,
            "arcane_workers": ("golem", "specter"),
            "level3": (("T22", True, 0),),
        },
    )
    assert endgame(s, "ann")["level3_tricks"] == 12  # 3 x (2 + 2)


def test_arcane_workers_count_as_apprentices_in_the_base_game() -> None:
    s = finish(
        duo(dark_alley=False, arcane_arts=True),
        ann={"apprentices": 1, "arcane_workers": ("trickster",)},
    )
    assert endgame(s, "ann")["apprentices"] == 4


def test_shapeshifter_counts_as_the_declared_character_type() -> None:
    g = duo(arcane_arts=True)
    g.turn()
    g.learn("ann", "T12")
    g.learn("ann", "T22")
    inv = {"arcane_workers": ("shapeshifter",), "level3": (("T12", True, 0), ("T22", True, 0))}
    s = finish(g, ann={**inv, "shapeshifter_as": "apprentice"})
    assert endgame(s, "ann")["level3_tricks"] == 3  # T22: 1 Apprentice; T12: no Manager


@pytest.mark.parametrize(("reading", "fame"), [("one_type_for_all", 7), ("best_per_condition", 14)])
def test_option_shapeshifter_choice_undeclared(reading: str, fame: int) -> None:
    g = duo(arcane_arts=True, shapeshifter_choice=reading)
    g.turn()
    g.learn("ann", "T12")
    g.learn("ann", "T34")
    s = finish(
        g, ann={"arcane_workers": ("shapeshifter",), "level3": (("T12", True, 0), ("T34", True, 0))}
    )
    assert endgame(s, "ann")["level3_tricks"] == fame


def test_leftover_arcane_shards_score_and_count_as_regular_shards() -> None:
    g = duo(arcane_arts=True)
    g.turn()
    g.learn("ann", "T46")
    s = finish(g, ann={"arcane_shards": 2, "level3": (("T46", True, 0),)})
    assert endgame(s, "ann")["endgame_shards"] == 3
    assert endgame(s, "ann")["level3_tricks"] == 3


@pytest.mark.parametrize(("reading", "fame"), [("all_held", 7), ("excluding_contraption", 4)])
def test_option_horror_saws_shards(reading: str, fame: int) -> None:
    g = duo(dawn_of_technology=True, horror_saws_shards=reading)
    g.turn()
    g.learn("ann", "T46")
    g.reach("ann", shards=4)
    s = finish(g, ann={"contraption_shards": 3, "level3": (("T46", True, 0),)})
    assert endgame(s, "ann")["level3_tricks"] == fame


@pytest.mark.parametrize(("counts", "fame"), [(False, 0), (True, 7)])
def test_option_markers_on_performance_cards_count(counts: bool, fame: int) -> None:
    g = duo(markers_on_performance_cards_count=counts)
    g.turn()
    g.learn("ann", "T34")
    s = finish(g, ann={"specialists": ("assistant",), "level3": (("T34", False, 0, 1),)})
    assert endgame(s, "ann")["level3_tricks"] == fame


@pytest.mark.parametrize(("counts", "fame"), [(False, 3), (True, 6)])
def test_option_protege_counts_as_specialist(counts: bool, fame: int) -> None:
    s = finish(
        duo(dark_alley=False, academy=True, protege_counts_as_specialist=counts),
        ann={"specialists": ("manager",), "protege": True},
    )
    assert endgame(s, "ann")["specialists"] == fame


# -- the winner -------------------------------------------------------------------------------
def test_the_player_with_the_most_fame_wins() -> None:
    g = duo()
    g.turn()
    g.reach("ben", fame=30)
    s = finish(g)
    assert (s.winner, s.tie_break) == ("ben", None)


def test_for_a_tie_the_player_ahead_in_initiative_order_wins() -> None:
    g = TrickerionGame(["ann", "ben", "cleo"], names={"ann": "Ann", "ben": "Bo", "cleo": "Cy"})
    g.to_turn(7, ["cleo", "ben", "ann"])
    g.reach("ann", fame=40)
    g.reach("ben", fame=50)
    g.reach("cleo", fame=50)
    s = finish(g)
    assert (s.winner, s.winners) == ("cleo", ["cleo"])
    # 50 Fame in play + 1 Shard + floor(12 or 14 Coins / 3) = 4 -> 55 each (research §6 E9 shape)
    assert (
        s.tie_break
        == "Bo and Cy tied on 55 Fame; Cy is ahead in initiative order (position 1 vs 2)"
    )
    assert [p.player_id for p in s.players] == ["cleo", "ben", "ann"]


def test_tie_break_uses_the_track_as_it_stood_in_the_final_turn_not_recomputed() -> None:
    g = duo()
    g.to_turn(7, ["ann", "ben"])
    g.initiative(["ben", "ann"], reason="a card moved Ben")
    g.reach("ben", fame=5)
    assert finish(g).winner == "ben"
