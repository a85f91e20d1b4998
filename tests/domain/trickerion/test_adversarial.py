"""Adversarial Given-events / Then-standings cases for Trickerion, answers computed by hand first.

Each comment shows the arithmetic against docs/rules/trickerion.md (cited as
"rules L<n>"). Set-up: Ann starts at initiative 1 (10 Coins), Ben at 2 (12 Coins); both 5 Fame,
1 Shard (docs/rules/trickerion.md#during-play). `reach` sets in-play holdings with one `other` change.
"""

from __future__ import annotations

import pytest

from tests.domain.refusal import violation
from tests.domain.trickerion.builders import TrickerionGame, categories_of, finish, total_of

line = categories_of
total = total_of


def rule_of(g: TrickerionGame) -> str:
    refused = violation(g)
    return refused.rule


# -- caps: after the DoT conversion, per Level 3 trick, not the sum, not in play, not Academy -----
@pytest.mark.parametrize(
    ("loose", "contraption", "fame"),
    [(28, 0, 19), (29, 0, 20), (26, 5, 20), (40, 0, 20)],
    ids=["28_is_19_under_the_cap", "29_is_20", "31_with_contraptions_capped", "40_capped"],
)
def test_dot_cap_applies_after_the_conversion(loose: int, contraption: int, fame: int) -> None:
    # rules L21 cap + L24 DoT: ceil(2*28/3) = ceil(18.67) = 19; ceil(58/3) = 20;
    # 26 + 5 = 31 -> ceil(62/3) = 21 -> 20; 40 -> 27 -> 20. (1:1 would give 20 for all four.)
    g = TrickerionGame(["ann", "ben"], dawn_of_technology=True)
    g.turn()
    g.reach("ann", shards=loose)
    s = finish(g, ann={"contraption_shards": contraption})
    assert line(s, "ann")["endgame_shards"] == fame


def test_three_level3_tricks_each_capped_their_sum_is_not() -> None:
    # rules L21: T46 23 Shards -> 20; T24 64 Coins // 3 = 21 -> 20; T36 3 Level 3 owned x 4 = 12.
    # Sum 52 (> 20). Shards category 23 -> 20, Coins 21 -> 20. In play 5 Fame.
    g = TrickerionGame(["ann", "ben"])
    g.turn()
    for t in ("T46", "T24", "T36"):
        g.learn("ann", t)
    g.reach("ann", coins=64, shards=23)
    s = finish(g, ann={"level3": (("T46", True, 0), ("T24", False, 1), ("T36", False, 2))})
    assert line(s, "ann")["level3_tricks"] == 52
    assert total(s, "ann") == 5 + 20 + 20 + 0 + 52


def test_the_cap_never_touches_academy_points() -> None:
    # rules L21 caps "the listed categories"; Academy (L23) is a module step after them.
    # With a cap of 10 the 4-player leader still scores 15, the second 10, the third 5.
    ids = ["p1", "p2", "p3", "p4"]
    g = TrickerionGame(ids, academy=True, category_cap=10)
    banners = {"p1": 6, "p2": 4, "p3": 2, "p4": 1}
    s = finish(g, **{p: {"academy_banners": b} for p, b in banners.items()})
    assert [line(s, p)["academy"] for p in ids] == [15, 10, 5, 0]


def test_base_game_specialists_cap_and_apprentices_cap_are_separate() -> None:
    # rules L21: base game 2 per Apprentice, 3 per Specialist, each category capped at 20.
    # 9 Apprentices = 18 (uncapped); 3 Specialists + Shapeshifter as engineer = 4 x 3 = 12;
    # arcane golem as an Apprentice: 10 x 2 = 20.
    g = TrickerionGame(["ann", "ben"], dark_alley=False, arcane_arts=True)
    inv = {
        "apprentices": 9,
        "specialists": ("assistant", "manager", "engineer"),
        "arcane_workers": ("golem", "shapeshifter"),
        "shapeshifter_as": "engineer",
    }
    s = finish(g, ann=inv)
    assert (line(s, "ann")["apprentices"], line(s, "ann")["specialists"]) == (20, 12)


