"""Tiny Dice's rules: each roll scores its pips (category `rolls`); at the end, every player whose
best roll is the game's best scores 5 more (`best_roll`, shown as provisional during play). Ties
stand as a shared place. Resources: `pips` (the score unit) and `dice` (rolls made), declared by
the game itself, not by the ledger.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from contracts.envelope import Envelope, Payload
from domain.errors import RuleViolation
from domain.ledger import Category, LedgerEntry
from domain.ruleset import Handler
from tests.thirdgame.contracts import DiceGameStarted, DiceRolled

PIPS = "pips"
DICE = "dice"
BEST_ROLL_BONUS = 5
Entries = tuple[LedgerEntry, ...]


@dataclass(frozen=True)
class DiceState:
    """Each player's best roll so far (0 before their first)."""

    best: Mapping[str, int]


def rolled(state: DiceState, event: Envelope, roll: DiceRolled) -> tuple[DiceState, Entries]:
    """A roll scores its pips and counts one die; it may raise the player's best roll."""
    if roll.player_id not in state.best:
        raise RuleViolation("dice.unknown_player", "no such player", "payload.player_id")
    best = {**state.best, roll.player_id: max(state.best[roll.player_id], roll.pips)}
    entries = (
        LedgerEntry(
            event.event_id, event.seq, roll.player_id, PIPS, "rolls", roll.pips, "dice#roll"
        ),
        LedgerEntry(event.event_id, event.seq, roll.player_id, DICE, "rolls", 1, "dice#roll"),
    )
    return replace(state, best=best), entries


HANDLERS: dict[type[Payload], Handler[DiceState]] = {DiceRolled: rolled}


class DiceRuleset:
    """The `domain.ruleset.Ruleset[DiceState]` of Tiny Dice."""

    game = "dice"
    started_type = DiceGameStarted
    score_resource = PIPS
    categories = (
        Category("rolls", "Rolls", "Броски"),
        Category("best_roll", "Best roll", "Лучший бросок", endgame=True),
    )

    def start(self, event: Envelope) -> tuple[DiceState, Entries]:
        assert isinstance(event.payload, DiceGameStarted)
        return DiceState({p.player_id: 0 for p in event.payload.players}), ()

    def apply(self, state: DiceState, event: Envelope) -> tuple[DiceState, Entries]:
        handler = HANDLERS.get(type(event.payload))
        if handler is None:
            raise RuleViolation("dice.event.unknown", f"{event.type} is not a dice event", "type")
        return handler(state, event, event.payload)

    def end(self, state: DiceState, event: Envelope) -> tuple[DiceState, Entries]:
        return state, tuple(
            LedgerEntry(event.event_id, event.seq, pid, PIPS, "best_roll", points, "dice#best")
            for pid, cats in self.provisional(state).items()
            for points in cats.values()
        )

    def provisional(self, state: DiceState) -> Mapping[str, Mapping[str, int]]:
        top = max(state.best.values(), default=0)
        return {
            pid: {"best_roll": BEST_ROLL_BONUS} for pid, b in state.best.items() if top and b == top
        }

    def tie_break(self, state: DiceState, tied: list[str]) -> tuple[list[str], str]:
        return tied, "the tie stands (a shared place)"


RULESET = DiceRuleset()
