"""Tiny Dice's resources, breakdown categories (EN / RU labels) and the rule anchors its ledger
entries cite. `pips` is the score unit and `dice` counts rolls made; both are declared by the
game itself, not by the ledger.
"""

from __future__ import annotations

from domain.ledger import Category

PIPS = "pips"
DICE = "dice"

ROLL = "dice#roll"
BEST = "dice#best"

CATEGORIES: tuple[Category, ...] = (
    Category("rolls", "Rolls", "Броски"),
    Category("best_roll", "Best roll", "Лучший бросок", endgame=True),
)
"""Every breakdown category in display order (in-play first, then end-game)."""