# -- Academy ties for 2, 3 and 4 players (rules L23: ties receive the lower tier) -------------
@pytest.mark.parametrize(
    ("banners", "fame"),
    [
        ([3, 3], [0, 0]),  # 2p tie for the lead: tier 2 does not exist
        ([0, 0], [0, 0]),  # no Banners, no Fame
        ([5, 5, 5], [0, 0, 0]),  # 3p three-way: ranks 1-3, tier 3 does not exist
        ([5, 2, 2], [12, 0, 0]),  # 3p: tie over ranks 2-3 takes tier 3: none
        ([5, 5, 2], [6, 6, 0]),  # 3p: tie over 1-2 takes 6; the next is rank 3: none
        ([4, 4, 4, 4], [0, 0, 0, 0]),  # 4p four-way: tier 4 does not exist
        ([5, 3, 3, 1], [15, 5, 5, 0]),  # 4p: tie over 2-3 takes 5; the last is rank 4
        ([5, 5, 3, 3], [10, 10, 0, 0]),  # 4p: two pairs: 1-2 -> 10, 3-4 -> none
        ([5, 4, 4, 4], [15, 0, 0, 0]),  # 4p: tie over 2-4 -> none
        ([2, 0, 1, 0], [15, 0, 10, 0]),  # 0-Banner players take no rank
    ],
)
def test_academy_ties(banners: list[int], fame: list[int]) -> None:
    ids = [f"p{n}" for n in range(1, len(banners) + 1)]
    g = TrickerionGame(ids, academy=True)
    s = finish(g, **{p: {"academy_banners": b} for p, b in zip(ids, banners, strict=True)})
    assert [line(s, p)["academy"] for p in ids] == fame


# -- base game vs Dark Alley ------------------------------------------------------------------
def test_base_game_has_no_turn_six() -> None:
    g = TrickerionGame(["ann", "ben"], dark_alley=False)
    g.to_turn(5)
    g.turn()
    assert rule_of(g) == "trickerion.turn.after_final_turn"  # rules L21: ends after turn five


def test_dark_alley_game_cannot_end_after_turn_five() -> None:
    g = TrickerionGame(["ann", "ben"])
    g.to_turn(5)
    g.end()
    assert rule_of(g) == "trickerion.end.before_final_turn"  # rules L14: after turn seven


def test_dark_alley_game_scores_no_apprentices_or_specialists_category() -> None:
    # rules L17-20 (Dark Alley): Shards, Coins, Special Assignments, Level 3; no 2/3 per character.
    g = TrickerionGame(["ann", "ben"])
    s = finish(g, ann={"apprentices": 3, "specialists": ("assistant", "manager")})
    assert line(s, "ann") == {"start": 5, "endgame_shards": 1, "endgame_coins": 3,
                              "special_assignments": 0}  # fmt: skip


def test_base_game_scores_characters_and_no_level3() -> None:
    # rules L21: 3 Apprentices -> 6, 2 Specialists -> 6; 1 Shard -> 1; 10 Coins -> 3. 5 + 16 = 21.
    g = TrickerionGame(["ann", "ben"], dark_alley=False)
    s = finish(g, ann={"apprentices": 3, "specialists": ("assistant", "manager")})
    assert total(s, "ann") == 21
    g2 = TrickerionGame(["ann", "ben"], dark_alley=False)
    g2.turn()
    g2.learn("ann", "T46")
    assert rule_of(g2) == "trickerion.trick.level3_needs_dark_alley"


# -- Magician Powers + Dawn of Technology + Arcane Arts ----------------------------------------
def test_arcane_and_contraption_shards_add_before_the_dot_conversion() -> None:
    # rules L24, L26: 1 loose + 2 Arcane + 3 on Contraptions = 6 Shards -> ceil(12/3) = 4.
    g = TrickerionGame(["ann", "ben"], dawn_of_technology=True, arcane_arts=True)
    s = finish(g, ann={"arcane_shards": 2, "contraption_shards": 3})
    assert line(s, "ann")["endgame_shards"] == 4


def test_magician_powers_zeroes_arcane_shards_but_horror_saws_counts_them() -> None:
    # rules L25: no Shard Fame. T46 is a trick condition: 3 start + 2 Arcane = 5 -> 5.
    g = TrickerionGame(["ann", "ben"], magician_powers=True, arcane_arts=True)
    g.turn()
    g.learn("ann", "T46")
    s = finish(g, ann={"arcane_shards": 2, "level3": (("T46", True, 0),)})
    assert (line(s, "ann")["endgame_shards"], line(s, "ann")["level3_tricks"]) == (0, 5)


