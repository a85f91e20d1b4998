"""Fame, Coins and Shards during play: one test per row of trickerion-scoring.md 'During the game'
and its two sentences, plus the set-up and the in-play REC options (docs/rules/trickerion.md).

Values are hand-computed. Set-up (research §2): 5 Fame, 1 Shard, Coins 10/12/14/16 by position.
"""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from domain.fold import evolve
from domain.ledger import Resource
from domain.standings_shapes import Provisional
from domain.trickerion.state import PlayerBook
from tests.domain.trickerion.builders import TrickerionGame


def held(g: TrickerionGame, pid: str) -> tuple[int, int, int]:
    """(Fame, Coins, Shards) of a player from the ruleset's books."""
    b = g.state().rules.books[pid]
    return b.fame, b.coins, b.shards


def category(g: TrickerionGame, pid: str, key: str) -> int:
    """Fame in one breakdown category of the standings."""
    line = next(p for p in g.standings().players if p.player_id == pid)
    return line.categories.get(key, 0)


def provisional(g: TrickerionGame, pid: str) -> Provisional:
    """`pid`'s provisional part of the standings (what the end of the game would add now);
    the test fails when there is none."""
    line = next(p for p in g.standings().players if p.player_id == pid)
    assert line.provisional is not None
    return line.provisional


def game(**options: object) -> TrickerionGame:
    g = TrickerionGame(["ann", "ben", "cleo"], **options)
    g.turn()
    return g


def test_setup_gives_5_fame_1_shard_and_coins_by_initiative_position() -> None:
    g = game()
    assert [held(g, p) for p in ("ann", "ben", "cleo")] == [(5, 10, 1), (5, 12, 1), (5, 14, 1)]
    assert category(g, "ann", "start") == 5


def test_setup_with_magician_powers_gives_3_shards() -> None:
    assert held(game(magician_powers=True), "ann") == (5, 10, 3)


def test_advertise_pays_coins_equal_to_initiative_position_and_gains_2_fame() -> None:
    g = game()
    g.advertise("cleo", coins=3)
    assert held(g, "cleo") == (7, 11, 1)
    assert category(g, "cleo", "advertise") == 2


def test_advertise_once_per_turn_so_again_in_the_next_turn() -> None:
    g = game()
    g.advertise("ann", coins=1)
    g.turn(["ben", "ann", "cleo"])
    g.advertise("ann", coins=2)
    assert held(g, "ann") == (9, 7, 1)


def test_advertise_cost_follows_an_initiative_change_within_the_turn() -> None:
    g = game()
    g.initiative(["cleo", "ann", "ben"])
    g.advertise("cleo", coins=1)
    assert held(g, "cleo") == (7, 13, 1)


def test_trick_yield_the_owner_receives_the_printed_yield() -> None:
    g = game()
    g.learn("ann", "T16")  # Window to the Otherworld 3/2/0
    g.yield_("ann", "T16", "P03")
    assert held(g, "ann") == (8, 12, 1)
    assert category(g, "ann", "trick_yield") == 3


def test_trick_yield_paid_per_marker_on_the_card() -> None:
    g = game()
    g.learn("ann", "T04")  # Card Manipulation 1/1/1
    g.yield_("ann", "T04", "P03")
    g.yield_("ann", "T04", "P03")
    assert held(g, "ann") == (7, 12, 3)


def test_trick_owner_and_performer_can_be_different_players() -> None:
    g = game()
    g.learn("ann", "T16")
    g.yield_("ann", "T16", "P03")
    g.perform("ben", "P03", links=1)  # P03 bonus 1/0/0
    assert held(g, "ann") == (8, 12, 1)
    assert held(g, "ben") == (7, 12, 1)


