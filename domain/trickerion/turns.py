"""Turns and the initiative track (common events `game.turn_started`, `game.initiative_changed`).

Initiative positions 1..N set the Advertise cost and the end-game tie-break
(docs/rules/trickerion.md#set-up, #advertise).
"""

from __future__ import annotations

from contracts.common import InitiativeChanged, TurnStarted
from domain.errors import RuleViolation
from domain.trickerion.categories import GAME_LENGTH
from domain.trickerion.state import TrickerionState
from domain.values import replace


def _checked_order(state: TrickerionState, order: tuple[str, ...]) -> tuple[str, ...]:
    if sorted(order) != sorted(state.books):
        raise RuleViolation(
            "trickerion.initiative.players",
            f"initiative order must list every player once, got {list(order)}",
            "payload.initiative_order",
        )
    return order


def turn_started(state: TrickerionState, payload: TurnStarted) -> TrickerionState:
    """Begin turn `payload.turn`: the next turn, at most the final one (7 with the Dark Alley,
    else 5; docs/rules/trickerion.md#game-length); the order, if given, becomes the track.

    Raises:
        RuleViolation: `trickerion.turn.order` (not the next turn) or
            `trickerion.turn.after_final_turn` naming `payload.turn`;
            `trickerion.initiative.players` naming `payload.initiative_order`.
    """
    if payload.turn > state.final_turn:
        raise RuleViolation(
            "trickerion.turn.after_final_turn",
            f"the game ends after turn {state.final_turn} ({GAME_LENGTH}); got turn {payload.turn}",
            "payload.turn",
        )
    if payload.turn != state.turn + 1:
        raise RuleViolation(
            "trickerion.turn.order",
            f"expected turn {state.turn + 1}, got {payload.turn}",
            "payload.turn",
        )
    order = state.initiative
    if payload.initiative_order is not None:
        order = _checked_order(state, payload.initiative_order)
    return replace(state, turn=payload.turn, initiative=order, performed=frozenset())


def initiative_changed(state: TrickerionState, payload: InitiativeChanged) -> TrickerionState:
    """The initiative track changes within a turn.

    Raises:
        RuleViolation: `trickerion.initiative.players` naming `payload.initiative_order`.
    """
    return replace(state, initiative=_checked_order(state, payload.initiative_order))


def require_turn(state: TrickerionState) -> None:
    """In-play events need a turn in progress.

    Raises:
        RuleViolation: `trickerion.turn.not_started` naming `type`.
    """
    if state.turn == 0:
        raise RuleViolation("trickerion.turn.not_started", "no turn has started yet", "type")
