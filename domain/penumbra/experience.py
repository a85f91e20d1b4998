"""ОПЫТ (experience): sets of six different symbols and sets of identical symbols.

docs/rules/penumbra.md#experience: each set of six different symbols gives 7 VP; the
identical symbols of each kind score 1, 2, 4, 6, 9 VP for 1..5 symbols; a symbol may count in
both. docs/rules/penumbra.md#experience: six-sets = min over the six kinds, 6+ identical by policy (#six-plus).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from domain.penumbra.catalog import IDENTICAL_SET_VP, SIX_DIFFERENT_SET_VP
from domain.penumbra.state import XpCounts

SixPlusPolicy = Literal["cap", "extrapolate", "chunk"]


def identical_set_vp(n: int, policy: SixPlusPolicy = "cap") -> int:
    """VP for `n` identical symbols of one kind (rules lines 17-22, research §5 Q1).

    n <= 5 reads the printed table. For n >= 6 the rules print nothing, so `policy` decides:
    `cap` 9 (REC), `extrapolate` floor((n+1)^2 / 4) (12, 16, 20, ...), `chunk` 9 per block of
    five plus the table value of the rest (6 -> 10, 10 -> 18).

    Raises:
        ValueError: `n` is negative.
    """
    if n < 0:
        raise ValueError(f"n: a symbol count cannot be negative, got {n}")
    if n <= 5:
        return IDENTICAL_SET_VP[n]
    if policy == "cap":
        return IDENTICAL_SET_VP[5]
    if policy == "extrapolate":
        return (n + 1) ** 2 // 4
    blocks, rest = divmod(n, 5)
    return blocks * IDENTICAL_SET_VP[5] + IDENTICAL_SET_VP[rest]


def six_different_sets(counts: XpCounts) -> int:
    """How many sets of six different symbols `counts` holds: the smallest kind count
    (rules line 15 "каждый набор"; research §5 Q2, EC-2, EC-3)."""
    return min(counts)


@lru_cache(maxsize=4096)  # a pure function of a few small ints; the fold asks per change
def experience_vp(counts: XpCounts, policy: SixPlusPolicy = "cap") -> int:
    """ОПЫТ in VP: 7 x six-different sets + the identical set of each kind, counted separately
    (rules lines 15, 17-22, 24; a symbol may count in both, EC-4)."""
    identical = sum(identical_set_vp(n, policy) for n in counts)
    return SIX_DIFFERENT_SET_VP * six_different_sets(counts) + identical
