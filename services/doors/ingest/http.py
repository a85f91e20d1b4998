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

`lean_ingest_route` is the same write as a raw ASGI endpoint, which the app's front door
(`services.doors.query.front`) serves ahead of FastAPI's middleware and request handling for a
POST without a query string (the hot write: FastAPI's stack was about a tenth of the service's
CPU per event, docs/profiles/hot-path-profiles.md); a `?dry_run=` write, and every other
request, takes the FastAPI route. Both call `IngestDoor.answer`: the same answers.
"""

from __future__ import annotations

import json
from json.encoder import ESCAPE
from typing import Annotated

import structlog
from fastapi import APIRouter, BackgroundTasks, Depends, Header, Query, Request
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field
from starlette.requests import ClientDisconnect
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from services.doors.asgi.http_errors import refusal_problem
from services.doors.asgi.lean import LeanRoute, header
from services.platform.metrics import count_appended, count_refused
from services.platform.problems import problem_responses
from services.ports.eventlog import AppendResult
from services.usecases.authorize import WriteProof
from services.usecases.record import AfterGameWrite, BodySource, Record, Recorded
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


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header value, read as `HTTPBearer(
    auto_error=False)` reads it (scheme case-insensitive, the token stripped); None when
    absent, empty or of another scheme."""
    if not authorization:
        return None
    scheme, _, param = authorization.partition(" ")
    token = param.strip()
    if not (scheme and token) or scheme.lower() != "bearer":
        return None
    return token


