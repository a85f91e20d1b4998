"""Trickerion: Legends of Illusion scoring, exactly as rules/trickerion-scoring.md says.

Modules: `catalog` (card data from `data/*.json`), `state` (immutable state, `settle`),
`turns`, `play` (Advertise, learn, hire, Links, other changes), `performance` (yields, then
performer bonuses), `inventory`, `conditions` (Level 3 conditions as data), `endgame`,
`categories` (EN/RU labels, rule anchors), `ruleset` (`RULESET`, the `domain.ruleset.Ruleset`).
"""

from __future__ import annotations

from domain.trickerion.ruleset import RULESET, TrickerionRuleset

__all__ = ["RULESET", "TrickerionRuleset"]
