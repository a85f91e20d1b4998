"""Trick cards declared in the game start (`trickerion.game_started.extra_tricks`), checked like
the catalog's cards and turned into catalog `Trick` values for this game only.

The checks are the catalog's own invariants (data/tricks.json and its test): the Fame
threshold of the level (thresholds 1 / 16 / 36), component names of the catalog's tiers, a
Level 3 end-game condition (and none below Level 3) in the condition language of
`domain.trickerion.conditions`, ids unique and not the catalog's. Source: docs/rules/trickerion.md
§3.1 (card data), issue "cards outside the catalog".
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from functools import cache
from types import MappingProxyType
from typing import Any

from contracts import catalogue
from contracts.trickerion import ExtraTrick
from domain.errors import RuleViolation
from domain.trickerion.catalog import Amounts, Trick, tricks
from domain.trickerion.conditions import COUNTERS, condition_points

FIELD = "payload.extra_tricks"


@cache
def _catalog_meta() -> tuple[dict[int, int], frozenset[str]]:
    raw = json.loads(catalogue.text("trickerion", "tricks.json"))
    thresholds = {int(k): int(v) for k, v in raw["thresholds"].items()}
    names = frozenset(n for tier in raw["component_tiers"].values() for n in tier)
    return thresholds, names


def _refuse(rule: str, card: ExtraTrick, message: str) -> RuleViolation:
    return RuleViolation(f"trickerion.extra_card.{rule}", f"{card.id}: {message}", FIELD)


def _condition(card: ExtraTrick) -> Mapping[str, Any] | None:
    if card.endgame is None:
        if card.level == 3:
            raise _refuse("level3_needs_condition", card, "a Level 3 trick prints a condition")
        return None
    if card.level != 3:
        raise _refuse("condition_below_level3", card, "only Level 3 tricks score at the end")
    # the contract bounds kind, points, every and at_least; the counters are the domain's
    cond = card.endgame.model_dump(mode="json")
    try:
        condition_points(cond, dict.fromkeys(COUNTERS, 0))
    except ValueError as error:
        raise _refuse(
            "condition", card, f"not the catalog's condition language ({error})"
        ) from None
    return MappingProxyType(cond)


def condition_text(cond: Mapping[str, Any]) -> str:
    """A condition in words, for a card declared without `endgame_text`: "3 per level1_tricks",
    "1 per 3 coins", "7 if manager >= 1"."""
    if cond["kind"] == "per":
        every = int(cond.get("every", 1))
        per = cond["of"] if every == 1 else f"{every} {cond['of']}"
        return f"{cond['points']} per {per}"
    return f"{cond['points']} if {', '.join(cond['of'])} >= {cond['at_least']}"


def extra_tricks(cards: Iterable[ExtraTrick]) -> Mapping[str, Trick]:
    """The declared cards as `Trick` values by id.

    Raises:
        RuleViolation: `trickerion.extra_card.<duplicate_id|component|level3_needs_condition|
            condition_below_level3|condition>` naming `payload.extra_tricks`.
    """
    thresholds, component_names = _catalog_meta()
    out: dict[str, Trick] = {}
    for card in cards:
        if card.id in out or card.id in tricks():
            raise _refuse("duplicate_id", card, "declared twice or a catalog id")
        unknown = sorted(set(card.components) - component_names)
        bad = [n for n, count in card.components.items() if not 1 <= count <= 5]
        if unknown or bad:
            raise _refuse("component", card, f"components {unknown or bad} are not the catalog's")
        cond = _condition(card)
        y = card.printed_yield
        out[card.id] = Trick(
            id=card.id,
            name=card.name,
            category=card.category,
            level=card.level,
            threshold=thresholds[card.level],
            yield_=Amounts(y.fame, y.coins, y.shards),
            markers=card.markers,
            components=MappingProxyType(dict(card.components)),
            endgame=cond,  # type: ignore[arg-type]
            endgame_text=card.endgame_text or (None if cond is None else condition_text(cond)),
        )
    return MappingProxyType(out)
