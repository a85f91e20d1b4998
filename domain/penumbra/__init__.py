"""Penumbra: Trials of Arcana ruleset (rules/penumbra-scoring.ru.md). Exports `RULESET`.

Modules: `state` (frozen tableaux), `experience` (ОПЫТ sets), `scoring` (the eight
categories), `play` (Arcana, Tomes, Mortal Wounds, Marks, Goals), `cards` (Trials,
Contracts), `ending` (turns, Prophecy, final turns, tie-break), `ruleset` (the `Ruleset`
protocol and the ledger diff).
"""

from __future__ import annotations

from domain.penumbra.ruleset import PenumbraRuleset

RULESET = PenumbraRuleset()

__all__ = ["RULESET", "PenumbraRuleset"]
