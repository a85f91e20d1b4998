"""Measures of a tournament's seating: repeat meetings, the worst player's repeats, seat spread,
and a lower bound on repeats.

- `repeats`: extra meetings of the same pair, sum over pairs of max(0, meetings - 1).
- `worst_repeats`: the largest sum over one player's opponents of max(0, meetings - 1).
- `seat_spread`: the largest difference between two of a player's seat counts, over the seats
  every table the player sat at had (seats 1..3 once they sat at a 3-player table, 1..4 if all
  their tables had 4): balance is only asked of seats the player could have held every round.
- `repeat_lower_bound`: player p met `T_p` = sum of (table size - 1) opponents but has only
  `n_p - 1` distinct possible opponents (`n_p`: players p could meet, here everyone who
  played), so at least `max(0, T_p - (n_p - 1))` of p's meetings are repeats; each repeat is
  counted by both players, so total repeats >= ceil(sum_p max(0, T_p - (n_p - 1)) / 2). It
  ignores that tables must fit together, so it is reached only by perfect designs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from domain.tournament.history import History, Tables


def repeats(history: History) -> int:
    """Extra meetings of the same pair (a pair met 3 times counts 2)."""
    return sum(m - 1 for m in history.meetings.values() if m > 1)


def sum_of_squares(history: History) -> int:
    """Sum over pairs of meetings squared (what the engine minimises round by round)."""
    return sum(m * m for m in history.meetings.values())


def worst_repeats(history: History) -> int:
    """The most repeat meetings any one player had (0 for no repeats)."""
    per: Counter[str] = Counter()
    for (a, b), m in history.meetings.items():
        if m > 1:
            per[a] += m - 1
            per[b] += m - 1
    return max(per.values(), default=0)


def seat_spread(history: History) -> int:
    """The largest max-minus-min of one player's seat counts over the seats all their tables had."""
    spread = 0
    for player, counts in history.seats.items():
        common = min(history.sizes[player])
        values = [counts.get(s, 0) for s in range(1, common + 1)]
        spread = max(spread, max(values) - min(values))
    return spread


def repeat_lower_bound(rounds: Iterable[Tables]) -> int:
    """ceil(sum_p max(0, T_p - (n - 1)) / 2), n = everyone who played (see the module doc)."""
    opponents: Counter[str] = Counter()
    for tables in rounds:
        for table in tables:
            for player in table:
                opponents[player] += len(table) - 1
    n = len(opponents)
    excess = sum(max(0, t - (n - 1)) for t in opponents.values())
    return (excess + 1) // 2
