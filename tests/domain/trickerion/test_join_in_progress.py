"""Scoring a Trickerion game joined in progress: the start event's `joined_in_progress`
declares the turn now being played, the initiative order and each player's Fame, Coins,
Shards, tricks and hires; each is a ledger entry citing
`docs/rules/trickerion.md#joined-in-progress` and everything after scores as usual (issue: "a table that connects in turn 3").
"""

from __future__ import annotations

from typing import Any

import pytest

from contracts.common import TurnStarted
from contracts.envelope import Envelope
from contracts.trickerion import TrickerionGameStarted
from domain.fold import fold
from domain.ledger import Resource
from domain.standings import standings
from services.simulator.joining import joined_at
from services.simulator.tables import simulate_game
from tests.domain.refusal import violation
from tests.domain.trickerion.builders import TrickerionGame, categories_of, total_of

ALMA = {"player_id": "alma", "fame": 14, "coins": 9, "shards": 2, "tricks": ["T01"]}
BEN = {"player_id": "ben", "fame": 11, "coins": 4, "shards": 0, "hires": ["apprentice"]}


def joined(turn: int = 3, players: list[dict[str, Any]] | None = None) -> TrickerionGame:
    """Alma and Ben (starting positions 1, 2) joined in turn `turn`, Ben now first on the track."""
    g = TrickerionGame(["alma", "ben"])
    start = g.events[0].payload
    assert isinstance(start, TrickerionGameStarted)
    payload = TrickerionGameStarted.model_validate(
        {
            **start.model_dump(),
            "joined_in_progress": {
                "turn": turn,
                "initiative_order": ["ben", "alma"],
                "players": players if players is not None else [ALMA, BEN],
            },
        }
    )
    g.events[0] = g.envelope(payload, seq=1)
    g.turn_no = turn
    return g


def test_the_declared_fame_coins_and_shards_are_ledger_entries_of_their_own_rule() -> None:
    g = joined()
    state = g.state()
    entries = [(e.player_id, e.resource, e.amount) for e in state.ledger]
    assert entries == [
        ("alma", Resource.FAME, 14),
        ("alma", Resource.COINS, 9),
        ("alma", Resource.SHARDS, 2),
        ("ben", Resource.FAME, 11),
        ("ben", Resource.COINS, 4),
    ]
    assert {e.rule for e in state.ledger} == {"docs/rules/trickerion.md#joined-in-progress"}
    assert (total_of(g.standings(), "alma"), total_of(g.standings(), "ben")) == (14, 11)


def test_everything_after_scores_as_usual() -> None:
    # Turn 3 is in progress, Ben is position 1, Alma 2: Alma Advertises for 2 Coins, +2 Fame
    # (rules L6) -> 16 Fame, 7 Coins. Turn 4 is next; at the end Alma's 7 Coins score 2
    # (L18), her 2 Shards 2 (L17); T01 and Ben's Apprentice are hers and his to declare.
    g = joined()
    g.advertise("alma", 2)
    g.to_final_turn()
    g.declare("alma")
    g.declare("ben", apprentices=1)
    g.end()
    s = g.standings()
    alma = categories_of(s, "alma")
    assert (alma["joined"], alma["advertise"], alma["endgame_coins"], alma["endgame_shards"]) == (
        14,
        2,
        2,
        2,
    )
    assert total_of(s, "alma") == 20


def test_the_next_turn_follows_the_declared_one() -> None:
    g = joined()
    g.turn_no = 2  # a turn 3 again
    g.turn()
    refused = violation(g)
    assert (refused.rule, refused.field) == ("trickerion.turn.order", "payload.turn")


@pytest.mark.parametrize(
    ("players", "rule", "field"),
    [
        ([ALMA], "trickerion.join.players", "payload.joined_in_progress.players"),
        (
            [ALMA, {**BEN, "tricks": ["T01"]}],
            "trickerion.join.trick_owned_twice",
            "payload.joined_in_progress.players",
        ),
        (
            [{**ALMA, "tricks": ["T99"]}, BEN],
            "trickerion.card.unknown_trick",
            "payload.joined_in_progress.players",
        ),
    ],
    ids=["a_player_missing", "a_trick_owned_twice", "an_unknown_trick"],
)
def test_a_declaration_that_cannot_be_is_refused(
    players: list[dict[str, Any]], rule: str, field: str
) -> None:
    refused = violation(joined(players=players))
    assert (refused.rule, refused.field) == (rule, field)


