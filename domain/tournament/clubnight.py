"""The fold's rules for a club night's desk: check-in and the round's clock.

`tournament.player_checked_in`: a registered player who has not dropped, checked in once
(`tournament.checked_in` twice; `tournament.unknown_player`, `tournament.player_dropped`).
From the first check-in on, `TournamentState.active` seats only checked-in players and late
joiners. `tournament.round_timer_started`: only for the last seated round while it is open
(`tournament.timer_round`); a restart replaces the earlier start. Source:
docs/rules/tournaments.md#check-in and #round-timer.
"""

from __future__ import annotations

from contracts.tournament import PlayerCheckedIn, RoundTimerStarted, TournamentEnvelope
from domain.errors import RuleViolation
from domain.tournament.state import TournamentState


def check_in(state: TournamentState, p: PlayerCheckedIn, event: TournamentEnvelope) -> None:
    """Mark the player present (see the module doc for the rules).

    Raises:
        RuleViolation: `tournament.unknown_player`, `tournament.player_dropped`,
            `tournament.checked_in`.
    """
    player = state.players.get(p.player_id)
    if player is None:
        raise RuleViolation(
            "tournament.unknown_player", f"{p.player_id} is not registered", "payload.player_id"
        )
    if player.dropped:
        raise RuleViolation(
            "tournament.player_dropped", f"{p.player_id} dropped", "payload.player_id"
        )
    if player.checked_in:
        raise RuleViolation(
            "tournament.checked_in", f"{p.player_id} is checked in already", "payload.player_id"
        )
    player.checked_in = True
    state.check_in = True


def start_timer(state: TournamentState, p: RoundTimerStarted, event: TournamentEnvelope) -> None:
    """Start (or restart) the open round's clock at the event's `occurred_at`.

    Raises:
        RuleViolation: `tournament.timer_round` (not the last seated round, or it is closed).
    """
    current = state.current_round
    if current is None or current.number != p.round or current.closed:
        raise RuleViolation(
            "tournament.timer_round",
            f"round {p.round} is not the open round: only its clock runs",
            "payload.round",
        )
    current.timer_started_at = event.occurred_at
    current.timer_minutes = p.minutes
