"""The end-game inventory against the log and the card data (called by `inventory_declared`).

Characters declared must be the characters hired: hires stay to the end (no rule removes one),
and a voided hire is simply not in the state (`domain.fold` refolds without it). Counts are
bounded by the card data in `data/limits.json` and `data/tricks.json`.
Sources: docs/rules/trickerion.md#characters (characters; the Assistant's bonus Apprentice),
§5.20 ("Apprentices/Specialists = those hired, including the Assistant's free Apprentice");
docs/rules/trickerion.md#end-of-game (the rows these counts feed).
"""

from __future__ import annotations

import json
from collections import Counter
from functools import cache

from contracts import catalogue
from contracts.trickerion import EndgameInventoryDeclared
from domain.errors import RuleViolation
from domain.trickerion.state import PlayerBook, TrickerionState

ARCANE = ("specter", "golem", "trickster", "shapeshifter")
SPECIALISTS = ("assistant", "manager", "engineer")


@cache
def limits() -> dict[str, int]:
    """The bounds of `data/limits.json` (its `source` names where each comes from)."""
    raw = json.loads(catalogue.text("trickerion", "limits.json"))
    return {k: v for k, v in raw.items() if isinstance(v, int)}


def hired_apprentices(hires: tuple[str, ...]) -> int:
    """Apprentices a player has from the log: each hired one plus the Assistant's bonus
    Apprentice (docs/rules/trickerion.md#characters)."""
    return hires.count("apprentice") + int("assistant" in hires)


def _mismatch(what: str, field: str, declared: object, hired: object, extra: bool) -> None:
    kind = "not_hired" if extra else "undeclared"
    raise RuleViolation(
        f"trickerion.inventory.{what}_{kind}",
        f"declared {declared}, the log has {hired} hired (void a wrong hire, or declare again)",
        field,
    )


def check_characters(book: PlayerBook, p: EndgameInventoryDeclared) -> None:
    """Apprentices, Specialists, the Protégé and Arcane workers must equal the hires.

    Raises:
        RuleViolation: `trickerion.inventory.<apprentices|specialists|protege|arcane_workers>_
            <not_hired|undeclared>` naming `payload.<that field>`.
    """
    hired = hired_apprentices(book.hires)
    if p.apprentices != hired:
        _mismatch("apprentices", "payload.apprentices", p.apprentices, hired, p.apprentices > hired)
    specialists = {h for h in book.hires if h in SPECIALISTS}
    if set(p.specialists) != specialists:
        extra = bool(set(p.specialists) - specialists)
        _mismatch(
            "specialists", "payload.specialists", sorted(p.specialists), sorted(specialists), extra
        )
    protege = "protege" in book.hires
    if p.protege != protege:
        _mismatch("protege", "payload.protege", p.protege, protege, p.protege)
    arcane: Counter[str] = Counter(h for h in book.hires if h in ARCANE)
    declared: Counter[str] = Counter(p.arcane_workers)
    if declared != arcane:
        _mismatch(
            "arcane_workers",
            "payload.arcane_workers",
            sorted(declared.elements()),
            sorted(arcane.elements()),
            bool(declared - arcane),
        )


def _over(field: str, value: int, bound: int, why: str) -> None:
    if value > bound:
        raise RuleViolation(
            "trickerion.inventory.over_card_data", f"{value} is more than {bound} ({why})", field
        )


def check_bounds(state: TrickerionState, book: PlayerBook, p: EndgameInventoryDeclared) -> None:
    """Every count within what the card data allows.

    Special Assignment cards in hand <= the 40 Special cards less those declared in other
    hands; Academy Banners <= 12; Trick
    markers on one card <= its printed markers (+1 with an Engineer), in the Workshop <= the sum
    over the tricks owned (docs/rules/trickerion.md#level-3; data/limits.json).

    Raises:
        RuleViolation: `trickerion.inventory.over_card_data` naming the field.
    """
    lim = limits()
    others = sum(
        inv.special_assignments_in_hand
        for pid, inv in state.inventories.items()
        if pid != p.player_id
    )
    _over(
        "payload.special_assignments_in_hand",
        p.special_assignments_in_hand,
        lim["special_assignment_cards"] - others,
        f"Special Assignment cards in the game, {others} in other hands",
    )
    _over(
        "payload.academy_banners",
        p.academy_banners,
        lim["academy_banners_per_player"],
        "Banners per player",
    )
    extra = lim["engineer_extra_markers"] if "engineer" in book.hires else 0
    owned = [t for t in book.tricks if t not in p.set_aside_trick_ids]
    _over(
        "payload.workshop_trick_markers",
        p.workshop_trick_markers,
        sum(state.card(t).markers for t in owned) + extra,
        "printed markers of the tricks owned",
    )
    for holding in p.level3_tricks:
        card = state.card(holding.trick_id, "payload.level3_tricks")
        _over(
            "payload.level3_tricks",
            holding.markers + holding.performance_markers,
            card.markers + extra,
            f"{card.id} prints {card.markers} markers",
        )
