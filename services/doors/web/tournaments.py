"""The tournament pages (HTML, no build step) and the room screen's QR code.

`/tv/tournaments/{id}`: the room screen (round, tables with their players and the live leader
of each table's game, standings, a QR code to the phone view), live over
`/tournaments/{id}/live`. `/tournaments/{id}/me` (`?player=`): a player's phone view (table,
seat, standing). `/tournaments/{id}/desk`: the organiser's page (seat the next round, who has
not reported, approve, drop a player; the organiser token kept in `sessionStorage`).
`/overlay/tournaments/{id}`: a transparent standings overlay for stream software
(`?theme=dark|light&scale=&lang=en|ru&rows=`). `/tournaments/{id}/qr.svg`: the QR code
(SVG, segno) of the phone view under `SCORELEDGER_PUBLIC_URL`, else the request's origin. An
unknown tournament gets the not-found page with HTTP 404 (its QR code a 404 problem, `tournament.not_found`).
Source: issue brief (tournament pages: organiser, room screen with QR code, phone view).
"""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Path, Request, Response
from fastapi.responses import FileResponse

from services.doors.web.qr import qr_response
from services.doors.web.routes import STATIC
from services.platform.problems import ProblemResponse, problem, problem_responses
from services.platform.settings import QuerySettings
from services.usecases.tournaments import Tournaments

Tid = Annotated[str, Path(max_length=64, description="the tournament id")]


def tournament_phone_url(base: str, tournament_id: str) -> str:
    """The phone view of `tournament_id` under `base` (scheme, host, port):
    `https://host/tournaments/con%202026/me`."""
    return f"{base.rstrip('/')}/tournaments/{quote(tournament_id, safe='')}/me"


def tournament_web_router(cases: Tournaments, settings: QuerySettings | None = None) -> APIRouter:
    """The tournament pages and QR code, bound to the tournament use cases (for the 404);
    `settings.public_url` (read per request), when set, is the QR code's base."""
    router = APIRouter(tags=["web"])

    async def page(name: str, tournament_id: str) -> FileResponse:
        if await cases.log.version(tournament_id) == 0:
            return FileResponse(STATIC / "notfound.html", status_code=404, media_type="text/html")
        return FileResponse(STATIC / name, media_type="text/html")

    @router.get("/tv/tournaments/{tournament_id}", include_in_schema=False)
    async def room_screen(tournament_id: Tid) -> FileResponse:
        """The room screen: round, tables, live leaders, standings, QR code."""
        return await page("tournament-tv.html", tournament_id)

    @router.get("/tournaments/{tournament_id}/me", include_in_schema=False)
    async def phone_view(tournament_id: Tid) -> FileResponse:
        """A player's phone view (`?player=`; a picker without it)."""
        return await page("tournament-me.html", tournament_id)

    @router.get("/tournaments/{tournament_id}/desk", include_in_schema=False)
    async def desk_page(tournament_id: Tid) -> FileResponse:
        """The organiser's page."""
        return await page("tournament-desk.html", tournament_id)

    @router.get("/overlay/tournaments/{tournament_id}", include_in_schema=False)
    async def overlay_page(tournament_id: Tid) -> FileResponse:
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
        `qr.host`, 503 `qr.busy` (`services.doors.web.qr`)."""
        if await cases.log.version(tournament_id) == 0:
            missing = problem(404, "tournament.not_found", "tournament_id", "no such tournament")
            return ProblemResponse(missing)
        public = settings.public_url if settings is not None else None
        return await qr_response(
            public, request, lambda base: tournament_phone_url(base, tournament_id)
        )

    return router
