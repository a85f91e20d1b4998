"""Turns, the Prophecy, the final turns, the game's end and the tie-break.

docs/rules/penumbra.md#end-of-game: scoring happens when one Prophecy's condition has
triggered and then every player has taken one more turn. docs/rules/penumbra.md#end-of-game,
EC-20 (a second Prophecy changes nothing), EC-24 (ties share a place by default).
"""

from __future__ import annotations

from contracts.common import InitiativeChanged, TurnStarted
from contracts.penumbra import FinalTurnTaken, ProphecyTriggered
from domain.errors import RuleViolation
from domain.penumbra.categories import TIE_BREAK
from domain.penumbra.play import tableau_of
from domain.penumbra.state import PenumbraState, Prophecy, changed
from domain.values import replace


def _check_players(state: PenumbraState, order: tuple[str, ...], field: str) -> None:
    unknown = [pid for pid in order if pid not in state.tableaux]
    if unknown:
        raise RuleViolation(
            "penumbra.player.unknown", f"no player(s) {unknown} in this game", field
        )


def turn_started(state: PenumbraState, p: TurnStarted) -> PenumbraState:
    """A new round. Raises `penumbra.turn.order` unless the turn number grows."""
    f = p.__dict__  # the payload's fields, each read once (a pydantic attribute read is slow)
    turn = f["turn"]
    if turn <= state.turn:
        raise RuleViolation(
            "penumbra.turn.order",
            f"turn {turn} does not follow turn {state.turn}",
            "payload.turn",
        )
    _check_players(state, f["initiative_order"] or (), "payload.initiative_order")
    return changed(state, "turn", turn)


def initiative_changed(state: PenumbraState, p: InitiativeChanged) -> PenumbraState:
    """No score effect in Penumbra; the player ids are checked."""
    _check_players(state, p.initiative_order, "payload.initiative_order")
    return state


def prophecy_triggered(state: PenumbraState, p: ProphecyTriggered) -> PenumbraState:
    """Open the final lap (rules line 1). A later trigger is accepted and ignored (EC-20)."""
    _check_players(state, (p.by_player,), "payload.by_player")
    if state.prophecy is not None:
        return state
    return replace(state, prophecy=Prophecy(p.prophecy_id, p.by_player, state.turn))


def final_turn_taken(state: PenumbraState, p: FinalTurnTaken) -> PenumbraState:
    """The player's one more turn after the Prophecy is done. Raises
    `penumbra.final_turn.before_prophecy`, `penumbra.final_turn.twice`."""
    t = tableau_of(state, p.player_id)
    if state.prophecy is None:
        raise RuleViolation(
            "penumbra.final_turn.before_prophecy", "no Prophecy has triggered yet", "type"
        )
    if t.final_turn_taken:
        raise RuleViolation(
            "penumbra.final_turn.twice",
            f"{p.player_id} already took the final turn",
            "payload.player_id",
        )
    return state.with_tableau(p.player_id, replace(t, final_turn_taken=True))


def all_final_turns_taken(state: PenumbraState) -> bool:
    """Whether a Prophecy triggered and every player has taken the one more turn."""
    return state.prophecy is not None and all(t.final_turn_taken for t in state.tableaux.values())


def check_game_may_end(state: PenumbraState) -> None:
    """`game.ended` is valid only after a Prophecy and every player's final turn (line 1).

    Raises:
        RuleViolation: `penumbra.end.no_prophecy` or `penumbra.end.final_turns_missing`.
    """
    if state.prophecy is None:
        raise RuleViolation(
            "penumbra.end.no_prophecy", "the game ends only after a Prophecy has triggered", "type"
        )
    missing = [pid for pid in state.seats if not state.tableaux[pid].final_turn_taken]
    if missing:
        raise RuleViolation(
            "penumbra.end.final_turns_missing",
            f"still owed one more turn after the Prophecy: {', '.join(missing)}",
            "type",
        )


def tie_break(state: PenumbraState, tied: list[str]) -> tuple[list[str], str]:
    """Players tied on total VP -> (winners, explanation) by `options.tie_break`.

    `shared` (the default; docs/rules/penumbra.md#winner): all tied players share the place. `fewer_wounds_then_arcana`:
    fewest Mortal Wounds, then most Arcana; a tie on both still shares the place.
    """
    if state.options.tie_break == "shared":
        return list(tied), f"shared place: the rules give no tie-break ({TIE_BREAK})"

    def key(pid: str) -> tuple[int, int]:
        t = state.tableaux[pid]
        return (len(t.wounds), -t.arcana)

    best = min(key(pid) for pid in tied)
    winners = [pid for pid in tied if key(pid) == best]
    return (
        winners,
        "tie-break: fewer Mortal Wounds, then more Arcana (option fewer_wounds_then_arcana)",
    )


def rank_key(state: PenumbraState, player_id: str) -> tuple[int, ...] | None:
    """The tie-break as a sort key for ranks (fewer Mortal Wounds, then more Arcana) when
    `tie_break_ranks` is "ordered" and `tie_break` orders anything; else None (shared, EC-24)."""
    opts = state.options
    if opts.tie_break_ranks != "ordered" or opts.tie_break == "shared":
        return None
    t = state.tableaux[player_id]
    return (len(t.wounds), -t.arcana)
