"""Level 3 end-game conditions as data, evaluated by one small interpreter.

A condition is a mapping from the catalog (docs/rules/trickerion.md#level-3, "L3 end-game condition"):
- `{"kind": "per", "of": C, "points": p, "every": n}`: p Fame per n of counter C (n defaults
  to 1; the remainder is dropped, e.g. T24 "1 per 3 unspent Coins").
- `{"kind": "if", "of": [C, ...], "at_least": n, "points": p}`: p Fame if every listed
  counter is at least n (T09 "12 if you have Assistant, Engineer and Manager").
Counters are named in `COUNTERS`; the caller supplies their values (see `endgame.counters`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

COUNTERS: frozenset[str] = frozenset(
    {
        "apprentices",
        "assistant",
        "manager",
        "engineer",
        "basic_components",
        "advanced_components",
        "superior_components",
        "tricks_owned",
        "level1_tricks",
        "level2_tricks",
        "level3_tricks",
        "coins",
        "held_shards",
        "special_assignments",
        "workshop_trick_markers",
    }
)
"""Every counter a condition may name."""


def condition_points(condition: Mapping[str, Any], counts: Mapping[str, int]) -> int:
    """Fame (uncapped) that `condition` awards given counter values `counts`.

    Raises:
        ValueError: an unknown `kind` or counter (a catalog error, caught by the catalog test).
    """
    kind = condition["kind"]
    names = [condition["of"]] if kind == "per" else list(condition["of"])
    unknown = [n for n in names if n not in COUNTERS]
    if unknown:
        raise ValueError(f"condition counts unknown counters {unknown}")
    if kind == "per":
        return int(condition["points"]) * (
            counts[condition["of"]] // int(condition.get("every", 1))
        )
    if kind == "if":
        met = all(counts[name] >= int(condition["at_least"]) for name in names)
        return int(condition["points"]) if met else 0
    raise ValueError(f"unknown condition kind {kind!r}")
