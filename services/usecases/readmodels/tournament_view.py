"""The tournament's summary as the doors answer it (`GET /tournaments/{id}` and every frame of
`/tournaments/{id}/live`): one shape from the folded state, so the JSON route and the live
stream cannot drift apart."""

from __future__ import annotations

from typing import Any

from contracts.tournament import ResultLine
from domain.tournament.state import TableState, TournamentState


def summary(state: TournamentState) -> dict[str, Any]:
    """`GET /tournaments/{id}`: settings, players (seed, from_round, dropped_after) and rounds
    (tables: players in seat order, reason, game_id, status, reported and approved results,
    `history`: every report, ruling, approval and dispute in order)."""
    return {
        "tournament_id": state.tournament_id,
        "seq": state.seq,
        "settings": state.settings.model_dump(mode="json"),
        "players": [
            {
                "player_id": p.player_id,
                "name": p.name,
                "seed": p.seed,
                "from_round": p.from_round,
                "dropped_after": p.dropped_after,
            }
            for p in state.players.values()
        ],
        "rounds": [
            {
                "round": r.number,
                "closed": r.closed,
                "byes": list(r.byes),
                "reason": r.reason,
                "tables": [_table(t) for t in r.tables.values()],
            }
            for r in state.rounds
        ],
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