@pytest.mark.parametrize(
    ("as_type", "fame"), [("manager", 7 + 0), ("apprentice", 0 + 3), ("engineer", 0 + 0)]
)
def test_shapeshifter_declared_type_applies_to_every_condition(as_type: str, fame: int) -> None:
    # rules L26: T12 "7 if you have a Manager", T22 "3 per Apprentice"; golem is an Apprentice
    # too, so T22 scores 3 x (1 + [apprentice]); as manager: 7 + 3, as apprentice 0 + 6.
    g = TrickerionGame(["ann", "ben"], arcane_arts=True)
    g.turn()
    g.learn("ann", "T12")
    g.learn("ann", "T22")
    inv = {
        "arcane_workers": ("golem", "shapeshifter"),
        "shapeshifter_as": as_type,
        "level3": (("T12", True, 0), ("T22", True, 0)),
    }
    s = finish(g, ann=inv)
    assert line(s, "ann")["level3_tricks"] == fame + 3


# -- Links and performances -------------------------------------------------------------------
def test_shard_link_to_your_own_marker_pays_one_shard_and_the_level_in_coins() -> None:
    # rules L8: Level 2 trick -> 2 Coins; Shard Link: 1 Shard to each connected owner; Ann owns
    # both markers -> one owner -> 1 Shard (REC once_per_owner). Ann: 10 + 2 Coins, 1 + 1 Shard.
    g = TrickerionGame(["ann", "ben"])
    g.turn()
    g.learn("ann", "T05")
    g.learn("ann", "T13")
    g.link("ann", "T05", other="ann", reward="coins", shard=True)
    book = g.state().rules.books["ann"]
    assert (book.fame, book.coins, book.shards) == (5, 12, 2)
    assert g.state().rules.books["ben"].shards == 1


def test_owner_and_performer_differ_every_row_of_a_performance() -> None:
    # rules L7-L12. Ann owns T16 (yield 3/2/0) with 2 markers on P17 (bonus 2/1/0, 3 Links);
    # Ben performs with 2 Links and Assistant, Manager, Engineer behind him.
    # Ann: +2 x (3 F, 2 C) -> 11 F, 14 C. Ben: 2 Links + 2 bonus + 2 Assistant = +6 F -> 11;
    # 1 bonus + 3 Manager = +4 C -> 16; +1 Engineer Shard -> 2.
    g = TrickerionGame(["ann", "ben"])
    g.turn()
    g.learn("ann", "T16")
    for s in ("assistant", "manager", "engineer"):
        g.hire("ben", s)
    g.yield_("ann", "T16", "P17")
    g.yield_("ann", "T16", "P17")
    g.perform("ben", "P17", links=2, specialists=("assistant", "manager", "engineer"))
    books = g.state().rules.books
    assert (books["ann"].fame, books["ann"].coins, books["ann"].shards) == (11, 14, 1)
    assert (books["ben"].fame, books["ben"].coins, books["ben"].shards) == (11, 16, 2)
    cats = line(g.standings(), "ben")
    assert (cats["performance_links"], cats["performance_bonus"], cats["theater_specialists"]) == (
        2,
        2,
        2,
    )


def test_a_yield_after_the_performers_bonuses_is_refused() -> None:
    g = TrickerionGame(["ann", "ben"])
    g.turn()
    g.learn("ann", "T16")
    g.perform("ben", "P17", links=0)
    g.yield_("ann", "T16", "P17")
    assert rule_of(g) == "trickerion.yield.after_performer_bonuses"  # rules L12


# -- tie-break --------------------------------------------------------------------------------
def test_tie_for_first_among_positions_two_and_three_goes_to_position_two() -> None:
    # Last line: Cy (position 1) has fewer Fame; Ann (2) and Ben (3) tie -> Ann wins.
    g = TrickerionGame(["cy", "ann", "ben"])
    g.to_turn(7)
    g.reach("ann", fame=40, coins=0, shards=0)
    g.reach("ben", fame=40, coins=0, shards=0)
    s = finish(g)
    assert (total(s, "ann"), total(s, "ben")) == (40, 40)
    assert s.winner == "ann"


def test_a_correction_after_the_end_can_create_a_tie_that_initiative_breaks() -> None:
    # Ann 5 + 1 + 3 (10 C) = 9; Ben 5 + 1 + 4 (12 C) = 10: Ben wins. A +1 correction to Ann
    # after the end ties them on 10; Ann is at position 1 and wins.
    g = TrickerionGame(["ann", "ben"])
    s = finish(g)
    assert (total(s, "ann"), total(s, "ben"), s.winner) == (9, 10, "ben")
    g.correct("ann", 1)
    s = g.standings()
    assert (s.status, total(s, "ann"), s.winner) == ("final", 10, "ann")


