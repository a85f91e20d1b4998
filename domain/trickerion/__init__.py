"""Trickerion: Legends of Illusion scoring, exactly as docs/rules/trickerion.md says.

The shared game layout (docs/architecture/adding-a-game.md): `state` (immutable state, `settle`), `turns`
(turns, the initiative track), `play` (in-play handlers: Advertise, learn, hire, Links, other
changes), `join` (joining in progress), `endgame` (end-game Fame), `categories` (EN/RU labels,
rule anchors), `ruleset` (`HANDLERS`, `RULESET`, the `domain.ruleset.Ruleset`). Trickerion's
own helpers: `catalog` (card data from `data/*.json`), `extra_cards` (Trick cards declared at
the start), `performance` (yields, then performer bonuses), `inventory` and `holdings_check`
(the end-game inventory), `conditions` (Level 3 conditions as data).
"""

from __future__ import annotations

from domain.trickerion.ruleset import RULESET, TrickerionRuleset

__all__ = ["RULESET", "TrickerionRuleset"]