@pytest.mark.parametrize(
    ("trick_id", "reward", "expected"),
    [("T01", "fame", (6, 10, 1)), ("T05", "coins", (5, 12, 1)), ("T09", "fame", (8, 10, 1))],
    ids=["level1_fame", "level2_coins", "level3_fame"],
)
def test_create_a_link_gains_1_2_3_fame_or_coins_for_a_level_1_2_3_trick(
    trick_id: str, reward: str, expected: tuple[int, int, int]
) -> None:
    g = game()
    g.learn("ann", trick_id)
    g.learn("ben", "T13")
    g.link("ann", trick_id, other="ben", reward=reward)
    assert held(g, "ann") == expected
    assert held(g, "ben") == (5, 12, 1)


def test_create_a_link_two_links_from_one_placement_pay_twice() -> None:
    g = game()
    g.learn("ann", "T05")
    g.learn("ben", "T13")
    g.link("ann", "T05", other="ben")
    g.link("ann", "T05", other="ben")
    assert category(g, "ann", "link") == 4


def test_shard_link_pays_1_shard_to_each_connected_trick_owner() -> None:
    g = game()
    g.learn("ann", "T01")
    g.learn("ben", "T13")
    g.link("ann", "T01", other="ben", shard=True)
    assert held(g, "ann") == (6, 10, 2)
    assert held(g, "ben") == (5, 12, 2)


@pytest.mark.parametrize(("reading", "shards"), [("once_per_owner", 2), ("per_marker", 3)])
def test_option_shard_link_same_owner(reading: str, shards: int) -> None:
    g = game(shard_link_same_owner=reading)
    g.learn("ann", "T01")
    g.learn("ann", "T13")
    g.link("ann", "T01", other="ann", shard=True)
    assert held(g, "ann") == (6, 10, shards)


def test_perform_a_linked_card_gains_1_fame_per_link() -> None:
    g = game()
    g.perform("ben", "P13", links=3)  # Grand Magorian, 4 Links, bonus 2/0/0
    assert category(g, "ben", "performance_links") == 3
    assert held(g, "ben") == (10, 12, 1)


@pytest.mark.parametrize(
    ("card", "expected"),
    [("P01", (5, 12, 2)), ("P15", (5, 15, 1)), ("P26", (7, 12, 2)), ("P08", (6, 13, 1))],
)
def test_performance_card_bonus_printed_on_the_card(
    card: str, expected: tuple[int, int, int]
) -> None:
    g = game()
    g.perform("ben", card)
    assert held(g, "ben") == expected


def test_theater_specialists_assistant_2_fame_manager_3_coins_engineer_1_shard() -> None:
    g = game()
    for specialist in ("assistant", "manager", "engineer"):
        g.hire("ben", specialist)
    g.perform("ben", "P06", specialists=("assistant", "manager", "engineer"))  # bonus 0/1/0
    assert held(g, "ben") == (7, 16, 2)
    assert category(g, "ben", "theater_specialists") == 2


def test_only_the_specialists_named_behind_the_performer_pay() -> None:
    g = game()
    g.hire("ben", "assistant")
    g.hire("ben", "manager")
    g.perform("ben", "P06", specialists=("manager",))
    assert held(g, "ben") == (5, 16, 1)


def test_resolve_each_trick_yield_first_then_the_performers_bonuses() -> None:
    g = game()
    g.learn("ann", "T16")
    g.hire("ben", "assistant")
    g.yield_("ann", "T16", "P13")
    g.perform("ben", "P13", links=2, specialists=("assistant",))
    perf_seq = g.events[-1].seq
    order = [(e.seq, e.category) for e in g.state().ledger if e.seq >= perf_seq - 1]
    assert [c for _, c in order] == [
        "trick_yield",
        "trick_yield",
        "performance_links",
        "performance_bonus",
        "theater_specialists",
    ]
    late = g.yield_("ann", "T16", "P13")
    g.events.pop()  # evolve it by hand: the fold must refuse it
    with pytest.raises(RuleViolation) as caught:
        evolve(g.state(), late)
    assert (caught.value.rule, caught.value.field) == (
        "trickerion.yield.after_performer_bonuses",
        "payload.performance_card_id",
    )


