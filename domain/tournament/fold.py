"""The pure fold of a tournament stream: `evolve(state, event) -> state`, `fold(events)`.

Each event is checked against the tournament's rules before it counts; a breach raises
`RuleViolation` (rule ids `tournament.*`, `log.*`) and leaves the state unchanged. Rules:
the stream starts with `tournament.created` (once); players register before round 1 is seated
and join late after; a round is seated only after the previous one closed, with every active
player (not dropped, joined by then) at exactly one table or given a bye, and no other; a
result names exactly the table's players with places 1..size consistent with scores not
required (places are the game's, tie-break included); a dispute holds the table out until a
judge approves; a judge's ruling (an approval giving `results`) is the table's result for
good: a later plain approval confirms the latest ruling, never the report it replaced, and a
new report after a ruling is refused (`tournament.ruling_stands`, checked by `admit` on
appends only, so a stored stream holding one still folds, the ruling standing); a round closes
only when every table is approved. After a round closed, a
judge may still approve a new result for a table or dispute it (a referee's void or correction
in the table's game changes its result after the round). Judges are appointed once and
dismissed only while in office (at most 20).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from contracts.tournament import (
    JudgeAppointed,
    JudgeDismissed,
    PlayerCheckedIn,
    PlayerDropped,
    PlayerJoinedLate,
    PlayerRegistered,
    ResultLine,
    RoundClosed,
    RoundSeated,
    RoundTimerStarted,
    TableResultApproved,
    TableResultConfirmed,
    TableResultDisputed,
    TableResultReported,
    TournamentCreated,
    TournamentEnvelope,
)
from domain.errors import RuleViolation
from domain.stream import StreamFold
from domain.tournament.clubnight import check_in, start_timer
from domain.tournament.state import (
    Registrant,
    RoundState,
    TableEntry,
    TableState,
    TournamentState,
)


def evolve(state: TournamentState | None, event: TournamentEnvelope) -> TournamentState:
    """The state after `event` (a new object; `state` is unchanged).

    Raises:
        RuleViolation: the event breaks a rule (see the module doc).
    """
    return _FOLD.apply(copy.deepcopy(state), event)


def admit(state: TournamentState | None, event: TournamentEnvelope) -> TournamentState:
    """`evolve` for an event about to be appended: also applies the rules added after streams
    were stored, which a replay does not (a stored stream still folds). Such rules:
    `tournament.ruling_stands`, a report for a table a judge ruled on (only a new ruling
    changes its result; docs/tournament-rules.md).

    Raises:
        RuleViolation: the event breaks a rule.
    """
    p = event.payload
    if state is not None and isinstance(p, TableResultReported):
        rnd = state.rounds[p.round - 1] if 1 <= p.round <= len(state.rounds) else None
        table = rnd.tables.get(p.table) if rnd is not None else None
        if table is not None and table.ruling is not None and table.status != "approved":
            raise RuleViolation(
                "tournament.ruling_stands",
                "a judge ruled on the table: only a new ruling (approve with results) changes it",
                "payload.results",
            )
    return evolve(state, event)


def _start(event: TournamentEnvelope) -> TournamentState:
    if not isinstance(event.payload, TournamentCreated):  # the skeleton checked it first
        raise RuleViolation("tournament.not_created", "the first event must be created", "type")
    return TournamentState(event.tournament_id, event.payload, 1)


def _step(state: TournamentState, event: TournamentEnvelope) -> None:
    payload = event.payload
    handler = _HANDLERS.get(type(payload))
    if handler is None:
        raise RuleViolation("tournament.already_created", "the tournament exists", "type")
    handler(state, payload, event)


def _register(state: TournamentState, p: PlayerRegistered, event: TournamentEnvelope) -> None:
    if state.rounds:
        raise RuleViolation(
            "tournament.registration_closed",
            "round 1 is seated: a new player joins late (tournament.player_joined_late)",
            "type",
        )
    _new_player(state, p.player_id, p.name, p.seed, 1)


def _join_late(state: TournamentState, p: PlayerJoinedLate, event: TournamentEnvelope) -> None:
    if not state.rounds:
        raise RuleViolation(
            "tournament.not_started",
            "no round is seated yet: register the player (tournament.player_registered)",
            "type",
        )
    _new_player(state, p.player_id, p.name, None, len(state.rounds) + 1)


def _new_player(state: TournamentState, pid: str, name: str, seed: int | None, start: int) -> None:
    if pid in state.players:
        raise RuleViolation("tournament.player_exists", f"{pid} is registered", "payload.player_id")
    if len(state.players) >= 1000:
        raise RuleViolation("tournament.too_many_players", "at most 1000 players", "payload")
    state.players[pid] = Registrant(pid, name, seed, len(state.players), start)


def _drop(state: TournamentState, p: PlayerDropped, event: TournamentEnvelope) -> None:
    player = _player(state, p.player_id)
    if player.dropped:
        raise RuleViolation(
            "tournament.player_dropped", f"{p.player_id} dropped already", "payload.player_id"
        )
    player.dropped_after = len(state.rounds)


def _player(state: TournamentState, pid: str) -> Registrant:
    if pid not in state.players:
        raise RuleViolation(
            "tournament.unknown_player", f"{pid} is not registered", "payload.player_id"
        )
    return state.players[pid]


def _seat(state: TournamentState, p: RoundSeated, event: TournamentEnvelope) -> None:
    expected = len(state.rounds) + 1
    if p.round != expected:
        raise RuleViolation(
            "tournament.round_order", f"the next round is {expected}", "payload.round"
        )
    if state.rounds and not state.rounds[-1].closed:
        raise RuleViolation(
            "tournament.round_open",
            f"round {state.rounds[-1].number} is not closed",
            "payload.round",
        )
    if p.round > state.settings.rounds:
        raise RuleViolation(
            "tournament.rounds_done",
            f"the tournament has {state.settings.rounds} rounds",
            "payload.round",
        )
    numbers = [t.number for t in p.tables]
    if numbers != list(range(1, len(numbers) + 1)):
        raise RuleViolation(
            "tournament.table_numbers", "tables are numbered 1..N in order", "payload.tables"
        )
    seated = [pid for t in p.tables for pid in t.players] + list(p.byes)
    active = {r.player_id for r in state.active(p.round)}
    if len(seated) != len(set(seated)) or set(seated) != active:
        missing, extra = sorted(active - set(seated)), sorted(set(seated) - active)
        raise RuleViolation(
            "tournament.seating_players",
            "every active player sits exactly once and nobody else "
            f"(missing {missing}, not active {extra}, or someone twice)",
            "payload.tables",
        )
    if any(len(t.players) == 5 for t in p.tables) and state.settings.remainder != "fives":
        raise RuleViolation(
            "tournament.five_table", "5-player tables are not configured", "payload.tables"
        )
    if p.byes and state.settings.remainder != "byes":
        raise RuleViolation("tournament.bye", "byes are not configured", "payload.byes")
    tables = {
        t.number: TableState(p.round, t.number, t.players, t.reason, t.game_id) for t in p.tables
    }
    state.rounds.append(RoundState(p.round, tables, p.byes, p.reason, False, event.occurred_at))


def _table(
    state: TournamentState, round_number: int, number: int, closed_ok: bool = False
) -> TableState:
    if not 1 <= round_number <= len(state.rounds):
        raise RuleViolation(
            "tournament.unknown_round", f"round {round_number} is not seated", "payload.round"
        )
    rnd = state.rounds[round_number - 1]
    if number not in rnd.tables:
        raise RuleViolation(
            "tournament.unknown_table",
            f"round {round_number} has no table {number}",
            "payload.table",
        )
    if rnd.closed and not closed_ok:
        raise RuleViolation(
            "tournament.round_closed", f"round {round_number} is closed", "payload.round"
        )
    return rnd.tables[number]


def _check_results(table: TableState, results: tuple[ResultLine, ...], field: str) -> None:
    ids = [r.player_id for r in results]
    if sorted(ids) != sorted(table.players):
        raise RuleViolation(
            "tournament.result_players",
            f"the result must name the table's players {list(table.players)}",
            field,
        )
    places = sorted(r.place for r in results)
    # Competition places: tied players share a place and the next place skips (1, 1, 3, 4).
    for i, place in enumerate(places):
        if place != (places[i - 1] if i and places[i - 1] == place else i + 1):
            raise RuleViolation(
                "tournament.result_places",
                f"places {places} are not 1..{len(places)} with shared places",
                field,
            )


def _report(state: TournamentState, p: TableResultReported, event: TournamentEnvelope) -> None:
    table = _table(state, p.round, p.table)
    if table.status == "approved":
        raise RuleViolation(
            "tournament.result_approved", "the table's result is approved already", "payload.table"
        )
    _check_results(table, p.results, "payload.results")
    table.history.append(TableEntry(event.seq, "reported", p.reported_by, p.results))
    table.reported, table.reported_seq = p.results, event.seq
    table.reported_at = event.occurred_at
    table.confirmed = []
    if table.status == "seated":
        table.status = "reported"


def _confirm(state: TournamentState, p: TableResultConfirmed, event: TournamentEnvelope) -> None:
    table = _table(state, p.round, p.table)
    if table.reported is None:
        raise RuleViolation(
            "tournament.no_result", "nothing is reported for the table", "payload.table"
        )
    if p.player_id not in table.players:
        raise RuleViolation(
            "tournament.not_at_table", f"{p.player_id} is not at the table", "payload.player_id"
        )
    if p.player_id not in table.confirmed:
        table.confirmed.append(p.player_id)


def _dispute(state: TournamentState, p: TableResultDisputed, event: TournamentEnvelope) -> None:
    # After the round closed too: a referee reopening the table's game holds it out again.
    table = _table(state, p.round, p.table, closed_ok=True)
    table.status = "disputed"
    table.approved = table.approved_seq = None
    table.disputes.append(f"{p.by}: {p.reason}")
    table.history.append(TableEntry(event.seq, "disputed", p.by, reason=p.reason))


def _approve(state: TournamentState, p: TableResultApproved, event: TournamentEnvelope) -> None:
    # After the round closed too: a judge's ruling (e.g. after a void in the table's game).
    table = _table(state, p.round, p.table, closed_ok=True)
    # The latest ruling stands: a plain approval confirms it, never the report it replaced.
    results = p.results or table.ruling or table.reported
    if results is None:
        raise RuleViolation(
            "tournament.no_result",
            "nothing is reported: the judge gives the results",
            "payload.results",
        )
    _check_results(table, results, "payload.results")
    if p.results is not None:
        table.ruling = p.results
    table.history.append(
        TableEntry(event.seq, "approved" if p.results is None else "ruled", p.judge, p.results)
    )
    table.approved, table.approved_seq, table.status = results, event.seq, "approved"


def _close(state: TournamentState, p: RoundClosed, event: TournamentEnvelope) -> None:
    if not state.rounds or p.round != state.rounds[-1].number or state.rounds[-1].closed:
        raise RuleViolation(
            "tournament.round_order", "only the current round closes, once", "payload.round"
        )
    pending = [n for n, t in state.rounds[-1].tables.items() if t.status != "approved"]
    if pending:
        raise RuleViolation(
            "tournament.tables_unapproved",
            f"tables {pending} have no approved result",
            "payload.round",
        )
    state.rounds[-1].closed = True


def _appoint(state: TournamentState, p: JudgeAppointed, event: TournamentEnvelope) -> None:
    if p.judge_id in state.judges:
        raise RuleViolation(
            "tournament.judge_exists", f"{p.judge_id} is a judge already", "payload.judge_id"
        )
    if len(state.judges) >= 20:
        raise RuleViolation("tournament.too_many_judges", "at most 20 judges", "payload")
    state.judges[p.judge_id] = p.name


def _dismiss(state: TournamentState, p: JudgeDismissed, event: TournamentEnvelope) -> None:
    if state.judges.pop(p.judge_id, None) is None:
        raise RuleViolation(
            "tournament.unknown_judge", f"{p.judge_id} is not a judge", "payload.judge_id"
        )
    state.dismissed_judges.add(p.judge_id)


_HANDLERS: dict[type, Callable[[TournamentState, Any, TournamentEnvelope], None]] = {
    PlayerRegistered: _register,
    PlayerJoinedLate: _join_late,
    PlayerDropped: _drop,
    RoundSeated: _seat,
    TableResultReported: _report,
    TableResultConfirmed: _confirm,
    TableResultDisputed: _dispute,
    TableResultApproved: _approve,
    RoundClosed: _close,
    JudgeAppointed: _appoint,
    JudgeDismissed: _dismiss,
    PlayerCheckedIn: check_in,
    RoundTimerStarted: start_timer,
}

_FOLD: StreamFold[TournamentEnvelope, TournamentState] = StreamFold(
    "tournament", TournamentCreated, _start, _step
)
"""The tournament's fold: the stream skeleton (`domain.stream`) with its own rules."""
fold = _FOLD.fold
"""Fold a tournament's events from the first, stopping after `upto_seq` when given
(`StreamFold.fold`; raises RuleViolation, `log.empty` for no events)."""