# -- events after the end, voids and corrections ----------------------------------------------
def test_in_play_event_after_the_end_is_refused() -> None:
    g = TrickerionGame(["ann", "ben"])
    finish(g)
    g.change("ann", fame=3)
    assert rule_of(g) == "log.after_game_ended"


def test_void_of_an_inventory_after_the_end_is_refused() -> None:
    # Without Ann's inventory game.ended breaks trickerion.end.inventory_missing.
    g = TrickerionGame(["ann", "ben"])
    finish(g)
    inventory = next(e for e in g.events if e.type == "trickerion.endgame_inventory_declared")
    g.void(inventory)
    assert rule_of(g) == "void.breaks_later_event"


def test_void_of_the_end_reopens_the_game_and_a_new_inventory_is_refused_as_a_second() -> None:
    g = TrickerionGame(["ann", "ben"])
    finish(g)
    g.void(g.events[-1], reopens_game=True)
    assert g.standings().status == "in_progress"
    g.inventory("ann")
    assert rule_of(g) == "trickerion.inventory.twice"


def test_void_in_the_middle_refolds_the_end_game_coins() -> None:
    # Ann reaches 12 Coins, Advertises (-1 C, +2 F). End: 7 F + 1 Shard + 11 // 3 = 3 -> 11.
    # Void the Advertise: 5 F + 1 + 12 // 3 = 4 -> 10.
    g = TrickerionGame(["ann", "ben"])
    g.turn()
    g.reach("ann", coins=12)
    ad = g.advertise("ann", 1)
    assert total(finish(g), "ann") == 11
    g.void(ad)
    assert total(g.standings(), "ann") == 10


def test_void_that_breaks_a_later_link_is_refused() -> None:
    g = TrickerionGame(["ann", "ben"])
    g.turn()
    learned = g.learn("ann", "T05")
    g.learn("ben", "T13")
    g.link("ann", "T05", other="ben")
    g.void(learned)
    assert rule_of(g) == "void.breaks_later_event"


def test_correction_in_the_middle_moves_the_total_not_the_books() -> None:
    # A -3 correction lands in the ledger (8 -> total), not in the Fame the rules see (5).
    g = TrickerionGame(["ann", "ben"])
    g.turn()
    g.correct("ann", -3)
    assert g.state().rules.books["ann"].fame == 5
    assert line(g.standings(), "ann")["correction"] == -3


# -- amounts contradicting the catalog, unknown cards and players ------------------------------
@pytest.mark.parametrize(
    ("amounts", "field"),
    [
        ({"fame": 4}, "payload.fame"),
        ({"coins": 1}, "payload.coins"),
        ({"shards": 1}, "payload.shards"),
    ],
)
def test_yield_amounts_must_equal_the_catalog(amounts: dict[str, int], field: str) -> None:
    g = TrickerionGame(["ann", "ben"])
    g.turn()
    g.learn("ann", "T16")  # 3/2/0
    g.yield_("ann", "T16", "P01", **amounts)
    refused = violation(g)
    assert (refused.rule, refused.field) == ("trickerion.yield.amount_mismatch", field)


def test_more_links_than_printed_on_the_card_are_refused() -> None:
    g = TrickerionGame(["ann", "ben"])
    g.turn()
    g.perform("ann", "P01", links=3)  # P01 has 2 Links
    assert rule_of(g) == "trickerion.performance.links_exceeded"


def test_negative_total_when_fame_may_go_below_zero() -> None:
    # allow_negative: Ann 5 F, 10 C; wages of 14 -> pays 10, 4 unpaid x 2 = -8 F -> -3.
    # End: 1 Shard + 0 Coins -> -2.
    g = TrickerionGame(["ann", "ben"], fame_floor="allow_negative")
    g.turn()
    g.change("ann", "wages", coins=-14)
    assert total(finish(g), "ann") == -2


def test_level3_trick_learned_after_the_inventory_is_not_silently_dropped() -> None:
    # rules L20: each eligible Level 3 trick scores. Ann declares (no Level 3 trick), then learns
    # T46 in the final turn: either the game may not end on the stale inventory, or T46 scores.
    g = TrickerionGame(["ann", "ben"])
    g.to_final_turn()
    g.inventory("ann")
    g.inventory("ben")
    g.learn("ann", "T46")
    g.end()
    assert rule_of(g) == "trickerion.end.level3_undeclared"
