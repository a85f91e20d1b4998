"""HTTP doors of the tournament writes, under `/tournaments` (served with the ingest role).

Each handler calls the organiser's desk (`services.tournaments.usecases.desk`): the organiser
token, or a judge's where a judge may write (`Authorization: Bearer`), is checked first, the
body read and validated only after;
a `Refusal` becomes the games' problem (`refusal_problem`: 401 with `WWW-Authenticate:
Bearer`, 403, 409, 422 naming the rule and field), an unknown tournament 404
`tournament.not_found`. Every write that appends takes an `Idempotency-Key` header: the retry
of a stored request (after `503 append.replicas_unconfirmed`) answers as the write would have,
and the key with another request is 422 `idempotency.key_reused`
(`services.usecases.idempotency`). Source: docs/decisions/0009-one-authorization-on-every-write.md
(one authorization on every write path); docs/decisions/0010-one-error-style.md (one error shape).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from contracts.envelope import NonEmptyText, PlayerId
from contracts.tournament import (
    PlayerRegistered,
    ResultLine,
    Round,
    TournamentCreated,
    TournamentId,
)
from domain.tournament.state import TournamentState
from services.doors.ingest.stream_writes import (
    Bearer,
    Key,
    body,
    parse,
    token,
)
from services.platform.problems import ProblemResponse, problem_responses
from services.tournaments.doors.ingest_writes import DOOR, WRITE_ERRORS, Tid, organiser_write
from services.tournaments.usecases.desk import Role, Seated, TableRuling, TournamentDesk
from services.usecases.authorize import Grant
from services.usecases.idempotency import check_key
from services.usecases.refusal import Refusal


class NewTournament(TournamentCreated):
    """`POST /tournaments`: the tournament id and its settings (`tournament.created`)."""

    tournament_id: TournamentId


class NewPlayer(PlayerRegistered):
    """`POST /tournaments/{id}/players`: a registration (`tournament.player_registered`), or a
    late join once round 1 is seated (`tournament.player_joined_late`): then a `seed` is
    refused, 422 rule tournament.late_seed, field seed."""


class TableWrite(BaseModel):
    """`POST /tournaments/{id}/tables/{table}/result`: `report` (`results`, `by`: who
    reports), `confirm` (`player_id`), `dispute` (`by`, `reason`), `approve` (`by`: the judge;
    `results`: a ruling replacing the reported ones)."""

    model_config = ConfigDict(extra="forbid")
    action: Literal["report", "confirm", "dispute", "approve"]
    round: Round
    results: tuple[ResultLine, ...] | None = Field(default=None, min_length=3, max_length=5)
    by: NonEmptyText = "organiser"
    player_id: PlayerId | None = None
    reason: NonEmptyText | None = None


class NewJudge(BaseModel):
    """`POST /tournaments/{id}/judges`: the judge's id and name."""

    model_config = ConfigDict(extra="forbid")
    judge_id: PlayerId
    name: NonEmptyText


class Written(BaseModel):
    """A write's answer: the tournament, its version (seq) after it, and the organiser token
    when this request created the tournament without choosing one."""

    tournament_id: str
    version: int = Field(ge=1)
    organiser_token: str | None = None


_written = DOOR.written


def _seated(seated: Seated) -> dict[str, Any]:
    seating = seated.seating
    games = {g.table: g for g in seated.games}
    tables = []
    for t in seating.tables:
        line: dict[str, Any] = {"table": t.number, "players": list(t.players), "reason": t.reason}
        game = games.get(t.number)
        if game is not None:
            line.update(game_id=game.game_id, game_token=game.token, game_refused=game.refused)
        tables.append(line)
    return {
        "round": seating.round,
        "tables": tables,
        "byes": list(seating.byes),
        "reason": seating.reason,
    }


_failure = DOOR.failure
_FAILURES = DOOR.failures


def tournament_write_router(desk: TournamentDesk) -> APIRouter:
    """The tournament write doors, bound to the organiser's desk."""
    router = APIRouter(tags=["tournaments"])
    _setup_doors(router, desk)
    _round_doors(router, desk)
    _judge_and_table_doors(router, desk)
    return router


