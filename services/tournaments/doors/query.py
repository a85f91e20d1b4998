"""HTTP doors of the tournament reads, under `/tournaments` (served with the query role).

Read-only; each handler folds the tournament's stream through the use cases
(`services.tournaments.usecases.stream.Tournaments`: `state`, `standings`, replayed to `at_seq` when
given). Errors are problems: 404 `tournament.not_found`, 404 `tournament.seq_not_found` (an
`at_seq` past the stream's end), 422 `request.invalid`. Source: issue brief (tournament
doors: standings at any point, export CSV).
"""

from __future__ import annotations

import csv
import io
from typing import Annotated

from fastapi import APIRouter, Path
from fastapi.responses import JSONResponse, Response

from domain.tournament.standings import Standings, fixed
from domain.tournament.state import TournamentState
from services.doors.query.params import AtSeq
from services.platform.problems import ProblemResponse, problem, problem_responses
from services.tournaments.usecases.stream import Tournaments, UnknownTournament
from services.tournaments.usecases.view import summary

Tid = Annotated[str, Path(max_length=64, description="the tournament id")]
_FORMULA = ("=", "+", "-", "@", "\t", "\r")
"""A CSV cell starting with these is prefixed with `'` (spreadsheet formula injection)."""


def _cell(value: object) -> str:
    text = str(value)
    return "'" + text if text.startswith(_FORMULA) else text


def standings_csv(table: Standings, tie_breaks: tuple[str, ...]) -> str:
    """The standings as CSV: place, player_id, name, points, games, byes, one column per
    configured tie-break, decided_by, dropped, explain (points and tie-breaks with exactly 2
    decimals: `19.67`, never a float's tail)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    head = ["place", "player_id", "name", "points", "games", "byes"]
    writer.writerow([*head, *tie_breaks, "decided_by", "dropped", "explain"])
    for line in table.lines:
        figures = line.tie_breaks
        breaks = [fixed(figures[k].value) if k in figures else "" for k in tie_breaks]
        cells = [line.place, _cell(line.player_id), _cell(line.name), fixed(line.points.value)]
        tail = [line.decided_by or "", line.dropped, _cell(line.explain())]
        writer.writerow([*cells, line.games, line.byes, *breaks, *tail])
    return out.getvalue()


def _missing(error: UnknownTournament) -> ProblemResponse:
    return ProblemResponse(
        problem(404, "tournament.not_found", "tournament_id", "no such tournament")
    )


def _past_end(at_seq: int, seq: int) -> ProblemResponse:
    message = f"at_seq {at_seq} is past the tournament's last event ({seq})"
    return ProblemResponse(problem(404, "tournament.seq_not_found", "at_seq", message))


READ_ERRORS = problem_responses(404, 422)


def tournament_read_router(cases: Tournaments) -> APIRouter:
    """The tournament read doors, bound to the tournament use cases."""
    router = APIRouter(tags=["tournaments"])

    async def folded(tid: str, at_seq: int | None) -> TournamentState | ProblemResponse:
        try:
            state = await cases.state(tid, at_seq)
        except UnknownTournament as error:
            return _missing(error)
        if at_seq is not None and state.seq < at_seq:
            return _past_end(at_seq, state.seq)
        return state

    @router.get("/tournaments/{tournament_id}", response_model=None, responses=READ_ERRORS)
    async def get_tournament(
        tournament_id: Tid, at_seq: AtSeq = None
    ) -> JSONResponse | ProblemResponse:
        """The tournament: settings, players and rounds with their tables (after `at_seq`
        events when given)."""
        state = await folded(tournament_id, at_seq)
        if isinstance(state, ProblemResponse):
            return state
        return JSONResponse(summary(state))

    @router.get(
        "/tournaments/{tournament_id}/standings", response_model=None, responses=READ_ERRORS
    )
    async def tournament_standings(
        tournament_id: Tid, at_seq: AtSeq = None
    ) -> JSONResponse | ProblemResponse:
        """The standings now, or after the first `at_seq` events (a replay): each player's
        place, points and tie-breaks, each figure with its sources (round, table, game,
        opponent), why they stand there in words, and the tables held out (`held`: reported
        but unapproved, or disputed; never a seated table with no report)."""
        state = await folded(tournament_id, at_seq)
        if isinstance(state, ProblemResponse):
            return state
        return JSONResponse((await cases.standings(tournament_id, state.seq)).to_dict())

    @router.get(
        "/tournaments/{tournament_id}/standings.csv",
        response_model=None,
        responses={200: {"content": {"text/csv": {}}}, **READ_ERRORS},
    )
    async def get_standings_csv(
        tournament_id: Tid, at_seq: AtSeq = None
    ) -> Response | ProblemResponse:
        """The standings as CSV (one row per player, one column per configured tie-break)."""
        state = await folded(tournament_id, at_seq)
        if isinstance(state, ProblemResponse):
            return state
        table = await cases.standings(tournament_id, state.seq)
        body = standings_csv(table, tuple(state.settings.tie_breaks))
        headers = {"Content-Disposition": f'attachment; filename="{tournament_id}-standings.csv"'}
        return Response(body, media_type="text/csv; charset=utf-8", headers=headers)

    return router
