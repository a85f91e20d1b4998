"""The end-game inventory: one `trickerion.endgame_inventory_declared` per player, checked
against the modules in play and the tricks the player owns.

Source: docs/rules/trickerion.md#end-of-game and #modules; docs/rules/trickerion.md
§4 (eligibility), §5.5-§5.7, §5.19-§5.20.
"""

from __future__ import annotations

from contracts.trickerion import EndgameInventoryDeclared
from domain.errors import RuleViolation
from domain.trickerion.holdings_check import check_bounds, check_characters
from domain.trickerion.state import TrickerionState


def _needs(flag: bool, present: bool, module: str, field: str) -> None:
    if present and not flag:
        raise RuleViolation(
            f"trickerion.inventory.needs_{module}", f"{field} needs the {module} module", field
        )


def inventory_declared(state: TrickerionState, p: EndgameInventoryDeclared) -> TrickerionState:
    """Record a player's end-game inventory (in the final turn, once).

    Raises:
        RuleViolation: `trickerion.inventory.before_final_turn` (type), `trickerion.inventory.twice`
            (payload.player_id), `trickerion.inventory.needs_<module>` (the field of that module),
            `trickerion.inventory.trick_not_owned` / `trickerion.inventory.not_level3` /
            `trickerion.inventory.level3_missing` (payload.level3_tricks or
            payload.set_aside_trick_ids); the characters against the hires and the counts
            against the card data (see `domain.trickerion.holdings_check`).
    """
    book = state.book(p.player_id)
    if state.turn != state.final_turn:
        raise RuleViolation(
            "trickerion.inventory.before_final_turn",
            f"inventories are declared in the final turn ({state.final_turn}), not {state.turn}",
            "type",
        )
    if p.player_id in state.inventories:
        raise RuleViolation(
            "trickerion.inventory.twice",
            f"{p.player_id} has already declared; void that event to declare again",
            "payload.player_id",
        )
    opts = state.options
    _needs(
        opts.dark_alley,
        p.special_assignments_in_hand > 0,
        "dark_alley",
        "payload.special_assignments_in_hand",
    )
    _needs(opts.dark_alley, bool(p.level3_tricks), "dark_alley", "payload.level3_tricks")
    _needs(opts.academy, p.academy_banners > 0, "academy", "payload.academy_banners")
    _needs(opts.academy, p.protege, "academy", "payload.protege")
    _needs(
        opts.dawn_of_technology,
        p.contraption_shards > 0,
        "dawn_of_technology",
        "payload.contraption_shards",
    )
    _needs(opts.arcane_arts, bool(p.arcane_workers), "arcane_arts", "payload.arcane_workers")
    _needs(opts.arcane_arts, p.arcane_shards > 0, "arcane_arts", "payload.arcane_shards")
    for tid in p.set_aside_trick_ids:
        if tid not in book.tricks:
            raise RuleViolation(
                "trickerion.inventory.trick_not_owned",
                f"{p.player_id} does not own {tid}",
                "payload.set_aside_trick_ids",
            )
    owned_l3 = {t for t in book.tricks if state.card(t).level == 3} - set(p.set_aside_trick_ids)
    for holding in p.level3_tricks:
        card = state.card(holding.trick_id, "payload.level3_tricks")
        if card.level != 3:
            raise RuleViolation(
                "trickerion.inventory.not_level3",
                f"{card.id} is Level {card.level}",
                "payload.level3_tricks",
            )
        if card.id not in owned_l3:
            raise RuleViolation(
                "trickerion.inventory.trick_not_owned",
                f"{p.player_id} does not own {card.id} (or set it aside)",
                "payload.level3_tricks",
            )
    check_characters(book, p)
    check_bounds(state, book, p)
    missing = undeclared_level3(state, p)
    if missing:
        raise RuleViolation(
            "trickerion.inventory.level3_missing",
            f"{p.player_id} owns Level 3 tricks {missing}; declare each one",
            "payload.level3_tricks",
        )
    return state.with_inventory(p)


def undeclared_level3(state: TrickerionState, inv: EndgameInventoryDeclared) -> list[str]:
    """Level 3 tricks the player owns (not set aside) that `inv` does not declare, sorted.

    Each eligible Level 3 trick scores (docs/rules/trickerion.md#level-3), so one learned
    after the inventory must not be dropped silently; `game.ended` checks again.
    """
    book = state.book(inv.player_id)
    owned = {t for t in book.tricks if state.card(t).level == 3} - set(inv.set_aside_trick_ids)
    return sorted(owned - {h.trick_id for h in inv.level3_tricks})
