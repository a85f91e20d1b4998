"""The web scoreboard's routes: the pages, their static files, and the replay and export APIs.

Pages (HTML, no build step): `/` games list, `/games/{id}` scoreboard (`?lang=en|ru`),
`/tv/{id}` the kiosk view of one game, `/tv` a kiosk cycling through the live games; an unknown
game gets the not-found page with HTTP 404. `/games/{id}/qr.svg`: the QR code (SVG) of the
game's phone view, under `SCORELEDGER_PUBLIC_URL` or else the request's origin (`services.platform.qr`).
`/overlay/games/{id}`: a transparent, read-only overlay of the live standings for stream
software (`?theme=dark|light&scale=&lang=en|ru&rows=`).
Games list API: `GET /board/games?page=&per_page=` (`readmodels.board`).
Static files: `/static/...` (ES modules, CSS, the vendored Chart.js; `static_router`, mounted
after the features' pages so their own `/static/<feature>/...` come first). The pages are
templates on the shared layout (`services.doors.web.pages`, `templates/`).
Replay APIs (read models: `services.usecases.readmodels`):
`GET /games/{id}/series`, `GET /games/{id}/timeline`, `GET /games/{id}/dispute/{event_id}`,
`GET /games/{id}/replay/ledger/{player_id}?at_seq=N` (a player's ledger after event N).
Exports (`readmodels.exports`): `GET /games/{id}/export/scoresheet.csv`,
`GET /games/{id}/export/bgstats.json`, `GET /games/{id}/export/events.jsonl`.
Reads only; writes (voids, corrections) go through ingest `POST /games/{id}/events` with the
game's write token (forwarded there by `services.doors.web.forward` in a split deployment).
Errors: 404 `game_not_found` (also for the QR code of an unknown game) / `event_not_found` / `seq_not_found` / `player_not_found`,
409 `game_not_final`, 422 `unknown_time_zone`.
Source: issue brief (web scoreboard, exports); docs/integrating/http.md.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import PlainTextResponse, StreamingResponse
from fastapi.staticfiles import StaticFiles

from services.doors.asgi.replaylimits import client_of, replay_responses
from services.doors.web.pages import Pages
from services.platform.problems import ProblemResponse, problem, problem_responses
from services.platform.qr import phone_url, qr_response
from services.platform.settings import QuerySettings
from services.usecases.readmodels.board import games_board
from services.usecases.readmodels.errors import NotFound
from services.usecases.readmodels.exports import NotAFinishedPlay
from services.usecases.readmodels.reads import ReadModels
from services.usecases.readmodels.shapes import LedgerResponse

STATIC = Path(__file__).parent / "static"
_static_files = StaticFiles(directory=STATIC)
PAGES = Pages()
"""The games' pages (`templates/`)."""

Tz = Annotated[str, Query(max_length=64, description="the table's IANA time zone")]


class _Refused(Exception):
    """A web read refused with `status` and a problem (rule `export.<error>` (422 time zone, 409 not final)."""

    def __init__(self, status: int, error: str, message: str, field: str) -> None:
        super().__init__(message)
        self.item = problem(status, f"export.{error}", field, message)

    def response(self) -> ProblemResponse:
        return ProblemResponse(self.item)


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise _Refused(422, "unknown_time_zone", f"no time zone {name[:64]!r}", "tz") from None


def web_router(reads: ReadModels, settings: QuerySettings) -> APIRouter:
    """The pages, replay and export APIs, bound to the read models; `settings`
    gives the games list's `stale_after_s` (read per request)."""
    router = APIRouter(tags=["web"])
    _page_routes(router, reads)
    _game_extras_routes(router, reads, settings)
    _replay_routes(router, reads)
    _export_routes(router, reads)
    return router


async def _page(reads: ReadModels, name: str, game_id: str) -> Response:
    """Page `name` for a stored game; the not-found page with HTTP 404 for an unknown one."""
    if await reads.log.version(game_id) == 0:
        return PAGES.static("notfound.html", 404)
    return PAGES.static(name)


