"""Penumbra: Trials of Arcana ruleset (docs/rules/penumbra.md). Exports `RULESET`.

The shared game layout (docs/architecture/adding-a-game.md): `state` (frozen tableaux), `turns` (rounds,
initiative, the Prophecy and final turns, when the game may end, the tie-break), `play` (in-play
handlers: Arcana, Tomes, Mortal Wounds, Marks, Goals), `join` (joining in progress),
`categories` (the eight VP categories with EN/RU labels and rule lines, each a function of the
state), `ruleset` (`HANDLERS`, the `Ruleset` protocol), `diff` (the ledger diff). No `endgame`:
Penumbra scores live, nothing waits for `game.ended`. Penumbra's own helpers: `cards` (Trial
and Contract handlers), `experience` (ОПЫТ sets).
"""

from __future__ import annotations

from domain.penumbra.ruleset import PenumbraRuleset

RULESET = PenumbraRuleset()

__all__ = ["RULESET", "PenumbraRuleset"]
