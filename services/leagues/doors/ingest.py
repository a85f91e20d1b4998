"""HTTP doors of the league writes, under `/leagues` (served with the ingest role): create a
league, add a tournament, add a single game. The organiser token (`Authorization: Bearer`) is
checked first, the body read only after; refusals are the tournaments' problems (401, 403,
404 `league.not_found`, 409, 422 naming the rule)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict

from contracts.envelope import GameId
from contracts.league import LeagueCreated, LeagueId
from contracts.tournament import TournamentId
from domain.league.fold import LeagueState
from services.doors.ingest.stream_writes import (
    Bearer,
    Key,
    StreamDoor,
    body,
)
from services.leagues.usecases.stream import Leagues, UnknownLeague
from services.platform.problems import ProblemResponse, problem_responses

Lid = Annotated[str, Path(max_length=64, description="the league id")]


class NewLeague(LeagueCreated):
    """`POST /leagues`: the league id and its settings (`league.created`)."""

    league_id: LeagueId


class AddTournament(BaseModel):
    """`POST /leagues/{id}/tournaments`: the tournament to add (again: replace)."""

    model_config = ConfigDict(extra="forbid")
    tournament_id: TournamentId


class AddGame(BaseModel):
    """`POST /leagues/{id}/games`: the single game to add (again: replace)."""

    model_config = ConfigDict(extra="forbid")
    game_id: GameId


_DOOR = StreamDoor("league_id", UnknownLeague, "league.not_found")


def league_write_router(leagues: Leagues) -> APIRouter:
    """The league write doors."""
    router = APIRouter(tags=["leagues"])
    errors = problem_responses(401, 403, 404, 409, 413, 422)

    @router.post(
        "/leagues",
        status_code=201,
        summary="Create a league",
        response_model=None,
        openapi_extra={"requestBody": body(NewLeague), "security": [{}]},
        responses=problem_responses(401, 403, 409, 413, 422),
    )
    async def create_league(
        request: Request, bearer: Bearer, idempotency_key: Key = None
    ) -> JSONResponse | ProblemResponse:
        """Create the league (`league.created`); the organiser token as for tournaments
        (chosen, or generated and returned once as `organiser_token`)."""
        new = (NewLeague, LeagueCreated)
        return await _DOOR.create(
            request, bearer, idempotency_key, new, leagues.may_create, leagues.create
        )

    @router.post(
        "/leagues/{league_id}/tournaments",
        summary="Add a tournament to a league (again: replace its results)",
        response_model=None,
        openapi_extra={"requestBody": body(AddTournament)},
        responses=errors,
    )
    async def add_tournament(
        league_id: Lid, request: Request, bearer: Bearer, idempotency_key: Key = None
    ) -> JSONResponse | ProblemResponse:
        """`league.tournament_added`: the tournament's points and approved tables as now."""
        target = (league_id, request, bearer, idempotency_key)

        async def add(credential: str, new: AddTournament, key: str | None) -> LeagueState:
            return await leagues.add_tournament(league_id, credential, new.tournament_id, key)

        return await _DOOR.append(target, leagues.authorize, AddTournament, add)

    @router.post(
        "/leagues/{league_id}/games",
        summary="Add a single game to a league (again: replace its results)",
        response_model=None,
        openapi_extra={"requestBody": body(AddGame)},
        responses=errors,
    )
    async def add_game(
        league_id: Lid, request: Request, bearer: Bearer, idempotency_key: Key = None
    ) -> JSONResponse | ProblemResponse:
        """`league.game_added`: the final game's places (tie-break included) and scores."""
        target = (league_id, request, bearer, idempotency_key)

        async def add(credential: str, new: AddGame, key: str | None) -> LeagueState:
            return await leagues.add_game(league_id, credential, new.game_id, key)

        return await _DOOR.append(target, leagues.authorize, AddGame, add)

    return router
