"""HTTP door of ingest: `POST /games/{game_id}/events` (one envelope or a JSON array).

The handler translates and calls the record use case (`services.usecases.record.Record`):
the bearer token (and `X-Creator-Key`) become a `WriteProof`, the body is read only after the
write is authorized, and a `Refusal` becomes an answer:

* `unauthorized` 401 (`WWW-Authenticate: Bearer`), `forbidden` 403: `{"detail": {"error":
  "token_required" | "token_rejected" | "token_format" | "creator_key_required" |
  "creator_key_rejected", "rule", "field", "message"}}`
* `invalid` 422 `{"error": "validation_error", "rule", "field", "message", "index",
  "detail"}`; `rule` 422 `{"error": "rule_violation", "rule", "field", "message"}`
* `conflict` 409 `{"error": "version_conflict", "expected", "actual", "version", "field":
  "seq", "message"}`
201: `{"appended": [{"event_id", "seq", "duplicate"}], "version": N}`, plus `write_token` when
the request created the game. Source: issue brief (ingest); issue 8 (write tokens).
"""

from __future__ import annotations

from typing import Annotated, Any

import structlog
from fastapi import APIRouter, Depends, Header, Request
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from services.metrics import count_appended, count_refused
from services.usecases.authorize import WriteProof
from services.usecases.record import Record
from services.usecases.refusal import Refusal

log = structlog.get_logger("ingest")

_bearer = HTTPBearer(
    auto_error=False,
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


def refusal_response(refusal: Refusal) -> JSONResponse:
    """The HTTP answer to a refusal (see the module docstring for the shapes)."""
    if refusal.kind in ("unauthorized", "forbidden"):
        detail = {
            "error": refusal.rule.removeprefix("auth."),
            "rule": refusal.rule,
            "field": refusal.field,
            "message": refusal.message,
        }
        status = 401 if refusal.kind == "unauthorized" else 403
        headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
        return JSONResponse({"detail": detail}, status_code=status, headers=headers)
    if refusal.kind == "conflict":
        body: dict[str, Any] = {
            "error": "version_conflict",
            **refusal.extras,
            "version": refusal.extras.get("actual"),
            "field": refusal.field,
            "rule": refusal.rule,
            "message": refusal.message,
        }
        return JSONResponse(body, status_code=409)
    error = "validation_error" if refusal.kind == "invalid" else "rule_violation"
    body = {
        "error": error,
        "rule": refusal.rule,
        "field": refusal.field,
        "message": refusal.message,
        **refusal.extras,
    }
    return JSONResponse(body, status_code=422)


def ingest_router(record: Record) -> APIRouter:
    """The ingest router, bound to the record use case."""
    router = APIRouter(tags=["ingest"])

    @router.post(
        "/games/{game_id}/events",
        status_code=201,
        summary="Append one event or a batch to a game",
        openapi_extra={"requestBody": _BODY},
        responses={
            401: {"description": "no write token sent to a game that has one"},
            403: {"description": "a wrong write token (or creator key)"},
            409: {"description": "version conflict: `expected`, `actual`, `version`"},
            422: {"description": "a field (`field`, `detail`) or a rule (`rule`) is broken"},
        },
    )
    async def post_events(
        game_id: str,
        request: Request,
        bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
        x_creator_key: Annotated[
            str | None, Header(description="the integration key, when creating games needs one")
        ] = None,
    ) -> JSONResponse:
        """Append envelopes to `game_id`; each `seq` must follow the game's version (seq - 1).

        Every write to an existing game needs `Authorization: Bearer <its write token>`,
        checked before the body is read. The request that creates a game may choose the token
        (Bearer, 32+ URL-safe characters), else one is generated; the 201 of the creating
        request carries it as `write_token`. A repeated `event_id` (same body, same token) is
        a no-op answered with its original seq (`duplicate: true`): a creator whose 201 was
        lost retries with the token it chose.
        """
        proof = WriteProof(bearer.credentials if bearer else None, x_creator_key)
        with structlog.contextvars.bound_contextvars(game_id=game_id):
            try:
                recorded = await record.record(game_id, proof, request.body)
            except Refusal as refusal:
                count_refused(refusal, "http")
                log.info(
                    "ingest.rejected", kind=refusal.kind, rule=refusal.rule, field=refusal.field
                )
                return refusal_response(refusal)
        count_appended(recorded.result, "http")
        body = recorded.result.to_dict()
        if recorded.write_token is not None:
            body["write_token"] = recorded.write_token
        return JSONResponse(body, status_code=201)

    return router
