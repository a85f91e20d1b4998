"""HTTP doors of a club night's desk, under `/tournaments/{id}` (served with the ingest role):
check a player in, start the open round's clock, and the round's result slips, each with the
QR code of its table's report form.

Each handler checks the organiser token first (`TournamentDesk.authorize`), as every
tournament write door does (`services.tournaments.doors.ingest`), and answers refusals the
same way (`ingest_writes.DOOR`). A slip's link carries the table's credential in its
fragment (`#round=&key=`), which browsers never send to a server: the link and its QR code
are only in the answer to the organiser's POST, never in a URL a server logs. Source:
docs/rules/tournaments.md#check-in, #round-timer; docs/tournaments-in-the-browser.md.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Path, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from domain.tournament.state import TournamentState
from services.doors.ingest.stream_writes import Bearer, Key, body, token
from services.platform.problems import ProblemResponse, problem, problem_responses
from services.platform.qr import CODES, QrBusy, QrHostRefused, qr_base
from services.platform.settings import QuerySettings
from services.tournaments.doors.ingest_writes import DOOR, WRITE_ERRORS, Tid, organiser_write
from services.tournaments.usecases.desk import TournamentDesk
from services.usecases.refusal import Refusal

RoundNo = Annotated[int, Path(ge=1, le=50, description="the round")]
_FAILURES = DOOR.failures
NO_BODY_ERRORS = problem_responses(401, 403, 404, 409, 422)


class TimerStart(BaseModel):
    """`POST /tournaments/{id}/rounds/{round}/timer`: the round's length in minutes."""

    model_config = ConfigDict(extra="forbid")
    minutes: int = Field(ge=1, le=600, strict=True, description="the clock runs this long")


def report_link(base: str, tournament_id: str, round_number: int, table: int, key: str) -> str:
    """The table's report form under `base`, its credential in the fragment:
    `https://host/tournaments/cup/tables/2/report#round=1&key=...`."""
    tid = quote(tournament_id, safe="")
    return f"{base.rstrip('/')}/tournaments/{tid}/tables/{table}/report#round={round_number}&key={quote(key, safe='')}"


async def _slips(
    desk: TournamentDesk, tournament_id: str, round_number: int, credential: str, base: str
) -> list[dict[str, Any]]:
    """Each table of the round with its players' names, report link and QR code (None
    for both when this service creates no table games)."""
    state = await desk.cases.state(tournament_id)
    games = await desk.open_games(tournament_id, credential, round_number)
    opened = {g.table: g for g in games}
    tables: list[dict[str, Any]] = []
    for t in state.rounds[round_number - 1].tables.values():
        game = opened.get(t.number)
        url = None
        if game is not None:
            url = report_link(base, tournament_id, round_number, t.number, game.token)
        svg = None if url is None else (await CODES.svg(url)).decode()
        names = [state.players[p].name for p in t.players]
        tables.append({"table": t.number, "players": names, "report_url": url, "qr_svg": svg})
    return tables


def tournament_club_router(
    desk: TournamentDesk, settings: QuerySettings | None = None
) -> APIRouter:
    """Check-in, the round's clock and the round's slips, bound to the organiser's desk;
    `settings.public_url`, when set, is the base of the slips' links (else the request's)."""
    router = APIRouter(tags=["tournaments"])

    @router.post(
        "/tournaments/{tournament_id}/players/{player_id}/check-in",
        summary="Check a player in",
        response_model=None,
        responses=NO_BODY_ERRORS,
    )
    async def check_in(
        tournament_id: Tid,
        player_id: Annotated[str, Path(max_length=64)],
        bearer: Bearer,
        idempotency_key: Key = None,
    ) -> JSONResponse | ProblemResponse:
        """`tournament.player_checked_in` (organiser token): once anyone is checked in, a
        round seats only the checked-in and late joiners."""

        async def check(credential: str, key: str | None) -> TournamentState:
            return await desk.check_in(tournament_id, credential, player_id, key)

        return await organiser_write(desk, tournament_id, bearer, idempotency_key, check)

    @router.post(
        "/tournaments/{tournament_id}/rounds/{round}/timer",
        summary="Start (or restart) the open round's clock",
        response_model=None,
        openapi_extra={"requestBody": body(TimerStart)},
        responses=WRITE_ERRORS,
    )
    async def start_timer(
        tournament_id: Tid,
        round: RoundNo,
        request: Request,
        bearer: Bearer,
        idempotency_key: Key = None,
    ) -> JSONResponse | ProblemResponse:
        """`tournament.round_timer_started` (organiser token): the clock runs out `minutes`
        from now. 422 `tournament.timer_round`: not the open round."""
        target = (tournament_id, request, bearer, idempotency_key)

        async def start(credential: str, asked: TimerStart, key: str | None) -> TournamentState:
            return await desk.start_timer(tournament_id, credential, round, asked.minutes, key)

        return await DOOR.append(target, desk.authorize, TimerStart, start)

    @router.post(
        "/tournaments/{tournament_id}/rounds/{round}/slips",
        summary="A round's result slips: each table's report link and its QR code",
        response_model=None,
    )
    async def slips(
        tournament_id: Tid, round: RoundNo, request: Request, bearer: Bearer
    ) -> JSONResponse | ProblemResponse:
        """The round's tables (organiser token): `{round, tables: [{table, players,
        report_url, qr_svg}]}`, `report_url` being the table's report form with the table's
        credential in its fragment and `qr_svg` its QR code (SVG text); the tables' games are
        created when missing. 400 `qr.host`, 503 `qr.busy` as `/tournaments/{id}/qr.svg`."""
        try:
            credential = await desk.authorize(tournament_id, token(bearer))
            state = await desk.cases.state(tournament_id)
            if round > len(state.rounds):
                message = f"round {round} is not seated"
                raise Refusal("rule", "tournament.unknown_round", message, "round")
            public = settings.public_url if settings is not None else None
            base = qr_base(public, request.base_url, request.headers.get("host"))
            tables = await _slips(desk, tournament_id, round, credential, base)
        except _FAILURES as error:
            return DOOR.failure(error)
        except QrHostRefused as refused:
            return ProblemResponse(problem(400, "qr.host", "Host", str(refused)))
        except QrBusy as busy:
            return ProblemResponse(problem(503, "qr.busy", None, str(busy)), {"Retry-After": "1"})
        return JSONResponse({"round": round, "tables": tables})

    return router