def _setup_doors(router: APIRouter, desk: TournamentDesk) -> None:
    """Create a tournament, register and drop players."""

    @router.post(
        "/tournaments",
        status_code=201,
        summary="Create a tournament",
        response_model=Written,
        response_model_exclude_none=True,
        # the token is optional: a creator that sends none gets one (an empty requirement
        # says so, OpenAPI 3.1 §4.8.30; FastAPI appends it to its own), as for a game's creating append
        openapi_extra={"requestBody": body(NewTournament), "security": [{}]},
        responses=problem_responses(401, 403, 409, 413, 422),
    )
    async def create_tournament(
        request: Request, bearer: Bearer, idempotency_key: Key = None
    ) -> JSONResponse | ProblemResponse:
        """Create the tournament (`tournament.created`). The request may choose the organiser
        token (Bearer, 32+ URL-safe characters), else one is generated and returned once as
        `organiser_token`. 409 `tournament.already_created` when the id is taken."""

        async def created(
            tid: str, settings: TournamentCreated, grant: Grant, key: str | None
        ) -> tuple[TournamentState, str | None]:
            done = await desk.create(tid, settings, grant, key)
            return done.state, done.organiser_token

        new = (NewTournament, TournamentCreated)
        return await DOOR.create(request, bearer, idempotency_key, new, desk.may_create, created)

    @router.post(
        "/tournaments/{tournament_id}/players",
        status_code=201,
        summary="Register a player (a late join once round 1 is seated)",
        response_model=Written,
        openapi_extra={"requestBody": body(NewPlayer)},
        responses=WRITE_ERRORS,
    )
    async def add_player(
        tournament_id: Tid, request: Request, bearer: Bearer, idempotency_key: Key = None
    ) -> JSONResponse | ProblemResponse:
        """`tournament.player_registered` before round 1 is seated, else
        `tournament.player_joined_late` (seated from the next round). Organiser token."""
        target = (tournament_id, request, bearer, idempotency_key)

        async def add(credential: str, new: NewPlayer, key: str | None) -> TournamentState:
            return await desk.add_player(
                tournament_id, credential, new.player_id, new.name, new.seed, key
            )

        return await DOOR.append(target, desk.authorize, NewPlayer, add, 201)

    @router.delete(
        "/tournaments/{tournament_id}/players/{player_id}",
        summary="Drop a player",
        response_model=Written,
        responses=WRITE_ERRORS,
    )
    async def drop_player(
        tournament_id: Tid,
        player_id: Annotated[str, Path(max_length=64)],
        bearer: Bearer,
        reason: Annotated[str, Query(min_length=1, max_length=500)] = "dropped by the organiser",
        idempotency_key: Key = None,
    ) -> JSONResponse | ProblemResponse:
        """`tournament.player_dropped`: never seated again; results so far stay."""

        async def drop(credential: str, key: str | None) -> TournamentState:
            return await desk.drop_player(tournament_id, credential, player_id, reason, key)

        return await organiser_write(desk, tournament_id, bearer, idempotency_key, drop)


def _round_doors(router: APIRouter, desk: TournamentDesk) -> None:
    """Seat rounds, open their games, take results from games, approve what is due."""

    @router.post(
        "/tournaments/{tournament_id}/rounds",
        status_code=201,
        summary="Seat the next round",
        response_model=None,
        responses=WRITE_ERRORS,
    )
    async def seat(
        tournament_id: Tid, bearer: Bearer, idempotency_key: Key = None
    ) -> JSONResponse | ProblemResponse:
        """Seat the next round with the seating engine (the previous round must be closed:
        `tournament.round_open`; tables whose auto-approval is due are approved first); 201
        with the tables, each with its players in seat order, the reason for it, and the
        scoreledger game that plays it: `game_id`, `game_token` (its write token, for the
        table) and `game_refused` (None, or the rule that refused creating it)."""
        try:
            credential = await desk.authorize(tournament_id, token(bearer))
            key = check_key(idempotency_key)
            seated = await desk.seat_next_round(tournament_id, credential, key)
        except _FAILURES as error:
            return _failure(error)
        return JSONResponse(_seated(seated), status_code=201)

    @router.post(
        "/tournaments/{tournament_id}/rounds/{round}/games",
        summary="Create (or find) a round's table games and give their tokens",
        response_model=None,
        responses=WRITE_ERRORS,
    )
    async def games(
        tournament_id: Tid, round: Annotated[int, Path(ge=1, le=50)], bearer: Bearer
    ) -> JSONResponse | ProblemResponse:
        """The games of the round's tables (organiser token): created when missing (a
        retry after a failed creation), with each `game_token` to hand to its table."""
        try:
            credential = await desk.authorize(tournament_id, token(bearer))
            state = await desk.cases.state(tournament_id)
            if round > len(state.rounds):
                message = f"round {round} is not seated"
                raise Refusal("rule", "tournament.unknown_round", message, "round")
            opened = await desk.open_games(tournament_id, credential, round)
        except _FAILURES as error:
            return _failure(error)
        return JSONResponse({"round": round, "games": [g.to_dict() for g in opened]})

    @router.post(
        "/tournaments/{tournament_id}/tables/{table}/result-from-game",
        summary="Take a table's result from its game's final standings",
        response_model=None,
        responses=WRITE_ERRORS,
    )
    async def result_from_game(
        tournament_id: Tid,
        table: Annotated[int, Path(ge=1, le=500)],
        round: Annotated[int, Query(ge=1, le=50, description="the table's round")],
        bearer: Bearer,
    ) -> JSONResponse | ProblemResponse:
        """Read the table's game and bring the table's result in line (organiser or judge
        token): `outcome` is `reported`, `approved` (auto-approval, or a referee's later void
        or correction taken over), `held` (the game was reopened: disputed), `unchanged` or
        `waiting` (not final yet, or disputed). The same runs by itself when the game ends
        or a referee voids or corrects in it."""
        try:
            caller = await desk.authorize_as(tournament_id, token(bearer), ("organiser", "judge"))
            outcome, state = await desk.sync_table(tournament_id, caller, round, table)
        except _FAILURES as error:
            return _failure(error)
        return JSONResponse(
            {"tournament_id": tournament_id, "version": state.seq, "outcome": outcome}
        )

    @router.post(
        "/tournaments/{tournament_id}/approve-due",
        summary="Auto-approve the table results whose time is up",
        response_model=None,
        responses=WRITE_ERRORS,
    )
    async def approve_due(tournament_id: Tid, bearer: Bearer) -> JSONResponse | ProblemResponse:
        """Approve (judge `auto`) every reported, undisputed table reported at least
        `auto_approve_after_s` ago, closing the round when complete (organiser or judge token;
        idempotent). Every seating and table write does this first too."""
        try:
            caller = await desk.authorize_as(tournament_id, token(bearer), ("organiser", "judge"))
            due, state = await desk.approve_due(tournament_id, caller)
        except _FAILURES as error:
            return _failure(error)
        approved = [{"round": r, "table": t} for r, t in due]
        return JSONResponse(
            {"tournament_id": tournament_id, "version": state.seq, "approved": approved}
        )


