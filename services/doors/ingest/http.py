"""HTTP door of ingest: `POST /games/{game_id}/events` (one envelope or a JSON array).

The handler translates and calls the record use case (`services.usecases.record.Record`):
the bearer token (and `X-Creator-Key`) become a `WriteProof`, the body is read only after the
write is authorized, and a `Refusal` becomes an RFC 9457 problem
(`services.doors.asgi.http_errors.refusal_problem`): 401 (`WWW-Authenticate: Bearer`) / 403 with rule
`auth.*`, 409 `log.expected_version` with `expected`, `actual`, `version`, 422 with the rule
(`schema.field`, `body.json`, a game's rule id) and `field`, `index`, `errors`.
201: `Appended` (`{"appended": [{"event_id", "seq", "duplicate"}], "version": N}`), plus
`write_token` when the request created the game. When a tournament table's game ends, or a
referee voids or corrects in it, the table's result follows (`TableGames.game_changed`, after
the 201 is sent). Source: issue brief (ingest); docs/decisions/0009-one-authorization-on-every-write.md (write
tokens); docs/decisions/0010-one-error-style.md (one error shape).
"""

from __future__ import annotations

from typing import Annotated

import structlog
from fastapi import APIRouter, BackgroundTasks, Depends, Header, Query, Request
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field

from services.doors.asgi.http_errors import refusal_problem
from services.platform.metrics import count_appended, count_refused
from services.platform.problems import ProblemResponse, problem_responses
from services.usecases.authorize import WriteProof
from services.usecases.record import AfterGameWrite, Record
from services.usecases.refusal import Refusal

log = structlog.get_logger("ingest")

_bearer = HTTPBearer(
    auto_error=False,
    scheme_name="GameWriteToken",  # not the tournament routes' scheme (another token)
    description="the game's write token: chosen by its creator, or returned in the 201 that "
    "created the game",
)

_BODY = {
    "required": True,
    "description": "one envelope, or an array of 1..1000 envelopes of this game",
    "content": {
        "application/json": {
            "schema": {
                "anyOf": [
                    {"type": "object", "additionalProperties": True},
                    {"type": "array", "items": {"type": "object", "additionalProperties": True}},
                ]
            }
        }
    },
}


class AppendedEvent(BaseModel):
    """One event of an append: its id, its seq in the game, whether it was already stored."""

    event_id: str
    seq: int = Field(ge=1)
    duplicate: bool


class Appended(BaseModel):
    """The 201 of an append: the events in order, the game's version after it, and
    `write_token` when this request created the game: the token it generated, or the one the
    creator chose (echoed, so a creator's code reads the token from one place)."""

    appended: list[AppendedEvent]
    version: int = Field(ge=1)
    write_token: str | None = None


def ingest_router(record: Record, tables: AfterGameWrite | None = None) -> APIRouter:
    """The ingest router, bound to the record use case (and `tables`, to follow tournament
    tables' games; None: not followed)."""
    router = APIRouter(tags=["ingest"])

    @router.post(
        "/games/{game_id}/events",
        status_code=201,
        summary="Append one event or a batch to a game",
        openapi_extra={"requestBody": _BODY},
        response_model=Appended,
        response_model_exclude_none=True,
        responses={
            200: {"model": Appended, "description": "`dry_run=true`: what the write would answer"},
            **problem_responses(400, 401, 403, 409, 413, 422),
        },
    )
    async def post_events(
        game_id: str,
        request: Request,
        background: BackgroundTasks,
        bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
        x_creator_key: Annotated[
            str | None, Header(description="the integration key, when creating games needs one")
        ] = None,
        dry_run: Annotated[
            bool,
            Query(
                description="true: answer as the write would (the same body with 200, or the "
                "same problem) and store nothing; a generated `write_token` is not returned "
                "(nothing stores it)"
            ),
        ] = False,
    ) -> JSONResponse | ProblemResponse:
        """Append envelopes to `game_id`; each `seq` must follow the game's version (seq - 1).

        Every write to an existing game needs `Authorization: Bearer <its write token>`,
        checked before the body is read. The request that creates a game may choose the token
        (Bearer, 32+ URL-safe characters), else one is generated; the 201 of the creating
        request carries it as `write_token`. A repeated `event_id` (same body, same token) is
        a no-op answered with its original seq (`duplicate: true`): a creator whose 201 was
        lost retries with the token it chose.

        Every refusal is an RFC 9457 problem naming its `rule`; every rule id this route can
        send, with its status, is listed in the published `rules.json` beside this document.

        `?dry_run=true` checks the write (token, schema, the game's rules, seqs) on the game
        as it is and answers as the write would, 200 instead of 201, storing nothing.
        """
        proof = WriteProof(bearer.credentials if bearer else None, x_creator_key)
        with structlog.contextvars.bound_contextvars(game_id=game_id):
            try:
                recorded = await record.record(game_id, proof, request.body, dry_run=dry_run)
            except Refusal as refusal:
                if not dry_run:
                    count_refused(refusal.kind, "http")
                log.info(
                    "ingest.rejected",
                    kind=refusal.kind,
                    rule=refusal.rule,
                    field=refusal.field,
                    dry_run=dry_run,
                )
                return refusal_problem(refusal)
        body = recorded.result.to_dict()
        if recorded.write_token is not None:
            body["write_token"] = recorded.write_token
        if dry_run:
            return JSONResponse(body, status_code=200)
        count_appended(recorded.result, "http")
        body_bytes = await request.body()
        if tables is not None and tables.wants(game_id, body_bytes):
            background.add_task(tables.after_write, game_id, body_bytes)
        return JSONResponse(body, status_code=201)

    return router
