"""The contract between the game-independent fold and one game's ruleset.

A ruleset owns its game-specific state (a frozen value) and turns events into new state plus
ledger entries. `domain.fold` handles what every game shares: the log's order, corrections,
voids and the game's end. Source: docs/decisions/0007-pure-domain-fold.md (domain/), docs/decisions/0007-pure-domain-fold.md (decider).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeVar, runtime_checkable

from contracts.common import GameStartedBase
from contracts.envelope import Envelope
from domain.ledger import Category, LedgerEntry

Entries = tuple[LedgerEntry, ...]
S = TypeVar("S")
"""The ruleset's own state (a frozen value)."""

Handler = Callable[[S, Envelope, Any], tuple[S, Entries]]
"""The shape of every game's event handler: (state, event, its payload) -> (new state, entries).
Each game's `ruleset` module holds a `HANDLERS: dict[payload class, Handler[State]]` table."""


@runtime_checkable
class Ruleset(Protocol[S]):
    """One game's scoring rules, generic over its state type `S`.

    Attributes:
        game: the game key (`trickerion`, `penumbra`); also the wire-type prefix.
        started_type: the game's `*.game_started` payload class.
        score_resource: the score unit, a ledger resource key (`fame`, `vp`; a `Resource` or any
            str the game declares).
        categories: every breakdown category, in display order, with EN/RU labels.
    """

    @property
    def game(self) -> str: ...
    @property
    def started_type(self) -> type[GameStartedBase]: ...
    @property
    def score_resource(self) -> str: ...
    @property
    def categories(self) -> tuple[Category, ...]: ...

    def start(self, event: Envelope) -> tuple[S, Entries]:
        """The game-specific state right after `*.game_started` (and any starting entries).

        Raises:
            RuleViolation: the setup breaks a rule (e.g. too many players).
        """
        ...

    def apply(self, state: S, event: Envelope) -> tuple[S, Entries]:
        """Apply one in-play event (this game's types, `game.turn_started`,
        `game.initiative_changed`); return the new state and its ledger entries.

        A ruleset may also have `owned(state) -> state` (an equal copy that `apply` may write
        in place, returning it or a state made from it, until `frozen(state)` makes it immutable
        again): `domain.fold.Folder` uses the pair to skip a copy of the state per event.

        Raises:
            RuleViolation: the event breaks a rule; `state` is unchanged (even an owned one).
        """
        ...

    def end(self, state: S, event: Envelope) -> tuple[S, Entries]:
        """End-game scoring at `game.ended`: the end-game ledger entries, attributed to it.

        Raises:
            RuleViolation: the game cannot end yet (e.g. a required inventory is missing).
        """
        ...

    def provisional(self, state: S) -> Mapping[str, Mapping[str, int]]:
        """ "If the game ended now": player id -> end-game category -> points (score units).

        Only categories not yet in the ledger; empty for categories scored live.
        """
        ...

    def tie_break(self, state: S, tied: list[str]) -> tuple[list[str], str]:
        """Order players tied on total.

        Returns:
            (winners, explanation): the player ids who win among `tied` (several when the tie
            stands as a shared place) and the tie-break in words for a scoreboard.
        """
        ...
