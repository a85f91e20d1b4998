"""What earlier rounds left behind for seating and its measures: who met whom how often, how
often each player held each seat, who had a bye.

A round is its tables in seat order (`tuple[tuple[str, ...], ...]`: table -> player ids, seat 1
first) plus the players given a bye.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations

Tables = tuple[tuple[str, ...], ...]
"""A round's tables, each its player ids in seat order (seat 1 first)."""


def pair(a: str, b: str) -> tuple[str, str]:
    """The order-free key of two players."""
    return (a, b) if a < b else (b, a)


@dataclass(slots=True)
class History:
    """Counts over earlier rounds (mutable while it is built; `add` one round at a time).

    `meetings[(a, b)]`: how many earlier tables a and b shared (a < b);
    `seats[p][s]`: how often p held seat s (1-based); `byes[p]`: p's byes;
    `sizes[p]`: the sizes of the tables p sat at, in order.
    """

    meetings: Counter[tuple[str, str]] = field(default_factory=Counter)
    seats: dict[str, Counter[int]] = field(default_factory=dict)
    byes: Counter[str] = field(default_factory=Counter)
    sizes: dict[str, list[int]] = field(default_factory=dict)

    @classmethod
    def of(cls, rounds: Iterable[tuple[Tables, Sequence[str]]]) -> History:
        """The history of `rounds`, each `(tables, bye players)`."""
        history = cls()
        for tables, byes in rounds:
            history.add(tables, byes)
        return history

    def add(self, tables: Tables, byes: Sequence[str] = ()) -> None:
        """Count one more round."""
        for table in tables:
            for a, b in combinations(table, 2):
                self.meetings[pair(a, b)] += 1
            for seat, player in enumerate(table, start=1):
                self.seats.setdefault(player, Counter())[seat] += 1
                self.sizes.setdefault(player, []).append(len(table))
        for player in byes:
            self.byes[player] += 1

    def met(self, a: str, b: str) -> int:
        """How many earlier tables a and b shared."""
        return self.meetings.get(pair(a, b), 0)