def _page_routes(router: APIRouter, reads: ReadModels) -> None:
    """The pages: the games list, a game's scoreboard, the kiosk views."""

    @router.get("/", include_in_schema=False)
    async def games_page() -> Response:
        """The games list page (live games first, links to each scoreboard)."""
        return PAGES.static("index.html")

    @router.get("/games/{game_id}", include_in_schema=False)
    async def game_page(game_id: str) -> Response:
        """The scoreboard page of one game (it reads the game id from its own URL)."""
        return await _page(reads, "game.html", game_id)

    @router.get("/tv", include_in_schema=False)
    async def tv_cycle_page() -> Response:
        """The kiosk view cycling through the live games (`?every=` seconds per game)."""
        return PAGES.static("tv.html")

    @router.get("/tv/{game_id}", include_in_schema=False)
    async def tv_page(game_id: str) -> Response:
        """The kiosk view of one game: dark, full width, big totals, the last events in words."""
        return await _page(reads, "tv.html", game_id)


def _game_extras_routes(router: APIRouter, reads: ReadModels, settings: QuerySettings) -> None:
    """A game's QR code and stream overlay and the games list API."""

    @router.get(
        "/games/{game_id}/qr.svg",
        response_class=Response,
        responses={200: {"content": {"image/svg+xml": {}}}, **problem_responses(400, 404, 503)},
    )
    async def game_qr(game_id: str, request: Request) -> Response:
        """The QR code (SVG, scalable) that opens the game's phone view `{base}/games/{id}`,
        `base` being `SCORELEDGER_PUBLIC_URL` when set, else the origin this request came to
        (the TV's); the URL is also in `X-QR-URL`. 404 `game_not_found`, 400 `qr.host` (a Host
        that is no host name), 503 `qr.busy`."""
        if await reads.log.version(game_id) == 0:
            raise NotFound("game_not_found", f"no game {game_id[:64]!r}", "game_id")
        # public_url read per request
        return await qr_response(settings.public_url, request, lambda b: phone_url(b, game_id))

    @router.get("/overlay/games/{game_id}", include_in_schema=False)
    async def overlay_page(game_id: str) -> Response:
        """The stream overlay of one game: transparent, read-only, live over the game's SSE;
        `?theme=dark|light&scale=&lang=en|ru&rows=` (services/doors/web/static/js/overlay.js)."""
        return await _page(reads, "overlay.html", game_id)

    @router.get("/board/games")
    async def board_games(
        page: Annotated[int, Query(ge=1, le=100_000)] = 1,
        per_page: Annotated[int, Query(ge=1, le=100)] = 20,
    ) -> dict[str, Any]:
        """One page of the games list with players, leader and score, turn, and status
        (`in_progress`, `final`, `pending`, or `stale`: no event for `SCORELEDGER_STALE_AFTER_S`)."""
        now = datetime.now(UTC)
        return await games_board(reads, now, settings.stale_after_s, page, per_page)


def static_router() -> APIRouter:
    """`GET /static/{path}`: the pages' shared static files (Starlette's `StaticFiles`: safe
    paths, ETag, 304, 404); mounted last, after each feature's own `/static/<feature>/`."""
    router = APIRouter(tags=["web"])

    @router.get("/static/{path:path}", include_in_schema=False)
    async def static(path: str, request: Request) -> Response:
        """The pages' static files."""
        return await _static_files.get_response(path, request.scope)

    return router


