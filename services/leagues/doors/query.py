"""HTTP doors of the league reads, under `/leagues` (served with the query role): the league,
its standings and its rating history, each now or replayed to `at_seq`."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Path
from fastapi.responses import JSONResponse

from domain.league.fold import LeagueState
from domain.league.ratings import Rating
from services.doors.query.params import AtSeq
from services.leagues.usecases.stream import Leagues, UnknownLeague
from services.platform.problems import ProblemResponse, problem, problem_responses

Lid = Annotated[str, Path(max_length=64, description="the league id")]


def league_summary(state: LeagueState) -> dict[str, Any]:
    """`GET /leagues/{id}`: settings and additions in order (key, kind, source id, seq)."""
    return {
        "league_id": state.league_id,
        "seq": state.seq,
        "settings": state.settings.model_dump(mode="json"),
        "additions": [
            {"key": a.key, "kind": a.kind, "source_id": a.source_id, "seq": a.seq}
            for a in state.additions.values()
        ],
    }


def _with_rating(row: dict[str, Any], rating: Rating | None) -> dict[str, Any]:
    """`row` (a standings line) with the player's `rating` (its dict, or None: unrated)."""
    row["rating"] = rating.to_dict() if rating is not None else None
    return row


def league_read_router(leagues: Leagues) -> APIRouter:
    """The league read doors."""
    router = APIRouter(tags=["leagues"])
    errors = problem_responses(404, 422)

    async def folded(lid: str, at_seq: int | None) -> LeagueState | ProblemResponse:
        try:
            state = await leagues.state(lid, at_seq)
        except UnknownLeague:
            return ProblemResponse(problem(404, "league.not_found", "league_id", "no such league"))
        if at_seq is not None and state.seq < at_seq:
            message = f"at_seq {at_seq} is past the league's last event ({state.seq})"
            return ProblemResponse(problem(404, "league.seq_not_found", "at_seq", message))
        return state

    @router.get("/leagues/{league_id}", response_model=None, responses=errors)
    async def get_league(league_id: Lid, at_seq: AtSeq = None) -> JSONResponse | ProblemResponse:
        """The league: settings and additions (after `at_seq` events when given)."""
        state = await folded(league_id, at_seq)
        if isinstance(state, ProblemResponse):
            return state
        return JSONResponse(league_summary(state))

    @router.get("/leagues/{league_id}/standings", response_model=None, responses=errors)
    async def league_standings(
        league_id: Lid, at_seq: AtSeq = None
    ) -> JSONResponse | ProblemResponse:
        """The league table: each player's counted points (all or best N) and the additions
        behind them, each marked counted or not; with each player's rating now."""
        state = await folded(league_id, at_seq)
        if isinstance(state, ProblemResponse):
            return state
        lines = await leagues.standings(league_id, state.seq)
        _, ratings = await leagues.ratings(league_id, state.seq)
        players = [_with_rating(line.to_dict(), ratings.get(line.player_id)) for line in lines]
        return JSONResponse({"league_id": league_id, "seq": state.seq, "players": players})

    @router.get("/leagues/{league_id}/ratings", response_model=None, responses=errors)
    async def get_ratings(league_id: Lid, at_seq: AtSeq = None) -> JSONResponse | ProblemResponse:
        """The rating history: every rated game in order (addition, round, table, game)
        with each player's rating before and after (mu, sigma, ordinal = mu - 3 sigma), and
        the ratings after the last, best ordinal first."""
        state = await folded(league_id, at_seq)
        if isinstance(state, ProblemResponse):
            return state
        steps, ratings = await leagues.ratings(league_id, state.seq)
        board = sorted(ratings.items(), key=lambda kv: (-kv[1].ordinal, kv[0]))
        return JSONResponse(
            {
                "league_id": league_id,
                "seq": state.seq,
                "model": "openskill Plackett-Luce (mu 25, sigma 25/3)",
                "ratings": [{"player_id": pid, **r.to_dict()} for pid, r in board],
                "history": [s.to_dict() for s in steps],
            }
        )

    return router


def tournament_leagues_router(leagues: Leagues) -> APIRouter:
    """`GET /tournaments/{id}/leagues`: the leagues holding a tournament (from the index
    kept when a league adds one)."""
    router = APIRouter(tags=["leagues"])

    @router.get(
        "/tournaments/{tournament_id}/leagues",
        response_model=None,
        responses=problem_responses(404),
    )
    async def get_tournament_leagues(
        tournament_id: Annotated[str, Path(max_length=64, description="the tournament id")],
    ) -> JSONResponse | ProblemResponse:
        """The leagues that added the tournament: `{"tournament_id", "leagues": [{league_id,
        title, page}]}` by league id (`page`: the league page's path); [] for none. 404
        `tournament.not_found`: no such tournament."""
        if await leagues.tournaments.log.version(tournament_id) == 0:
            missing = problem(404, "tournament.not_found", "tournament_id", "no such tournament")
            return ProblemResponse(missing)
        found = await leagues.of_tournament(tournament_id)
        held = [
            {"league_id": lid, "title": title, "page": f"/leagues/{quote(lid, safe='')}/page"}
            for lid, title in found
        ]
        return JSONResponse({"tournament_id": tournament_id, "leagues": held})

    return router
