"""The card catalog: 48 Trick cards, 28 Performance cards and the characters, loaded from JSON.

Data files live in `contracts/catalogue/trickerion/` (published with the schemas, which name
the same ids) and name their source (docs/rules/trickerion.md
§3.1, §3.2, §3.4). Amounts the service pays come from here whenever an event names a card.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Any

from contracts import catalogue
from domain.errors import RuleViolation


@dataclass(frozen=True, slots=True)
class Amounts:
    """Fame / Coins / Shards, each a non-negative count."""

    fame: int = 0
    coins: int = 0
    shards: int = 0


@dataclass(frozen=True, slots=True)
class Trick:
    """A Trick card (docs/rules/trickerion.md#level-3).

    `level` 1/2/3 (Fame threshold 1/16/36); `yield_` the printed yield per marker;
    `components` name -> count; `endgame` the Level 3 end-game condition as data (None below L3).
    """

    id: str
    name: str
    category: str
    level: int
    threshold: int
    yield_: Amounts
    markers: int
    components: MappingProxyType[str, int]
    endgame: MappingProxyType[str, Any] | None
    endgame_text: str | None


@dataclass(frozen=True, slots=True)
class PerformanceCard:
    """A Performance card (docs/rules/trickerion.md#level-3): `links` printed Links (one is a Shard
    Link), `bonus` the performer's printed bonus; Magnus Pantheon cards need the Dark Alley."""

    id: str
    theater: str
    slots: int
    links: int
    shard_links: int
    bonus: Amounts
    dark_alley_only: bool


@dataclass(frozen=True, slots=True)
class CharacterCard:
    """A character type (docs/rules/trickerion.md#characters): `kind` magician / apprentice / specialist
    / protege / arcane; `backstage` the bonus behind the performer; `module` needed, if any."""

    id: str
    kind: str
    backstage: Amounts | None
    module: str | None


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(catalogue.text("trickerion", name))
    return data


def _amounts(raw: dict[str, int] | None) -> Amounts | None:
    return None if raw is None else Amounts(raw["fame"], raw["coins"], raw["shards"])


_TRICKS: Mapping[str, Trick] = MappingProxyType({})
"""`tricks()` once loaded, for `trick`: a `functools.cache` call costs about 700 instructions,
a global read a few (a card is read per event, docs/profiles/fold-event-cost.md)."""
_PERFORMANCES: Mapping[str, PerformanceCard] = MappingProxyType({})
"""`performances()` once loaded, for `performance` (as `_TRICKS`)."""


@cache
def tricks() -> MappingProxyType[str, Trick]:
    """Every Trick card by id (T01-T48)."""
    global _TRICKS
    out = {}
    for t in _load("tricks.json")["tricks"]:
        cond = t.get("endgame")
        out[t["id"]] = Trick(
            id=t["id"],
            name=t["name"],
            category=t["category"],
            level=t["level"],
            threshold=t["threshold"],
            yield_=Amounts(**t["yield"]),
            markers=t["markers"],
            components=MappingProxyType(dict(t["components"])),
            endgame=None if cond is None else MappingProxyType(dict(cond)),
            endgame_text=t.get("endgame_text"),
        )
    _TRICKS = table = MappingProxyType(out)
    return table


@cache
def performances() -> MappingProxyType[str, PerformanceCard]:
    """Every Performance card by id (P01-P28)."""
    global _PERFORMANCES
    out = {}
    for p in _load("performances.json")["performances"]:
        out[p["id"]] = PerformanceCard(
            id=p["id"],
            theater=p["theater"],
            slots=p["slots"],
            links=p["links"],
            shard_links=p["shard_links"],
            bonus=Amounts(**p["bonus"]),
            dark_alley_only=p["dark_alley_only"],
        )
    _PERFORMANCES = table = MappingProxyType(out)
    return table


@cache
def characters() -> MappingProxyType[str, CharacterCard]:
    """Every character type by id (magician, apprentice, assistant, manager, engineer, ...)."""
    raw = _load("characters.json")["characters"]
    return MappingProxyType(
        {
            c["id"]: CharacterCard(c["id"], c["kind"], _amounts(c["backstage"]), c["module"])
            for c in raw
        }
    )


def trick(
    trick_id: str, field: str = "payload.trick_id", extra: Mapping[str, Trick] | None = None
) -> Trick:
    """The Trick card `trick_id`, from the catalog or the game's declared `extra` cards.

    Raises:
        RuleViolation: `trickerion.card.unknown_trick` naming `field`.
    """
    if extra and trick_id in extra:
        return extra[trick_id]
    try:
        return (_TRICKS or tricks())[trick_id]
    except KeyError:
        raise RuleViolation(
            "trickerion.card.unknown_trick", f"no Trick card {trick_id!r}", field
        ) from None


def performance(card_id: str, field: str = "payload.performance_card_id") -> PerformanceCard:
    """The Performance card `card_id`.

    Raises:
        RuleViolation: `trickerion.card.unknown_performance` naming `field`.
    """
    try:
        return (_PERFORMANCES or performances())[card_id]
    except KeyError:
        raise RuleViolation(
            "trickerion.card.unknown_performance", f"no Performance card {card_id!r}", field
        ) from None
