"""The tournament pages (HTML, no build step) and the room screen's QR code.

`/tv/tournaments/{id}`: the room screen (round, tables with their players and the live leader
of each table's game, standings, a QR code to the phone view), live over
`/tournaments/{id}/live`. `/tournaments/{id}/me` (`?player=`): a player's phone view (table,
seat, standing). `/tournaments/{id}/desk`: the organiser's page (seat the next round, who has
not reported, approve, drop a player; the organiser token kept in `sessionStorage`).
`/tournaments` (`tournament_list_router`): the tournaments live, upcoming and finished, as a page
(a request that accepts `text/html`) or JSON; `/tournaments/new`: the form that creates one
(through `POST /tournaments` and `POST /tournaments/{id}/players`, the organiser token's own
routes) and lands on its desk.
`/tournaments/{id}/tables/{n}/report#round=&key=`: a table's report form (report, then the
others confirm), the table's token in the fragment (never sent to a server, so never logged).
`/overlay/tournaments/{id}`: a transparent standings overlay for stream software
(`?theme=dark|light&scale=&lang=en|ru&rows=`). `/tournaments/{id}/qr.svg`: the QR code
(SVG, segno) of the phone view under `SCORELEDGER_PUBLIC_URL`, else the request's origin. An
unknown tournament gets the not-found page with HTTP 404 (its QR code a 404 problem, `tournament.not_found`).
The pages are templates in `templates/` beside this module on the shared layout
(`services.doors.web.pages`); their scripts and the room screen's stylesheet are served from
`static/` here as `/static/tournaments/...` (`tournament_static_router`).
Source: issue brief (tournament pages: organiser, room screen with QR code, phone view).
"""

from __future__ import annotations

from pathlib import Path as FilePath
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Path, Query, Request, Response
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles

from services.doors.web.pages import Pages
from services.platform.problems import ProblemResponse, problem, problem_responses
from services.platform.qr import qr_response
from services.platform.settings import QuerySettings
from services.tournaments.usecases.stream import Tournaments
from services.tournaments.usecases.view import listing

Tid = Annotated[str, Path(max_length=64, description="the tournament id")]
HERE = FilePath(__file__).parent
PAGES = Pages(HERE / "templates")
"""The tournament pages."""
_static_files = StaticFiles(directory=HERE / "static")


def tournament_phone_url(base: str, tournament_id: str) -> str:
    """The phone view of `tournament_id` under `base` (scheme, host, port):
    `https://host/tournaments/con%202026/me`."""
    return f"{base.rstrip('/')}/tournaments/{quote(tournament_id, safe='')}/me"


def tournament_list_router(cases: Tournaments) -> APIRouter:
    """`GET /tournaments` (the list, page or JSON) and `GET /tournaments/new` (the form);
    included ahead of `GET /tournaments/{id}`, which would read `new` as an id."""
    router = APIRouter(tags=["tournaments"])

    @router.get(
        "/tournaments",
        response_model=None,
        responses={200: {"content": {"application/json": {}, "text/html": {}}}},
    )
    async def list_tournaments(
        request: Request,
        limit: Annotated[int, Query(ge=1, le=100, description="at most this many")] = 50,
    ) -> Response:
        """The `limit` most recently created tournaments by status: `{"live": [...],
        "upcoming": [...], "finished": [...]}`, each `{tournament_id, title, game, rounds,
        rounds_seated, players, status, winner}`; the list page instead when the request
        accepts `text/html` (a browser)."""
        vary = {"Vary": "Accept"}  # one URL, two bodies: a cache must not mix them up
        if "text/html" in request.headers.get("accept", ""):
            return PAGES.static("tournaments.html", headers=vary)
        body: dict[str, Any] = listing(await cases.listing(limit))
        return JSONResponse(body, headers=vary)

    @router.get("/tournaments/new", include_in_schema=False)
    async def new_page() -> Response:
        """The form that creates a tournament."""
        return PAGES.static("tournament-new.html")

    return router


def tournament_static_router() -> APIRouter:
    """`GET /static/tournaments/{path}`: the tournament pages' scripts and stylesheet
    (Starlette's `StaticFiles`: safe paths, ETag, 304, 404)."""
    router = APIRouter(tags=["web"])

    @router.get("/static/tournaments/{path:path}", include_in_schema=False)
    async def tournament_static(path: str, request: Request) -> Response:
        """A tournament page's static file."""
        return await _static_files.get_response(path, request.scope)

    return router


def tournament_web_router(cases: Tournaments, settings: QuerySettings | None = None) -> APIRouter:
    """The tournament pages and QR code, bound to the tournament use cases (for the 404);
    `settings.public_url` (read per request), when set, is the QR code's base."""
    router = APIRouter(tags=["web"])

    async def page(name: str, tournament_id: str) -> Response:
        if await cases.log.version(tournament_id) == 0:
            return PAGES.static("tournament-notfound.html", 404)
        return PAGES.static(name)

    @router.get("/tv/tournaments/{tournament_id}", include_in_schema=False)
    async def room_screen(tournament_id: Tid) -> Response:
        """The room screen: round, tables, live leaders, standings, QR code."""
        return await page("tournament-tv.html", tournament_id)

    @router.get("/tournaments/{tournament_id}/me", include_in_schema=False)
    async def phone_view(tournament_id: Tid) -> Response:
        """A player's phone view (`?player=`; a picker without it)."""
        return await page("tournament-me.html", tournament_id)

    @router.get("/tournaments/{tournament_id}/desk", include_in_schema=False)
    async def desk_page(tournament_id: Tid) -> Response:
        """The organiser's page."""
        return await page("tournament-desk.html", tournament_id)

    @router.get("/tournaments/{tournament_id}/tables/{table}/report", include_in_schema=False)
    async def report_page(
        tournament_id: Tid, table: Annotated[int, Path(ge=1, le=500)]
    ) -> Response:
        """A table's report form for its players' phones; the table's token rides in the
        link's fragment (`#round=1&key=...`), which browsers never send, so no log holds it."""
        return await page("tournament-report.html", tournament_id)

    @router.get("/overlay/tournaments/{tournament_id}", include_in_schema=False)
    async def overlay_page(tournament_id: Tid) -> Response:
        """The standings overlay for stream software."""
        return await page("tournament-overlay.html", tournament_id)

    @router.get(
        "/tournaments/{tournament_id}/qr.svg",
        response_model=None,
        response_class=Response,
        responses={200: {"content": {"image/svg+xml": {}}}, **problem_responses(400, 404, 503)},
    )
    async def tournament_qr(tournament_id: Tid, request: Request) -> Response:
        """The QR code (SVG) that opens the tournament's phone view
        `{base}/tournaments/{id}/me`, `base` being `SCORELEDGER_PUBLIC_URL` when set, else the
        origin this request came to (the room screen's). 404 `tournament.not_found`, 400
        `qr.host`, 503 `qr.busy`."""
        if await cases.log.version(tournament_id) == 0:
            missing = problem(404, "tournament.not_found", "tournament_id", "no such tournament")
            return ProblemResponse(missing)
        public = settings.public_url if settings is not None else None
        return await qr_response(
            public, request, lambda base: tournament_phone_url(base, tournament_id)
        )

    return router
