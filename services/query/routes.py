"""The query endpoints: games, standings (projection or replay), audit log, ledger.

All read-only. Standings come from the projector's HASH; `?at_seq=N` folds the first N events
of the game's log with the pure domain instead (replay). Errors: 404 `game_not_found`,
`seq_not_found`, `player_not_found`; 503 `projection_pending` (the log exists, the projector has
not caught up). Source: issue brief (query service); research/tech.md §3.9.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request, Response

from domain.fold import fold
from domain.standings import standings
from services.adapters.redis.projections import QueryReader
from services.query.errors import QueryError
from services.query.models import (
    ErrorBody,
    EventsPage,
    GamesResponse,
    LedgerResponse,
    StandingsResponse,
)
from services.query.views import audit_events, ledger_view, standings_view, voids_by_target

router = APIRouter(tags=["query"])
NOT_FOUND = {404: {"model": ErrorBody, "description": "unknown game, seq or player"}}


async def reader(request: Request) -> QueryReader:  # async: no thread-pool hop per request
    """The app's `QueryReader` (built in `create_app`'s lifespan)."""
    return request.app.state.reader  # type: ignore[no-any-return]


Reader = Annotated[QueryReader, Depends(reader)]


@router.get("/games", response_model=GamesResponse)
async def list_games(db: Reader) -> GamesResponse:
    """Every game: id, game, status, projection seq, log version, updated_at; live games first."""
    return GamesResponse(games=await db.games())


@router.get(
    "/games/{game_id}/standings",
    response_model=StandingsResponse,
    responses={**NOT_FOUND, 503: {"model": ErrorBody, "description": "projection not built yet"}},
)
async def game_standings(
    game_id: str,
    db: Reader,
    at_seq: Annotated[
        int | None, Query(ge=1, description="replay: standings after the first N events")
    ] = None,
) -> StandingsResponse | Response:
    """The game's standings: players ranked (shared places), totals, EN/RU breakdown, the
    provisional "if the game ended now" part, the winner and tie-break in words, and the
    projection's seq and shard checkpoint. With `at_seq`, a replay of the log up to that seq."""
    if at_seq is not None:
        version = await db.require_version(game_id)
        if at_seq > version:
            raise QueryError(
                404,
                "seq_not_found",
                f"game {game_id!r} has {version} events; at_seq={at_seq}",
                "at_seq",
            )
        return standings_view(standings(fold(await db.events(game_id, 1, at_seq))), "replay")
    body = await db.standings_body(game_id)  # stored JSON, rendered once per change
    if body is None:
        await db.require_version(game_id)
        raise QueryError(
            503, "projection_pending", f"game {game_id!r} is stored but not projected yet; retry"
        )
    return Response(body, media_type="application/json")


@router.get("/games/{game_id}/events", response_model=EventsPage, responses=NOT_FOUND)
async def game_events(
    game_id: str,
    db: Reader,
    from_seq: Annotated[int, Query(ge=1)] = 1,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> EventsPage:
    """The audit log, paged by seq; voided events are marked with the seq of their void."""
    version = await db.require_version(game_id)
    log = await db.events(game_id)  # voids may come after the page: scan the whole log
    page = [e for e in log if from_seq <= e.seq < from_seq + limit]
    last = from_seq + limit - 1
    return EventsPage(
        game_id=game_id,
        version=version,
        from_seq=from_seq,
        limit=limit,
        next_from_seq=last + 1 if last < version else None,
        events=audit_events(page, voids_by_target(log)),
    )


@router.get(
    "/games/{game_id}/players/{player_id}/ledger",
    response_model=LedgerResponse,
    responses=NOT_FOUND,
)
async def player_ledger(game_id: str, player_id: str, db: Reader) -> LedgerResponse:
    """Every change of the player's Fame/VP/Coins/Shards/Arcana with the event that caused it
    (the log folded with the pure domain, so voided events contribute nothing)."""
    await db.require_version(game_id)
    state = fold(await db.events(game_id))
    if player_id not in {p.player_id for p in state.players}:
        raise QueryError(
            404, "player_not_found", f"no player {player_id!r} in game {game_id!r}", "player_id"
        )
    return ledger_view(state, player_id)
