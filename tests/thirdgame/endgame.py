"""Tiny Dice's end-game points: every player whose best roll is the game's best scores 5 more
(`best_roll`), shown as provisional during play.
"""

from __future__ import annotations

from collections.abc import Mapping

from contracts.envelope import Envelope
from domain.ledger import LedgerEntry
from domain.ruleset import Entries
from tests.thirdgame.categories import BEST, PIPS
from tests.thirdgame.state import DiceState

BEST_ROLL_BONUS = 5


def best_roll(state: DiceState) -> Mapping[str, Mapping[str, int]]:
    """Player -> {"best_roll": 5} for every player holding the game's best roll (none before
    the first roll)."""
    top = max(state.best.values(), default=0)
    return {
        pid: {"best_roll": BEST_ROLL_BONUS} for pid, b in state.best.items() if top and b == top
    }


def end_entries(state: DiceState, event: Envelope) -> Entries:
    """The `best_roll` points as ledger entries of the `game.ended` event."""
    return tuple(
        LedgerEntry(event.event_id, event.seq, pid, PIPS, "best_roll", points, BEST)
        for pid, cats in best_roll(state).items()
        for points in cats.values()
    )
