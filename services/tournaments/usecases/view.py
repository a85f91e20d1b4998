"""The tournament's summary as the doors answer it (`GET /tournaments/{id}` and every frame of
`/tournaments/{id}/live`): one shape from the folded state, so the JSON route and the live
stream cannot drift apart."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from contracts.tournament import ResultLine
from domain.tournament.standings import standings
from domain.tournament.state import RoundState, TableState, TournamentState


def summary(state: TournamentState) -> dict[str, Any]:
    """`GET /tournaments/{id}`: status (`upcoming`, `live`, `finished`), the winner once
    finished (`{player_id, name, points}`: first place of the standings, else None), settings,
    `check_in` (True once the desk checked anyone in: only the checked-in are seated), players
    (seed, from_round, dropped_after, checked_in) and rounds (`timer`: the round's clock,
    `{started_at, minutes, ends_at}` in ISO 8601 UTC, or None; tables: players in seat order,
    reason, game_id, status, reported and approved results, `history`: every report, ruling,
    approval and dispute in order)."""
    return {
        "tournament_id": state.tournament_id,
        "seq": state.seq,
        "status": state.status,
        "winner": winner(state),
        "settings": state.settings.model_dump(mode="json"),
        "check_in": state.check_in,
        "players": [
            {
                "player_id": p.player_id,
                "name": p.name,
                "seed": p.seed,
                "from_round": p.from_round,
                "dropped_after": p.dropped_after,
                "checked_in": p.checked_in,
            }
            for p in state.players.values()
        ],
        "rounds": [
            {
                "round": r.number,
                "closed": r.closed,
                "timer": _timer(r),
                "byes": list(r.byes),
                "reason": r.reason,
                "tables": [_table(t) for t in r.tables.values()],
            }
            for r in state.rounds
        ],
    }


def _timer(r: RoundState) -> dict[str, Any] | None:
    """The round's clock as the room screen counts it down (None: not started)."""
    if r.timer_started_at is None or r.timer_minutes is None:
        return None
    ends = r.timer_started_at + timedelta(minutes=r.timer_minutes)
    return {
        "started_at": r.timer_started_at.isoformat(),
        "minutes": r.timer_minutes,
        "ends_at": ends.isoformat(),
    }


def winner(state: TournamentState) -> dict[str, Any] | None:
    """The first place of a finished tournament's standings (places are unique: the seed
    breaks the last tie), points as the standings give them (4 decimals); None until finished."""
    if state.status != "finished" or not state.players:
        return None
    top = standings(state).lines[0]
    return {
        "player_id": top.player_id,
        "name": top.name,
        "points": round(float(top.points.value), 4),
    }


def _lines(results: tuple[ResultLine, ...] | None) -> list[dict[str, Any]] | None:
    return None if results is None else [r.model_dump(mode="json") for r in results]


def _table(t: TableState) -> dict[str, Any]:
    lines = _lines
    return {
        "table": t.number,
        "players": list(t.players),
        "reason": t.reason,
        "game_id": t.game_id,
        "status": t.status,
        "reported": lines(t.reported),
        "approved": lines(t.approved),
        "confirmed": list(t.confirmed),
        "disputes": list(t.disputes),
        "history": [
            {
                "seq": h.seq,
                "kind": h.kind,
                "by": h.by,
                "results": lines(h.results),
                "reason": h.reason,
            }
            for h in t.history
        ],
    }


def listing(states: list[TournamentState]) -> dict[str, list[dict[str, Any]]]:
    """`GET /tournaments`: the tournaments by status (`live`, `upcoming`, `finished`), each
    `{tournament_id, title, game, rounds, rounds_seated, players, status, winner}`, in the
    order given (newest first)."""
    out: dict[str, list[dict[str, Any]]] = {"live": [], "upcoming": [], "finished": []}
    for state in states:
        out[state.status].append(
            {
                "tournament_id": state.tournament_id,
                "title": state.settings.title,
                "game": state.settings.game,
                "rounds": state.settings.rounds,
                "rounds_seated": len(state.rounds),
                "players": len(state.players),
                "status": state.status,
                "winner": winner(state),
            }
        )
    return out
