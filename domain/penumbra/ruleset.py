"""The Penumbra `Ruleset` (domain/ruleset.py protocol): score unit VP, eight categories.

Every category is a function of the current state (domain.penumbra.categories), so after each
event the ledger gets one VP entry per (player, category) whose value changed, equal to the
change. The running total is then the "if the game ended now" score and always equals the sum
of the ledger (docs/rules/penumbra.md#reserved-contracts). Arcana supply changes also get an ARCANA entry.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from contracts.common import InitiativeChanged, TurnStarted
from contracts.envelope import Envelope, Payload
from contracts.penumbra import MAX_PLAYERS as PENUMBRA_MAX_PLAYERS
from contracts.penumbra import (
    ArcanaGained,
    ArcanaSpent,
    ContractFulfilled,
    ContractReservationRemoved,
    ContractReserved,
    FinalTurnTaken,
    GoalRevoked,
    GoalScored,
    MarkPlaced,
    MarkRemoved,
    MortalWoundRemoved,
    MortalWoundTaken,
    PenumbraGameStarted,
    PenumbraOptions,
    ProphecyTriggered,
    TomeGained,
    TomeLost,
    TrialCompleted,
    TrialReservationCleared,
    TrialReserved,
)
from domain.errors import RuleViolation
from domain.ledger import LedgerEntry, Resource
from domain.penumbra import cards, join, play, turns
from domain.penumbra.categories import CATEGORIES, experience_counts
from domain.penumbra.diff import ledger_changes
from domain.penumbra.state import PenumbraState, Tableau
from domain.ruleset import Entries, Handler

MAX_PLAYERS = PENUMBRA_MAX_PLAYERS  # the contract's bound, one constant
"""Penumbra seats 1-4 players (docs/rules/penumbra.md#end-of-game)."""

Move = Callable[[PenumbraState, Any], PenumbraState]

_MOVES: dict[type[Payload], Move] = {
    TurnStarted: turns.turn_started,
    InitiativeChanged: turns.initiative_changed,
    ArcanaGained: play.arcana_gained,
    ArcanaSpent: play.arcana_spent,
    TrialReserved: cards.trial_reserved,
    TrialReservationCleared: cards.trial_reservation_cleared,
    TrialCompleted: cards.trial_completed,
    ContractReserved: cards.contract_reserved,
    ContractFulfilled: cards.contract_fulfilled,
    ContractReservationRemoved: cards.contract_reservation_removed,
    TomeGained: play.tome_gained,
    TomeLost: play.tome_lost,
    MortalWoundTaken: play.mortal_wound_taken,
    MortalWoundRemoved: play.mortal_wound_removed,
    MarkPlaced: play.mark_placed,
    MarkRemoved: play.mark_removed,
    GoalScored: play.goal_scored,
    GoalRevoked: play.goal_revoked,
    ProphecyTriggered: turns.prophecy_triggered,
    FinalTurnTaken: turns.final_turn_taken,
}
"""Payload class -> its move on the tableaux; one explicit table (docs/decisions/0007-pure-domain-fold.md
lesson 4). `HANDLERS` gives each the shared handler shape, the entries being the VP diff."""


def scored(move: Move) -> Handler[PenumbraState]:
    """`move` as a `domain.ruleset.Handler`: the new state and the ledger changes it makes.

    The handler refuses any event once every final turn is taken (nothing happens between the
    last final turn and `game.ended`, docs/rules/penumbra.md#end-of-game) before the move:
    `domain.fold.Folder` calls it without `apply`.

    Raises:
        RuleViolation: `penumbra.end.all_final_turns_taken`, or the move's own rule.
    """

    def handler(
        state: PenumbraState, event: Envelope, payload: Any
    ) -> tuple[PenumbraState, Entries]:
        if state.prophecy is not None and _all_final_turns_taken(state):
            raise RuleViolation(
                "penumbra.end.all_final_turns_taken",
                f"every final turn is taken; only game.ended may follow, got {event.type}",
                "type",
            )
        new = move(state, payload)
        return new, ledger_changes(state, new, event)

    return handler


def _all_final_turns_taken(state: PenumbraState) -> bool:
    """`turns.all_final_turns_taken` after a Prophecy, written here: the rule map
    (`services.rules.reach`) follows a name a function reads to the function of that name in
    its module, and turns.py's `final_turn_taken` move would list its own refusals for every
    Penumbra event."""
    return all(t.final_turn_taken for t in state.tableaux.values())


HANDLERS: dict[type[Payload], Handler[PenumbraState]] = {t: scored(m) for t, m in _MOVES.items()}
"""Payload class -> handler, the same shape as every game's (`domain.ruleset.Handler`)."""


class PenumbraRuleset:
    """Penumbra: Trials of Arcana, end-game VP by docs/rules/penumbra.md, scored live."""

    game = "penumbra"
    started_type = PenumbraGameStarted
    score_resource = Resource.VP
    categories = CATEGORIES
    max_players = MAX_PLAYERS  # optional attribute: the most a game seats (tournament tables)

    def start(self, event: Envelope) -> tuple[PenumbraState, tuple[LedgerEntry, ...]]:
        """Empty tableaux for the seated players; no entries (every category starts at 0). A
        game joined in progress starts from the declared tableaux (`domain.penumbra.join`).

        Raises:
            RuleViolation: `penumbra.setup.players` for more than 4 players; `penumbra.join.*`.
        """
        payload = event.payload
        assert isinstance(payload, PenumbraGameStarted)
        if len(payload.players) > MAX_PLAYERS:
            raise RuleViolation(
                "penumbra.setup.players",
                f"Penumbra seats 1-{MAX_PLAYERS} players, got {len(payload.players)}",
                "payload.players",
            )
        seats = tuple(p.player_id for p in sorted(payload.players, key=lambda p: p.seat))
        state = PenumbraState(payload.options, seats, {pid: Tableau() for pid in seats})
        if payload.joined_in_progress is None:
            return state, ()
        new = join.joined(state, payload.joined_in_progress)
        entries = ledger_changes(state, new, event)
        return new, join.joined_entries(entries, payload.joined_in_progress, event)

    def apply(
        self, state: PenumbraState, event: Envelope
    ) -> tuple[PenumbraState, tuple[LedgerEntry, ...]]:
        """Apply one in-play event: `handlers[type(event.payload)]`; entries are the changes of
        each affected category.

        Raises:
            RuleViolation: `penumbra.event.unknown_type`, or the handler's own rule (see
                `scored`, domain.penumbra.play / cards / turns).
        """
        handler = HANDLERS.get(type(event.payload))
        if handler is None:
            raise RuleViolation(
                "penumbra.event.unknown_type", f"{event.type} is not a Penumbra event", "type"
            )
        return handler(state, event, event.payload)

    handlers: Mapping[type[Payload], Handler[PenumbraState]] = HANDLERS
    """The handler of each in-play payload class, `apply`'s own table: `domain.fold.Folder`
    calls it directly (one call and two pydantic reads fewer an event)."""

    def end(
        self, state: PenumbraState, event: Envelope
    ) -> tuple[PenumbraState, tuple[LedgerEntry, ...]]:
        """Check the end condition; no entries, every category is already in the ledger.

        Raises:
            RuleViolation: `penumbra.end.no_prophecy`, `penumbra.end.final_turns_missing`.
        """
        turns.check_game_may_end(state)
        return state, ()

    def provisional(self, state: PenumbraState) -> Mapping[str, Mapping[str, int]]:
        """Empty: every category is scored live, so nothing waits for the end."""
        return {}

    def tie_break(self, state: PenumbraState, tied: list[str]) -> tuple[list[str], str]:
        """See `domain.penumbra.turns.tie_break` (default: a shared place, EC-24)."""
        return turns.tie_break(state, tied)

    def player_details(
        self, state: PenumbraState, player_id: str
    ) -> tuple[dict[str, int], list[tuple[str, str, int, str]]]:
        """Arcana in supply, experience symbols counted (rules line 13), Light and Dark obtained
        on completed Trials and fulfilled Contracts (lines 34-35); no per-card lines. Computed
        once per tableau, and then only the parts whose inputs changed since the tableau kept
        last (`_details_since`; most events change the Arcana alone)."""
        t = state.tableaux[player_id]
        options = state.options
        key = ("details", player_id)
        kept = state.memo.latest(key)
        if kept is not None and kept[0][1] is options:
            (t0, _), details = kept
            if t0 is t:
                return details  # type: ignore[no-any-return]
            details = _details_since(t, options, t0, details)
        else:
            details = _details(t, options)
        state.memo.put(key, (t, options), details)
        return details

    def player_inputs(
        self, state: PenumbraState, player_id: str
    ) -> tuple[tuple[object, ...], tuple[object, ...]]:
        """What `player_details` reads of one player (there is no provisional part): the
        tableau and the options, by identity (domain.standings keeps the line meanwhile)."""
        return (state.tableaux[player_id], state.options), ()

    def rank_key(self, state: PenumbraState, player_id: str) -> tuple[int, ...] | None:
        """See `domain.penumbra.turns.rank_key` (None: tied places stay shared)."""
        return turns.rank_key(state, player_id)


Details = tuple[dict[str, int], list[tuple[str, str, int, str]]]


def _details(t: Tableau, options: PenumbraOptions) -> Details:
    """`PenumbraRuleset.player_details` of one tableau, computed in full."""
    cards = t.trials + t.contracts
    resources = {
        "arcana": t.arcana,
        "experience": sum(experience_counts(t, options)),
        "light": sum(c.light for c in cards),
        "dark": sum(c.dark for c in cards),
    }
    return resources, []


def _details_since(t: Tableau, options: PenumbraOptions, t0: Tableau, kept: Details) -> Details:
    """`_details(t, options)` from `kept`, the details of `t0` (an earlier tableau of the player
    under the same options): the experience is counted again only when the cards or Tomes it
    reads were replaced, Light and Dark only when the Trials or Contracts were (a move replaces
    only the fields it changes, as `categories.card_vp_since` relies on)."""
    resources = kept[0].copy()
    resources["arcana"] = t.arcana
    cards = t.trials is t0.trials and t.contracts is t0.contracts
    if not (cards and t.reserved_contracts is t0.reserved_contracts and t.tomes is t0.tomes):
        resources["experience"] = sum(experience_counts(t, options))
    if not cards:
        both = t.trials + t.contracts
        resources["light"] = sum(c.light for c in both)
        resources["dark"] = sum(c.dark for c in both)
    return resources, []
