"""The query endpoints: games, standings (projection or replay), audit log, ledger.

Read-only; each handler calls one read model (`services.usecases.readmodels.reads`). Errors
are problems (`services.doors.asgi.http_errors`): 404 `read.game_not_found`, `read.seq_not_found`,
`read.player_not_found`; 503 `read.projection_pending` (the log exists, the projector has not
caught up). Source: issue brief (query service).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from starlette.types import Receive, Scope, Send

from services.doors.asgi.lean import JSON_HEADERS, LeanRoute, send_bytes
from services.doors.asgi.replaylimits import client_of, replay_responses
from services.platform.problems import problem_responses
from services.usecases.readmodels.reads import ReadModels
from services.usecases.readmodels.shapes import (
    MAX_GAMES_PAGE,
    EventsPage,
    GamesResponse,
    LedgerResponse,
    StandingsResponse,
)

NOT_FOUND = replay_responses(404, 422)
"""Unknown game, seq or player (`read.game_not_found`, ...); a bad query parameter; the replay
queue's limits (429 / 503 with Retry-After)."""


def lean_query_routes(reads: ReadModels) -> list[LeanRoute]:
    """`GET /games/{game_id}/standings` without a query string, served as raw ASGI: the body
    of `ReadModels.standings_body` as it is (bytes rendered once per stored value), with the
    headers FastAPI sent for it (content-length, content-type). Declared, and served with
    `?at_seq=`, by `game_standings` in `query_router`."""

    async def standings(scope: Scope, receive: Receive, send: Send) -> None:
        body = await reads.standings_body(scope["path_params"]["game_id"])
        await send_bytes(send, body, JSON_HEADERS)

    return [LeanRoute("/games/{game_id}/standings", standings, plain_only=True)]


def query_router(reads: ReadModels) -> APIRouter:
    """The query endpoints, bound to the read models."""
    router = APIRouter(tags=["query"])

    @router.get("/games", response_model=GamesResponse, responses=problem_responses(422))
    async def list_games(
        page: Annotated[int, Query(ge=1, le=1_000_000, description="1-based page")] = 1,
        limit: Annotated[int, Query(ge=1, le=MAX_GAMES_PAGE, description="games per page")] = 100,
    ) -> GamesResponse:
        """One page of the games (id, game, status, projection seq, log version, updated_at),
        live first, then finished ones by update, then archived ones by id; `next_page` names
        the following page, null on the last."""
        chosen, total = await reads.games_page(page, limit)
        return GamesResponse.of_page(chosen, page, limit, total)

    @router.get(
        "/games/{game_id}/standings",
        response_model=StandingsResponse,
        responses=replay_responses(404, 422),
    )
    async def game_standings(
        request: Request,
        game_id: str,
        at_seq: Annotated[
            int | None, Query(ge=1, description="replay: standings after the first N events")
        ] = None,
    ) -> StandingsResponse | Response:
        """The game's standings: players ranked (shared places), totals, EN/RU breakdown, the
        provisional "if the game ended now" part, the winner and tie-break in words, and the
        projection's seq and shard checkpoint. With `at_seq`, a replay of the log up to it."""
        # Reached with a query string only: `lean_query_routes` serves the plain GET.
        if at_seq is not None:
            return await reads.standings_at(game_id, at_seq, client=client_of(request))
        return Response(await reads.standings_body(game_id), media_type="application/json")

    @router.get("/games/{game_id}/events", response_model=EventsPage, responses=NOT_FOUND)
    async def game_events(
        request: Request,
        game_id: str,
        from_seq: Annotated[int, Query(ge=1)] = 1,
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    ) -> EventsPage:
        """The audit log, paged by seq; voided events are marked with the seq of their void."""
        return await reads.events_page(game_id, from_seq, limit, client=client_of(request))

    @router.get(
        "/games/{game_id}/players/{player_id}/ledger",
        response_model=LedgerResponse,
        responses=NOT_FOUND,
    )
    async def player_ledger(request: Request, game_id: str, player_id: str) -> LedgerResponse:
        """Every change of the player's Fame/VP/Coins/Shards/Arcana with the event that caused
        it (the log folded with the pure domain, so voided events contribute nothing)."""
        return await reads.ledger(game_id, player_id, client=client_of(request))

    return router