def _judge_and_table_doors(router: APIRouter, desk: TournamentDesk) -> None:
    """Appoint and dismiss judges; rule on a table's result."""

    @router.post(
        "/tournaments/{tournament_id}/judges",
        status_code=201,
        summary="Appoint a judge",
        response_model=None,
        openapi_extra={"requestBody": body(NewJudge)},
        responses=WRITE_ERRORS,
    )
    async def appoint_judge(
        tournament_id: Tid, request: Request, bearer: Bearer, idempotency_key: Key = None
    ) -> JSONResponse | ProblemResponse:
        """`tournament.judge_appointed` (organiser token); 201 with the judge's token
        (`judge_token`, derived, never stored). While a tournament has a judge, only a judge
        approves or disputes results."""
        try:
            credential = await desk.authorize(tournament_id, token(bearer))
            key = check_key(idempotency_key)
            new = await parse(NewJudge, request)
            state, judge = await desk.appoint_judge(
                tournament_id, credential, new.judge_id, new.name, key
            )
        except _FAILURES as error:
            return _failure(error)
        body = {"tournament_id": tournament_id, "version": state.seq, "judge_token": judge}
        return JSONResponse(body, status_code=201)

    @router.delete(
        "/tournaments/{tournament_id}/judges/{judge_id}",
        summary="Dismiss a judge",
        response_model=Written,
        responses=WRITE_ERRORS,
    )
    async def dismiss_judge(
        tournament_id: Tid,
        judge_id: Annotated[str, Path(max_length=64)],
        bearer: Bearer,
        idempotency_key: Key = None,
    ) -> JSONResponse | ProblemResponse:
        """`tournament.judge_dismissed` (organiser token): the judge's token stops working."""

        async def dismiss(credential: str, key: str | None) -> TournamentState:
            return await desk.dismiss_judge(tournament_id, credential, judge_id, key)

        return await organiser_write(desk, tournament_id, bearer, idempotency_key, dismiss)

    @router.post(
        "/tournaments/{tournament_id}/tables/{table}/result",
        summary="Report, confirm, dispute or approve a table's result",
        response_model=Written,
        openapi_extra={"requestBody": body(TableWrite)},
        responses=WRITE_ERRORS,
    )
    async def table_result(
        tournament_id: Tid,
        table: Annotated[int, Path(ge=1, le=500)],
        request: Request,
        bearer: Bearer,
        idempotency_key: Key = None,
    ) -> JSONResponse | ProblemResponse:
        """One ruling on the table of `round` (organiser or judge token; the table's own
        token, its game's write token, reports or confirms that table only: 403
        `auth.table_reports_only`, `auth.table_token_other_table`). While the
        tournament has a judge, `approve` and `dispute` need a judge's token (403
        `auth.judge_required`; not the keyed retry of a ruling stored before: answered as
        stored) and name that judge. An approval that leaves every table of
        the open round approved also closes the round (`tournament.round_closed`, same
        append)."""
        try:
            roles: tuple[Role, ...] = ("organiser", "judge", "table")
            caller = await desk.authorize_as(tournament_id, token(bearer), roles)
            key = check_key(idempotency_key)
            w = await parse(TableWrite, request)
            ruling = TableRuling(w.action, w.round, w.results, w.by, w.player_id, w.reason)
            state = await desk.rule_on_table(tournament_id, caller, table, ruling, key)
        except _FAILURES as error:
            return _failure(error)
        return _written(state)