def test_a_turn_after_the_final_one_is_refused() -> None:
    g = TrickerionGame(["alma", "ben"], dark_alley=False)  # the base game has 5 turns (L21)
    start = g.events[0].payload.model_dump()
    start["joined_in_progress"] = {"turn": 6, "players": [ALMA, BEN]}
    g.events[0] = g.envelope(TrickerionGameStarted.model_validate(start), seq=1)
    refused = violation(g)
    assert (refused.rule, refused.field) == (
        "trickerion.join.turn",
        "payload.joined_in_progress.turn",
    )


@pytest.mark.parametrize("seed", range(12))
def test_joining_at_a_turn_boundary_scores_as_the_whole_game(seed: int) -> None:
    # Given a simulated game cut before turn k, whose first part is declared as a join (the
    # folded Fame, Coins, Shards, tricks, hires and track), Then every player's final score
    # outside referee corrections (which the join does not carry) equals the whole game's.
    log = list(simulate_game("trickerion", seed))
    starts = [i for i, e in enumerate(log) if isinstance(e.payload, TurnStarted)]
    cut = starts[1 + seed % (len(starts) - 1)]
    joined_log = joined_at(log, cut)

    def scores(events: list[Envelope]) -> dict[str, int]:
        s = standings(fold(events))
        return {p.player_id: p.total - p.categories.get("correction", 0) for p in s.players}

    assert scores(joined_log) == scores(log)


def joined_with(players: list[dict[str, Any]], **options: Any) -> TrickerionGame:
    g = TrickerionGame(["alma", "ben"], **options)
    start = g.events[0].payload.model_dump()
    start["joined_in_progress"] = {"turn": 3, "players": players}
    g.events[0] = g.envelope(TrickerionGameStarted.model_validate(start), seq=1)
    g.turn_no = 3
    return g


def test_negative_fame_and_coins_join_where_the_options_allow_them() -> None:
    # Given fame_floor "allow_negative" and negative_coins "allow" (research §5.3, §5.4), a table
    # whose Alma stands at -3 Fame and -2 Coins can join, Then those are her amounts.
    g = joined_with(
        [{**ALMA, "fame": -3, "coins": -2}, BEN],
        fame_floor="allow_negative",
        negative_coins="allow",
    )
    book = g.state().rules.books["alma"]
    assert (book.fame, book.coins, total_of(g.standings(), "alma")) == (-3, -2, -3)


@pytest.mark.parametrize(
    ("seat", "rule", "field"),
    [
        ({"fame": -3}, "trickerion.join.negative_fame", "payload.joined_in_progress.players"),
        ({"coins": -2}, "trickerion.join.negative_coins", "payload.joined_in_progress.players"),
    ],
    ids=["fame", "coins"],
)
def test_negative_amounts_are_refused_under_the_default_floors(
    seat: dict[str, int], rule: str, field: str
) -> None:
    # Given the REC floors (Fame clamped at 0, Coins never below 0), Then a negative declared
    # amount is refused naming the rule, not as a malformed event.
    refused = violation(joined_with([{**ALMA, **seat}, BEN]))
    assert (refused.rule, refused.field) == (rule, field)


def test_an_advertise_declared_at_join_is_the_one_of_this_turn() -> None:
    # Given Alma Advertised in turn 3 before the table joined (declared), When she Advertises
    # again in turn 3, Then refused (once per turn, rules L6); in turn 4 she may (+2 Fame).
    g = joined(players=[{**ALMA, "advertised_this_turn": True}, BEN])
    g.advertise("alma", 2)
    refused = violation(g)
    assert (refused.rule, refused.field) == (
        "trickerion.advertise.once_per_turn",
        "payload.player_id",
    )
    g.events.pop()
    g.turn()
    g.advertise("alma", 2)
    assert total_of(g.standings(), "alma") == 16