@pytest.mark.parametrize(
    ("modifiers", "weekday", "trick_id", "expected"),
    [
        (False, "sunday", "T16", (8, 12, 1)),  # Q2: the seed pays the printed 3/2/0
        (True, "sunday", "T16", (9, 13, 1)),  # Q2: official +1 F +1 C -> 4/3/0
        (True, "thursday", "T37", (5, 11, 1)),  # 0/2/0 -> 0/1/0, Fame floored at 0
        (True, "friday", "T16", (8, 12, 1)),
    ],
)
def test_option_weekday_yield_modifiers(
    modifiers: bool, weekday: str, trick_id: str, expected: tuple
) -> None:
    g = game(weekday_yield_modifiers=modifiers)
    g.learn("ann", trick_id)
    g.yield_("ann", trick_id, "P03", weekday=weekday)
    assert held(g, "ann") == expected


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({}, (0, 0, 1)),  # Q1: 1 Coin, owes 4 -> pays 1, 3 unpaid x 2 = -6 Fame (5 -> clamped 0)
        ({"unpaid_coin_fame_penalty": 1}, (2, 0, 1)),
        ({"negative_coins": "allow"}, (5, -3, 1)),
    ],
    ids=["never_negative_rec", "penalty_1", "allow_negative_bga"],
)
def test_option_negative_coins_and_unpaid_wage_penalty(options: dict, expected: tuple) -> None:
    g = game(**options)
    g.change("ann", "bank", coins=-9)
    g.change("ann", "wages", coins=-4)
    assert held(g, "ann") == expected


def test_unpaid_wages_q1_costs_6_fame_with_enough_fame() -> None:
    g = game()
    g.reach("ann", fame=20, coins=1)
    g.change("ann", "wages", coins=-4)
    assert held(g, "ann") == (14, 0, 1)
    assert category(g, "ann", "unpaid_wages") == -6


@pytest.mark.parametrize(("reading", "fame"), [("clamp_zero", 0), ("allow_negative", -3)])
def test_option_fame_floor(reading: str, fame: int) -> None:
    g = game(fame_floor=reading)
    g.change("ann", "assignment", fame=-8, note="Arranged Fiasco")
    assert held(g, "ann")[0] == fame
    entry = g.state().ledger[-1]
    assert (entry.resource, entry.amount) == (Resource.FAME, fame - 5)
    assert ("not taken" in entry.note) is (reading == "clamp_zero")


def test_a_voided_advertise_is_refolded_away() -> None:
    g = game()
    ad = g.advertise("ann", coins=1)
    g.void(ad)
    assert held(g, "ann") == (5, 10, 1)
    g.advertise("ann", coins=1)
    assert held(g, "ann") == (7, 9, 1)


def test_provisional_shows_end_game_fame_if_the_game_ended_now() -> None:
    g = game()
    g.reach("ann", coins=14, shards=3)
    g.hire("ann", "apprentice")
    ended_now = provisional(g, "ann")
    assert ended_now.categories == {
        "endgame_shards": 3,
        "endgame_coins": 4,
        "special_assignments": 0,
    }
    assert ended_now.total == 5 + 7


def test_provisional_in_the_base_game_counts_hired_apprentices_and_specialists() -> None:
    g = game(dark_alley=False)
    g.hire("ann", "apprentice")
    g.hire("ann", "apprentice")
    g.hire("ann", "manager")
    ended_now = provisional(g, "ann")
    assert ended_now.categories == {
        "endgame_shards": 1,
        "endgame_coins": 3,
        "apprentices": 4,
        "specialists": 3,
    }


def test_a_books_first_three_fields_are_fame_coins_and_shards() -> None:
    # `settle` reads a book's running totals as `book[:3]`: reordering the fields must fail here
    book = PlayerBook(fame=7, coins=3, shards=1)
    assert PlayerBook._fields[:3] == ("fame", "coins", "shards")
    assert book[:3] == (7, 3, 1)
