"""Repeat meetings, worst player's repeats, seat spread and the repeat lower bound, by hand."""

from __future__ import annotations

from domain.tournament.history import History
from domain.tournament.measures import (
    repeat_lower_bound,
    repeats,
    seat_spread,
    sum_of_squares,
    worst_repeats,
)

ROUNDS = [
    (("a", "b", "c", "d"), ("e", "f", "g")),
    (("a", "b", "e", "f"), ("c", "d", "g")),
    (("a", "b", "c", "g"), ("d", "e", "f")),
]


def test_repeats_count_extra_meetings_of_a_pair() -> None:
    history = History.of((r, ()) for r in ROUNDS)
    # a-b and e-f met 3 times (2 extra each); a-c, b-c, c-d, c-g twice (1 extra each).
    assert history.met("a", "b") == 3
    expected = sum(m - 1 for m in history.meetings.values() if m > 1)
    assert repeats(history) == expected == 8
    assert sum_of_squares(history) == sum(m * m for m in history.meetings.values())


def test_worst_player_is_the_one_with_most_extra_meetings() -> None:
    history = History.of((r, ()) for r in ROUNDS)
    # c: a, b, d, g twice each -> 4 extra; a and b have 3 (each other 2, c 1).
    assert worst_repeats(history) == 4


def test_seat_spread_over_the_seats_every_table_of_the_player_had() -> None:
    history = History.of((r, ()) for r in ROUNDS)
    # a sat 1st three times at 4-player tables: seats 1..4 -> (3, 0, 0, 0): spread 3.
    assert seat_spread(history) == 3
    flat = History.of(
        [((("a", "b", "c"),), ()), ((("b", "c", "a"),), ()), ((("c", "a", "b"),), ())]
    )
    assert seat_spread(flat) == 0


def test_lower_bound_counts_unavoidable_meetings() -> None:
    # 4 players, 3 rounds at one table: each meets 9 opponents of 3 possible: 6 extra each,
    # 4 * 6 / 2 = 12, and 12 is what they get (6 pairs, each met 3 times: 2 extra).
    rounds = [(("a", "b", "c", "d"),)] * 3
    assert repeat_lower_bound(rounds) == 12
    assert repeats(History.of((r, ()) for r in rounds)) == 12
    # 12 players at 4-player tables for 5 rounds: 15 opponents of 11 possible: 4 extra each.
    twelve = [tuple(tuple(f"p{4 * t + s}" for s in range(4)) for t in range(3))] * 5
    assert repeat_lower_bound(twelve) == 12 * 4 // 2
