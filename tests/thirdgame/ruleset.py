"""Tiny Dice's rules: each roll scores its pips (category `rolls`); at the end, every player whose
best roll is the game's best scores 5 more (`best_roll`, shown as provisional during play). Ties
stand as a shared place. Modules follow the shared game layout (docs/architecture/adding-a-game.md):
`state`, `play`, `endgame`, `categories`, `ruleset`.
"""

from __future__ import annotations

from collections.abc import Mapping

from contracts.envelope import Envelope, Payload
from domain.errors import RuleViolation
from domain.ruleset import Entries, Handler
from tests.thirdgame.categories import CATEGORIES, PIPS
from tests.thirdgame.contracts import DiceGameStarted, DiceRolled
from tests.thirdgame.endgame import best_roll, end_entries
from tests.thirdgame.play import rolled
from tests.thirdgame.state import DiceState

HANDLERS: dict[type[Payload], Handler[DiceState]] = {DiceRolled: rolled}


class DiceRuleset:
    """The `domain.ruleset.Ruleset[DiceState]` of Tiny Dice."""

    game = "dice"
    started_type = DiceGameStarted
    score_resource = PIPS
    categories = CATEGORIES

    def start(self, event: Envelope) -> tuple[DiceState, Entries]:
        assert isinstance(event.payload, DiceGameStarted)
        return DiceState({p.player_id: 0 for p in event.payload.players}), ()

    def apply(self, state: DiceState, event: Envelope) -> tuple[DiceState, Entries]:
        handler = HANDLERS.get(type(event.payload))
        if handler is None:
            raise RuleViolation("dice.event.unknown", f"{event.type} is not a dice event", "type")
        return handler(state, event, event.payload)

    def end(self, state: DiceState, event: Envelope) -> tuple[DiceState, Entries]:
        return state, end_entries(state, event)

    def provisional(self, state: DiceState) -> Mapping[str, Mapping[str, int]]:
        return best_roll(state)

    def tie_break(self, state: DiceState, tied: list[str]) -> tuple[list[str], str]:
        return tied, "the tie stands (a shared place)"


RULESET = DiceRuleset()