def _replay_routes(router: APIRouter, reads: ReadModels) -> None:
    """The replay APIs: series, timeline, dispute, a player's ledger at an event."""

    # The replays answer JSON rendered off the loop (O(n) bytes): passed through as they are.
    @router.get(
        "/games/{game_id}/series", response_model=dict[str, Any], responses=replay_responses()
    )
    async def game_series(request: Request, game_id: str) -> Response:
        """Each player's total (Fame / VP) after every event and at the end of every turn
        point N equals `/standings?at_seq=N`."""
        body = await reads.series(game_id, client=client_of(request))
        return Response(body, media_type="application/json")

    @router.get(
        "/games/{game_id}/timeline", response_model=dict[str, Any], responses=replay_responses()
    )
    async def game_timeline(request: Request, game_id: str) -> Response:
        """Every event with the points it moved per player, voids and corrections marked."""
        body = await reads.timeline(game_id, client=client_of(request))
        return Response(body, media_type="application/json")

    @router.get("/games/{game_id}/dispute/{event_id}", responses=replay_responses())
    async def game_dispute(request: Request, game_id: str, event_id: str) -> dict[str, Any]:
        """The standings with and without one event, side by side (`replay.compare_without`)."""
        now = datetime.now(UTC)
        return await reads.dispute(game_id, event_id, now, client=client_of(request))

    @router.get(
        "/games/{game_id}/replay/ledger/{player_id}",
        response_model=LedgerResponse,
        responses=replay_responses(),
    )
    async def replay_ledger(
        request: Request,
        game_id: str,
        player_id: str,
        at_seq: Annotated[int | None, Query(ge=1, description="after the first N events")] = None,
    ) -> LedgerResponse:
        """A player's ledger as it stood after event `at_seq` (the whole log without it), so the
        ledger panel agrees with the replayed standings."""
        return await reads.ledger_at(game_id, player_id, at_seq, client=client_of(request))


def _export_routes(router: APIRouter, reads: ReadModels) -> None:
    """The exports: score sheet CSV, BG Stats JSON, the event log as JSONL."""

    @router.get(
        "/games/{game_id}/export/scoresheet.csv",
        response_class=PlainTextResponse,
        responses=replay_responses(),
    )
    async def export_score_sheet(
        request: Request,
        game_id: str,
        lang: Literal["en", "ru"] = "en",
        tz: Tz = "UTC",
        bom: bool = False,
    ) -> Response:
        """The score sheet as CSV: labelled columns (`lang`), date (`tz`), status, winner, rank,
        player, a column per category, total; `bom=true` starts it with a UTF-8 BOM."""
        try:
            client = client_of(request)
            body = await reads.score_sheet(game_id, lang, _zone(tz), bom, client=client)
        except _Refused as refused:
            return refused.response()
        return Response(
            body.encode("utf-8"),
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{game_id}-scoresheet.csv"'},
        )

    @router.get(
        "/games/{game_id}/export/bgstats.json",
        response_model=None,
        responses=replay_responses(409),
    )
    async def export_bgstats(
        request: Request,
        game_id: str,
        tz: Tz = "UTC",
        location: Annotated[str | None, Query(max_length=100)] = None,
        in_progress: Annotated[
            bool, Query(description="export a game in progress, flagged")
        ] = False,
    ) -> dict[str, Any] | ProblemResponse:
        """The play in BG Stats' push-plays import format (`play`) and the link that hands it to
        the app (`link`). 409 `game_not_final` for a game in progress unless `in_progress=true`."""
        try:
            client = client_of(request)
            return await reads.bgstats(game_id, _zone(tz), location, in_progress, client=client)
        except _Refused as refused:
            return refused.response()
        except NotAFinishedPlay as error:
            return _Refused(409, "game_not_final", str(error), "in_progress").response()

    @router.get(
        "/games/{game_id}/export/events.jsonl",
        response_class=Response,
        responses={
            200: {"content": {"application/x-ndjson": {"schema": {"type": "string"}}}},
            **replay_responses(),
        },
    )
    async def export_events(request: Request, game_id: str) -> Response:
        """The event log as JSONL, byte for byte as stored (what `scoreledger score` reads),
        streamed in chunks, each in this client's turn of the replay queue."""
        return StreamingResponse(
            await reads.events_jsonl(game_id, client=client_of(request)),
            media_type="application/x-ndjson; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{game_id}.jsonl"'},
        )
