"""Places and the winner from totals, one function for every answer (standings, `score
--json`, the HTTP API): ranks shared or ordered by the game's tie-break, no winner in a solo
game.

A ruleset may offer `rank_key(rules_state, player_id) -> tuple | None`: a sort key (lower
first) that orders players tied on total, or None to keep the place shared (the option
`tie_break_ranks`, contracts/trickerion/options.py and contracts/penumbra.py). Sources:
docs/rules/trickerion.md#winner (the tie-break names a winner only); docs/rules/penumbra.md#winner
(no tie-break in the rules, no solo win condition); docs/rules/trickerion.md#winner.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

RankKey = Callable[[str], tuple[int, ...] | None]


def ordered_ranks(totals: Mapping[str, int], key: RankKey | None = None) -> dict[str, int]:
    """Standard competition ranking (1, 1, 3), higher total first; players tied on total are
    ordered by `key` when it gives one for each of them, else they share the place.

    >>> sorted(ordered_ranks({"a": 5, "b": 7, "c": 5}, lambda pid: (pid == "a",)).items())
    [('a', 3), ('b', 1), ('c', 2)]
    >>> sorted(ordered_ranks({"a": 5, "b": 7, "c": 5}).items())
    [('a', 2), ('b', 1), ('c', 2)]
    """
    keys = {pid: key(pid) if key else None for pid in totals}

    def sort_key(pid: str) -> tuple[int, tuple[int, ...]]:
        return (-totals[pid], keys[pid] or ())

    order = sorted(totals, key=sort_key)
    ranks: dict[str, int] = {}
    for index, pid in enumerate(order):
        prev = order[index - 1]
        mine, theirs = keys[pid], keys[prev]
        tied = index > 0 and totals[prev] == totals[pid]
        if tied and (mine is None or theirs is None or mine == theirs):
            ranks[pid] = ranks[prev]
        else:
            ranks[pid] = index + 1
    return {pid: ranks[pid] for pid in totals}  # in the order of `totals`


def settle_places(
    ruleset: Any, rules_state: Any, totals: Mapping[str, int], winners: tuple[list[str], str | None]
) -> tuple[dict[str, int], list[str], str | None]:
    """(ranks, winners, explanation): ranks by `ordered_ranks` with the ruleset's `rank_key`;
    the winners as the tie-break gave them (`winners`), none in a solo game.

    With ordered ranks the rank-1 players are exactly the winners, so every answer agrees.
    """
    rank_key = getattr(ruleset, "rank_key", None)
    key: RankKey | None = (lambda pid: rank_key(rules_state, pid)) if rank_key else None
    ranks = ordered_ranks(totals, key)
    if len(totals) == 1:
        return ranks, [], "solo game: the rules name no winner"
    chosen, explanation = winners
    return ranks, chosen, explanation
