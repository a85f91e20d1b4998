"""The web scoreboard's routes: the pages, their static files, and the replay and export APIs.

Pages (HTML, no build step): `/` games list, `/games/{id}` scoreboard (`?lang=en|ru`).
Static files: `/static/...` (ES modules, CSS, the vendored Chart.js).
Replay APIs (read models: `services.usecases.readmodels`):
`GET /games/{id}/series`, `GET /games/{id}/timeline`, `GET /games/{id}/dispute/{event_id}`.
Exports (read models, `services.usecases.readmodels.exports`): `GET /games/{id}/export/scoresheet.csv`,
`GET /games/{id}/export/bgstats.json`, `GET /games/{id}/export/events.jsonl`.
Reads only; writes (voids, corrections) go through ingest `POST /games/{id}/events` with the
game's write token. Errors: 404 `game_not_found` / `event_not_found` (query error bodies).
Source: issue brief (web scoreboard, exports).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import FileResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles

from services.usecases.readmodels.reads import ReadModels

STATIC = Path(__file__).parent / "static"
_static_files = StaticFiles(directory=STATIC)


def web_router(reads: ReadModels) -> APIRouter:
    """The pages, static files, replay and export APIs, bound to the read models."""
    router = APIRouter(tags=["web"])

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
    async def game_series(game_id: str) -> dict[str, Any]:
        """Each player's total (Fame / VP) after every event and at the end of every turn
        (`services.usecases.readmodels.replay.series`); point N equals `/standings?at_seq=N`."""
        return await reads.series(game_id)

    @router.get("/games/{game_id}/timeline")
    async def game_timeline(game_id: str) -> dict[str, Any]:
        """Every event with the points it moved per player, voids and corrections marked
        (`services.usecases.readmodels.replay.timeline`)."""
        return await reads.timeline(game_id)

    @router.get("/games/{game_id}/dispute/{event_id}")
    async def game_dispute(game_id: str, event_id: str) -> dict[str, Any]:
        """The standings with and without one event, side by side (`replay.compare_without`)."""
        return await reads.dispute(game_id, event_id, datetime.now(UTC))

    # --- exports ---
    @router.get("/games/{game_id}/export/scoresheet.csv", response_class=PlainTextResponse)
    async def export_score_sheet(game_id: str) -> Response:
        """The score sheet as CSV: one row per player, a column per category, total, rank."""
        return Response(
            await reads.score_sheet(game_id),
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{game_id}-scoresheet.csv"'},
        )

    @router.get("/games/{game_id}/export/bgstats.json")
    async def export_bgstats(game_id: str) -> dict[str, Any]:
        """The play in BG Stats' push-plays import format (`play`) and the link that hands it
        to the app (`link`)."""
        return await reads.bgstats(game_id)

    @router.get("/games/{game_id}/export/events.jsonl")
    async def export_events(game_id: str) -> Response:
        """The event log as JSONL, byte for byte as stored (what `scoreledger score` reads)."""
        return Response(
            await reads.events_jsonl(game_id),
            media_type="application/x-ndjson; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{game_id}.jsonl"'},
        )

    return router