def _json(value: object) -> str:
    """`value` as starlette's `JSONResponse` writes it (compact, UTF-8 unescaped)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def appended_json(result: AppendResult, write_token: str | None) -> bytes:
    """The 201 body: byte for byte what `JSONResponse(result.to_dict())` (with `write_token`
    added last when given) renders, without building a dict per event. Event ids that JSON
    would escape (never a UUID's text: `ESCAPE`, the encoder's own set with
    `ensure_ascii=False`) take the dict path."""
    if ESCAPE.search("".join([e.event_id for e in result.events])) is not None:
        out = result.to_dict()
        if write_token is not None:
            out["write_token"] = write_token
        return _json(out).encode()
    events = ",".join(
        f'{{"event_id":"{e.event_id}","seq":{e.seq:d},"duplicate":{"true" if e.duplicate else "false"}}}'
        for e in result.events
    )
    token = "" if write_token is None else ',"write_token":' + _json(write_token)
    return f'{{"appended":[{events}],"version":{result.version:d}{token}}}'.encode()


_JSON_TYPE = (b"content-type", JSONResponse.media_type.encode("latin-1"))
"""The content type header `Response(media_type=JSONResponse.media_type)` sends."""


class LeanBody:
    """A request body read from ASGI `receive` as starlette's `Request.body` reads it: the
    `http.request` messages' bodies joined, read once and kept; `ClientDisconnect` on an
    `http.disconnect`, `RuntimeError` when the stream was read to its end but not kept."""

    __slots__ = ("_body", "_consumed", "_receive")

    def __init__(self, receive: Receive) -> None:
        self._receive = receive
        self._body: bytes | None = None
        self._consumed = False

    async def __call__(self) -> bytes:
        """The whole body (read on the first call). Raises: ClientDisconnect, RuntimeError."""
        if self._body is not None:
            return self._body
        if self._consumed:
            raise RuntimeError("Stream consumed")
        chunks: list[bytes] = []
        while not self._consumed:
            message = await self._receive()
            if message["type"] == "http.request":
                chunk = message.get("body", b"")
                if not message.get("more_body", False):
                    self._consumed = True
                if chunk:
                    chunks.append(chunk)
            elif message["type"] == "http.disconnect":
                raise ClientDisconnect()
        self._body = b"".join(chunks)
        return self._body


class IngestDoor:
    """The write's translation, shared by the FastAPI route and the lean one: a proof and a
    body in, the HTTP answer out (and the body, when a table's follow-up is due)."""

    def __init__(self, record: Record, tables: AfterGameWrite | None) -> None:
        self.record = record
        self.tables = tables

    async def _recorded(
        self, game_id: str, proof: WriteProof, body: BodySource, dry_run: bool
    ) -> Recorded | Response:
        """The recorded write, or the refusal's problem (counted and logged). Raises: what
        `Record.record` raises besides `Refusal`."""
        # `game_id` bound for the logs of this write: what `bound_contextvars` does, without
        # its copy of the whole context (the variable is reset, not left at `...`: readers
        # skip both alike)
        tokens = structlog.contextvars.bind_contextvars(game_id=game_id)
        try:
            return await self.record.record(game_id, proof, body, dry_run=dry_run)
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
        finally:
            structlog.contextvars.reset_contextvars(**tokens)

    async def _written(self, game_id: str, recorded: Recorded, body: BodySource) -> bytes | None:
        """After a stored write: its events counted; the written body when `tables` wants its
        follow-up run after the answer (else None)."""
        count_appended(recorded.result, "http")
        written = await body()  # read once already: the request keeps it
        return written if self.tables is not None and self.tables.wants(game_id, written) else None

    async def answer(
        self, game_id: str, proof: WriteProof, body: BodySource, dry_run: bool
    ) -> tuple[Response, bytes | None]:
        """The answer to one write (201, or 200 for `dry_run`, or the refusal's problem), and
        the written body when `tables` wants its follow-up run after the answer (else None).
        Raises: what `Record.record` raises besides `Refusal` (the app's handlers answer)."""
        recorded = await self._recorded(game_id, proof, body, dry_run)
        if isinstance(recorded, Response):
            return recorded, None
        content = appended_json(recorded.result, recorded.write_token)
        if dry_run:
            return Response(content, 200, media_type=JSONResponse.media_type), None
        written = await self._written(game_id, recorded, body)
        return Response(content, 201, media_type=JSONResponse.media_type), written

    async def lean(self, scope: Scope, receive: Receive, send: Send) -> None:
        """`POST /games/{game_id}/events` as raw ASGI (no query string: not a dry run); the
        table's follow-up after the answer, as FastAPI runs a background task. The same
        answer as `answer`'s `Response` sends (its two messages, its headers in its order),
        the body read as `Request.body` reads it (`LeanBody`), without either object."""
        game_id = scope["path_params"]["game_id"]
        token = bearer_token(header(scope, b"authorization"))
        proof = WriteProof(token, header(scope, b"x-creator-key"))
        body = LeanBody(receive)
        recorded = await self._recorded(game_id, proof, body, False)
        if isinstance(recorded, Response):
            await recorded(scope, receive, send)
            return
        content = appended_json(recorded.result, recorded.write_token)
        written = await self._written(game_id, recorded, body)
        headers = [(b"content-length", b"%d" % len(content)), _JSON_TYPE]
        await send({"type": "http.response.start", "status": 201, "headers": headers})
        await send({"type": "http.response.body", "body": content})
        if written is not None and self.tables is not None:
            await self.tables.after_write(game_id, written)


def lean_ingest_route(record: Record, tables: AfterGameWrite | None = None) -> LeanRoute:
    """The write as a lean POST route for the app's front door (see the module docstring)."""
    door = IngestDoor(record, tables)
    return LeanRoute("/games/{game_id}/events", door.lean, plain_only=True, method="POST")


def ingest_router(record: Record, tables: AfterGameWrite | None = None) -> APIRouter:
    """The ingest router, bound to the record use case (and `tables`, to follow tournament
    tables' games; None: not followed)."""
    router = APIRouter(tags=["ingest"])
    door = IngestDoor(record, tables)

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
    ) -> Response:
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
        response, written = await door.answer(game_id, proof, request.body, dry_run)
        if written is not None and tables is not None:
            background.add_task(tables.after_write, game_id, written)
        return response

    return router
