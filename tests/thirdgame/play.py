"""Tiny Dice's in-play handler (the shared `domain.ruleset.Handler` shape): each roll scores its
pips (category `rolls`) and counts one die.
"""

from __future__ import annotations

from dataclasses import replace

from contracts.envelope import Envelope
from domain.errors import RuleViolation
from domain.ledger import LedgerEntry
from domain.ruleset import Entries
from tests.thirdgame.categories import DICE, PIPS, ROLL
from tests.thirdgame.contracts import DiceRolled
from tests.thirdgame.state import DiceState


def rolled(state: DiceState, event: Envelope, roll: DiceRolled) -> tuple[DiceState, Entries]:
    """A roll scores its pips and counts one die; it may raise the player's best roll."""
    if roll.player_id not in state.best:
        raise RuleViolation("dice.unknown_player", "no such player", "payload.player_id")
    best = {**state.best, roll.player_id: max(state.best[roll.player_id], roll.pips)}
    entries = (
        LedgerEntry(event.event_id, event.seq, roll.player_id, PIPS, "rolls", roll.pips, ROLL),
        LedgerEntry(event.event_id, event.seq, roll.player_id, DICE, "rolls", 1, ROLL),
    )
    return replace(state, best=best), entries
