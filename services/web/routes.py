"""The web scoreboard's routes: the pages, their static files, and the replay and export APIs.

Pages (HTML, no build step): `/` games list, `/games/{id}` scoreboard (`?lang=en|ru`).
Static files: `/static/...` (ES modules, CSS, the vendored Chart.js).
Replay APIs (the game's log folded with the pure domain, `services.usecases.readmodels.replay`):
`GET /games/{id}/series`, `GET /games/{id}/timeline`, `GET /games/{id}/dispute/{event_id}`.
Exports (`services.usecases.readmodels.exports`): `GET /games/{id}/export/scoresheet.csv`,
`GET /games/{id}/export/bgstats.json`, `GET /games/{id}/export/events.jsonl`.
Reads only; writes (voids, corrections) go through ingest `POST /games/{id}/events` with the
game's write token. Errors: 404 `game_not_found` / `event_not_found` (query error bodies).
Source: issue brief (web scoreboard, exports).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import FileResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles

from contracts.envelope import Envelope
from domain.fold import fold
from domain.standings import standings
from services.adapters.redis.projections import QueryReader
from services.query.errors import QueryError
from services.query.routes import reader
from services.usecases.readmodels import replay
from services.usecases.readmodels.exports import bgstats_link, bgstats_play, score_sheet_csv

STATIC = Path(__file__).parent / "static"
_static_files = StaticFiles(directory=STATIC)

router = APIRouter(tags=["web"])
Reader = Annotated[QueryReader, Depends(reader)]


async def _log(db: QueryReader, game_id: str) -> list[Envelope]:
    """The game's whole log (raises `GameNotFound` -> 404 for a game with no events)."""
    await db.require_version(game_id)
    return await db.events(game_id)


# --- pages ---
@router.get("/", include_in_schema=False)
async def games_page() -> FileResponse:
    """The games list page (live games first, links to each scoreboard)."""
    return FileResponse(STATIC / "index.html", media_type="text/html")


@router.get("/games/{game_id}", include_in_schema=False)
async def game_page(game_id: str) -> FileResponse:
    """The scoreboard page of one game (it reads the game id from its own URL)."""
    return FileResponse(STATIC / "game.html", media_type="text/html")


@router.get("/static/{path:path}", include_in_schema=False)
async def static(path: str, request: Request) -> Response:
    """The pages' static files (Starlette's `StaticFiles`: safe paths, ETag, 404)."""
    return await _static_files.get_response(path, request.scope)


# --- replay APIs ---
@router.get("/games/{game_id}/series")
async def game_series(game_id: str, db: Reader) -> dict[str, Any]:
    """Each player's total (Fame / VP) after every event and at the end of every turn
    (`services.usecases.readmodels.replay.series`); point N equals `/standings?at_seq=N`."""
    return replay.series(await _log(db, game_id))


@router.get("/games/{game_id}/timeline")
async def game_timeline(game_id: str, db: Reader) -> dict[str, Any]:
    """Every event with the points it moved per player, voids and corrections marked
    (`services.usecases.readmodels.replay.timeline`)."""
    return replay.timeline(await _log(db, game_id))


@router.get("/games/{game_id}/dispute/{event_id}")
async def game_dispute(game_id: str, event_id: str, db: Reader) -> dict[str, Any]:
    """The standings with and without one event, side by side (`replay.compare_without`)."""
    try:
        return replay.compare_without(await _log(db, game_id), event_id, datetime.now(UTC))
    except LookupError as error:
        raise QueryError(404, "event_not_found", str(error), "event_id") from None


# --- exports ---
@router.get("/games/{game_id}/export/scoresheet.csv", response_class=PlainTextResponse)
async def export_score_sheet(game_id: str, db: Reader) -> Response:
    """The score sheet as CSV: one row per player, a column per category, total, rank."""
    body = score_sheet_csv(standings(fold(await _log(db, game_id))))
    return Response(
        body,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{game_id}-scoresheet.csv"'},
    )


@router.get("/games/{game_id}/export/bgstats.json")
async def export_bgstats(game_id: str, db: Reader) -> dict[str, Any]:
    """The play in BG Stats' push-plays import format (`play`) and the link that hands it to the
    app (`link`)."""
    events = await _log(db, game_id)
    play = bgstats_play(standings(fold(events)), events)
    return {"play": play, "link": bgstats_link(play)}


@router.get("/games/{game_id}/export/events.jsonl")
async def export_events(game_id: str, db: Reader) -> Response:
    """The event log as JSONL, byte for byte as stored (what `scoreledger score` reads)."""
    await db.require_version(game_id)
    return Response(
        await db.store.export_jsonl(game_id),
        media_type="application/x-ndjson; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{game_id}.jsonl"'},
    )
