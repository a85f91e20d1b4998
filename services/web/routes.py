"""The web scoreboard's routes: the pages, their static files, and the replay and export APIs.

Pages (HTML, no build step): `/` games list, `/games/{id}` scoreboard (`?lang=en|ru`),
`/tv/{id}` the kiosk view of one game, `/tv` a kiosk cycling through the live games.
Games list API: `GET /board/games?page=&per_page=` (`services.web.board`).
Static files: `/static/...` (ES modules, CSS, the vendored Chart.js).
Replay APIs (the game's log folded with the pure domain, `services.web.replay`):
`GET /games/{id}/series`, `GET /games/{id}/timeline`, `GET /games/{id}/dispute/{event_id}`,
`GET /games/{id}/replay/ledger/{player_id}?at_seq=N` (a player's ledger after event N).
Exports (`services.exports`): `GET /games/{id}/export/scoresheet.csv`,
`GET /games/{id}/export/bgstats.json`, `GET /games/{id}/export/events.jsonl`.
Reads only; writes (voids, corrections) go through ingest `POST /games/{id}/events` with the
game's write token. Errors: 404 `game_not_found` / `event_not_found` (query error bodies).
Source: issue brief (web scoreboard, exports).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import FileResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles

from contracts.envelope import Envelope
from domain.fold import fold
from domain.standings import standings
from services.exports import NotAFinishedPlay, bgstats_link, bgstats_play, score_sheet_csv
from services.query.errors import QueryError
from services.query.models import LedgerResponse
from services.query.reader import QueryReader
from services.query.routes import reader
from services.query.views import ledger_view
from services.web import replay
from services.web.board import games_board
from services.web.settings import WebSettings

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


async def _page(name: str, game_id: str, db: QueryReader) -> FileResponse:
    """Page `name` for a stored game; the not-found page with HTTP 404 for an unknown one."""
    if await db.version(game_id) == 0:
        return FileResponse(STATIC / "notfound.html", status_code=404, media_type="text/html")
    return FileResponse(STATIC / name, media_type="text/html")


@router.get("/games/{game_id}", include_in_schema=False)
async def game_page(game_id: str, db: Reader) -> FileResponse:
    """The scoreboard page of one game (it reads the game id from its own URL); 404 page for
    an unknown game."""
    return await _page("game.html", game_id, db)


@router.get("/tv", include_in_schema=False)
async def tv_cycle_page() -> FileResponse:
    """The kiosk view cycling through the live games (`?every=` seconds per game)."""
    return FileResponse(STATIC / "tv.html", media_type="text/html")


@router.get("/tv/{game_id}", include_in_schema=False)
async def tv_page(game_id: str, db: Reader) -> FileResponse:
    """The kiosk view of one game: dark, full width, big totals, the last events in words."""
    return await _page("tv.html", game_id, db)


def _settings(request: Request) -> WebSettings:
    settings = getattr(request.app.state, "web_settings", None)
    return settings if isinstance(settings, WebSettings) else WebSettings()


@router.get("/board/games")
async def board_games(
    request: Request,
    db: Reader,
    page: Annotated[int, Query(ge=1, le=100_000)] = 1,
    per_page: Annotated[int, Query(ge=1, le=100)] = 20,
) -> dict[str, Any]:
    """One page of the games list with players, leader and score, turn, and status
    (`in_progress`, `final`, `pending`, or `stale`: no event for `SCORELEDGER_STALE_AFTER_S`)."""
    stale = _settings(request).stale_after_s
    return await games_board(db, datetime.now(UTC), stale, page, per_page)


@router.get("/static/{path:path}", include_in_schema=False)
async def static(path: str, request: Request) -> Response:
    """The pages' static files (Starlette's `StaticFiles`: safe paths, ETag, 404)."""
    return await _static_files.get_response(path, request.scope)


# --- replay APIs ---
@router.get("/games/{game_id}/series")
async def game_series(game_id: str, db: Reader) -> dict[str, Any]:
    """Each player's total (Fame / VP) after every event and at the end of every turn
    (`services.web.replay.series`); point N equals `/standings?at_seq=N`."""
    return replay.series(await _log(db, game_id))


@router.get("/games/{game_id}/timeline")
async def game_timeline(game_id: str, db: Reader) -> dict[str, Any]:
    """Every event with the points it moved per player, voids and corrections marked
    (`services.web.replay.timeline`)."""
    return replay.timeline(await _log(db, game_id))


@router.get("/games/{game_id}/dispute/{event_id}")
async def game_dispute(game_id: str, event_id: str, db: Reader) -> dict[str, Any]:
    """The standings with and without one event, side by side (`replay.compare_without`)."""
    try:
        return replay.compare_without(await _log(db, game_id), event_id, datetime.now(UTC))
    except LookupError as error:
        raise QueryError(404, "event_not_found", str(error), "event_id") from None


@router.get("/games/{game_id}/replay/ledger/{player_id}", response_model=LedgerResponse)
async def replay_ledger(
    game_id: str,
    player_id: str,
    db: Reader,
    at_seq: Annotated[int | None, Query(ge=1, description="after the first N events")] = None,
) -> LedgerResponse:
    """A player's ledger as it stood after event `at_seq` (the whole log without it), so the
    ledger panel agrees with the replayed standings."""
    version = await db.require_version(game_id)
    if at_seq is not None and at_seq > version:
        raise QueryError(404, "seq_not_found", f"game {game_id!r} has {version} events", "at_seq")
    state = fold(await db.events(game_id, 1, at_seq))
    if player_id not in {p.player_id for p in state.players}:
        raise QueryError(404, "player_not_found", f"no player {player_id!r}", "player_id")
    return ledger_view(state, player_id)


# --- exports ---
Tz = Annotated[str, Query(max_length=64, description="the table's IANA time zone")]


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise QueryError(422, "unknown_time_zone", f"no time zone {name!r}", "tz") from None


@router.get("/games/{game_id}/export/scoresheet.csv", response_class=PlainTextResponse)
async def export_score_sheet(
    game_id: str,
    db: Reader,
    lang: Literal["en", "ru"] = "en",
    tz: Tz = "UTC",
    bom: bool = False,
) -> Response:
    """The score sheet as CSV: labelled columns (`lang`), date (`tz`), status, winner, rank,
    player, a column per category, total; `bom=true` starts it with a UTF-8 BOM."""
    events = await _log(db, game_id)
    body = score_sheet_csv(standings(fold(events)), events, lang, _zone(tz), bom)
    return Response(
        body.encode("utf-8"),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{game_id}-scoresheet.csv"'},
    )


@router.get("/games/{game_id}/export/bgstats.json")
async def export_bgstats(
    game_id: str,
    db: Reader,
    tz: Tz = "UTC",
    location: Annotated[str | None, Query(max_length=100)] = None,
    in_progress: Annotated[bool, Query(description="export a game in progress, flagged")] = False,
) -> dict[str, Any]:
    """The play in BG Stats' push-plays import format (`play`) and the link that hands it to the
    app (`link`). 409 `game_not_final` for a game in progress unless `in_progress=true`."""
    events = await _log(db, game_id)
    result = standings(fold(events))
    try:
        play = bgstats_play(result, events, _zone(tz), location, in_progress)
    except NotAFinishedPlay as error:
        raise QueryError(409, "game_not_final", str(error), "in_progress") from None
    return {"play": play, "link": bgstats_link(play), "final": result.status == "final"}


@router.get("/games/{game_id}/export/events.jsonl")
async def export_events(game_id: str, db: Reader) -> Response:
    """The event log as JSONL, byte for byte as stored (what `scoreledger score` reads)."""
    await db.require_version(game_id)
    return Response(
        await db.store.export_jsonl(game_id),
        media_type="application/x-ndjson; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{game_id}.jsonl"'},
    )
