"""HTTP door of ingest: `POST /games/{game_id}/events` (one envelope or a JSON array).

Answers: 201 `{"appended": [{"event_id", "seq", "duplicate"}], "version": N}`; 409 on a
version conflict (with the current version); 422 naming the field (pydantic `loc`) or the rule
(`RuleViolation.to_dict()`). The app must provide `app.state.ingest_store` (a
`CheckedEventStore`), which `ingest_lifespan(settings)` does.
Source: issue brief (ingest); research/tech.md §3.3.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Annotated, Any

import redis.asyncio as aioredis
import structlog
from fastapi import APIRouter, Body, FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from contracts.envelope import Envelope
from contracts.events import parse_event
from domain.errors import RuleViolation
from services.adapters.redis.credentials import WriteGrant, WriteOrRetryAccess, write_tokens
from services.adapters.redis.eventlog import AppendResult, EventStore
from services.keys import Keys
from services.metrics import EVENTS_APPENDED, EVENTS_DUPLICATE, EVENTS_REJECTED
from services.ports.errors import VersionConflict
from services.settings import IngestSettings
from services.usecases.check import CheckedEventStore

MAX_BATCH = 1000
"""Most events one request may carry."""

router = APIRouter(tags=["ingest"])
log = structlog.get_logger("ingest")


class IngestRejected(Exception):
    """An append refused before or by the domain: HTTP `status` and the JSON `body`."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(body.get("message"))
        self.status = status
        self.body = body


def _json_safe(errors: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """pydantic errors as JSON-ready dicts, without the offending input (a 10 MB field must not
    come back in the answer) and with unpaired surrogates escaped (they cannot be UTF-8)."""
    safe = []
    for e in errors:
        item = {"type": e["type"], "loc": list(e["loc"]), "msg": e["msg"]}
        text = json.dumps(item, ensure_ascii=False, default=str)
        safe.append(json.loads(text.encode("utf-8", "backslashreplace").decode("utf-8")))
    return safe


def validation_body(error: ValidationError, index: int | None) -> dict[str, Any]:
    """422 body for a pydantic error: `field` is the first error's dotted loc within the event
    (without the union tag, `type` when the tag itself is wrong); `detail` lists all errors
    (type, loc prefixed by `body` and the batch index, msg; never the input itself)."""
    prefix: list[str | int] = ["body"] + ([index] if index is not None else [])
    errors = _json_safe(error.errors(include_url=False, include_input=False, include_context=False))
    detail = [{**e, "loc": prefix + e["loc"]} for e in errors]
    first = errors[0]
    loc = list(first["loc"])
    if first["type"].startswith("union_tag"):
        loc = ["type"]
    elif loc and isinstance(loc[0], str) and "." in loc[0]:  # the union tag, e.g. game.ended
        loc = loc[1:]
    return {
        "error": "validation_error",
        "message": first["msg"],
        "field": ".".join(map(str, loc)),
        "index": index,
        "detail": detail,
    }


def parse_events(body: Any) -> list[Envelope]:
    """One envelope (a JSON object) or a batch (a JSON array) -> envelopes, upcast if old.

    Raises:
        IngestRejected: 422 for a wrong shape, a bad field (pydantic loc) or an unknown version.
    """
    items, batch = (body, True) if isinstance(body, list) else ([body], False)
    if not items or len(items) > MAX_BATCH:
        raise IngestRejected(
            422,
            {
                "error": "validation_error",
                "field": "body",
                "message": f"send 1 to {MAX_BATCH} events, got {len(items)}",
            },
        )
    events = []
    for i, item in enumerate(items):
        index = i if batch else None
        if not isinstance(item, dict):
            raise IngestRejected(
                422,
                {
                    "error": "validation_error",
                    "field": "body",
                    "index": index,
                    "message": "an event must be a JSON object",
                },
            )
        try:
            events.append(parse_event(item))
        except ValidationError as error:
            raise IngestRejected(422, validation_body(error, index)) from None
        except ValueError as error:  # upcasting: version unknown
            raise IngestRejected(
                422,
                {
                    "error": "validation_error",
                    "field": "schema_version",
                    "index": index,
                    "message": str(error),
                },
            ) from None
    return events


async def append_checked(
    store: CheckedEventStore, game_id: str, events: list[Envelope], source: str
) -> AppendResult:
    """The one append path of both doors: domain check, append, metrics.

    Raises:
        IngestRejected: 422 (rule) or 409 (version conflict) with the JSON body.
    """
    try:
        result = await store.append(game_id, events)
    except (RuleViolation, VersionConflict) as error:
        raise refusal(error, source) from None
    count_appended(result, source)
    return result


def refusal(error: RuleViolation | VersionConflict, source: str) -> IngestRejected:
    """The 422 (rule) / 409 (version conflict) answer to a refused append; counts it."""
    if isinstance(error, RuleViolation):
        EVENTS_REJECTED.labels(source=source, reason="rule").inc()
        return IngestRejected(422, {"error": "rule_violation", **error.to_dict()})
    EVENTS_REJECTED.labels(source=source, reason="version_conflict").inc()
    body = {**error.to_dict(), "message": str(error), "field": "seq", "version": error.actual}
    return IngestRejected(409, body)


def count_appended(result: AppendResult, source: str) -> None:
    """Count an append's new and duplicate events (Prometheus)."""
    dups = sum(e.duplicate for e in result.events)
    EVENTS_APPENDED.labels(source=source).inc(len(result.events) - dups)
    EVENTS_DUPLICATE.labels(source=source).inc(dups)


@router.post(
    "/games/{game_id}/events",
    status_code=201,
    summary="Append one event or a batch to a game",
    responses={
        409: {"description": "version conflict: `expected`, `actual`, `version`"},
        422: {"description": "a field (`field`, pydantic `detail`) or a rule (`rule`) is broken"},
    },
)
async def post_events(
    game_id: str,
    request: Request,
    body: Annotated[
        dict[str, Any] | list[dict[str, Any]], Body(description="one envelope, or an array of them")
    ],
    grant: WriteOrRetryAccess,  # write tokens (services/auth.py): 401 / 403 unless an exact retry
) -> JSONResponse:
    """Append envelopes to `game_id`; each `seq` must follow the game's version (seq - 1).

    A repeated `event_id` is a no-op answered with its original seq (`duplicate: true`).
    Every write to an existing game needs `Authorization: Bearer <its write token>`; the 201 of
    the append that creates a game carries the token once, as `write_token`.
    """
    store: CheckedEventStore = request.app.state.ingest_store
    with structlog.contextvars.bound_contextvars(game_id=game_id):
        return await _append_request(request, game_id, body, grant, store)


async def _append_request(
    request: Request,
    game_id: str,
    body: dict[str, Any] | list[dict[str, Any]],
    grant: WriteGrant,
    store: CheckedEventStore,
) -> JSONResponse:
    """`post_events` with the game bound into the log context; a refusal is logged with the
    rule or field and the first event's id and seq."""
    events: list[Envelope] = []
    try:
        events = parse_events(body)
        if grant.refusal is not None:  # no valid token: only an exact retry is answered
            try:
                retry = await store.repeated(game_id, events)
            except RuleViolation:
                retry = None
            if retry is None:
                raise grant.refusal.to_http()
            count_appended(retry, "http")
            return JSONResponse(retry.to_dict(), status_code=201)
        result = await append_checked(store, game_id, events, "http")
    except IngestRejected as rejected:
        if rejected.status == 422 and rejected.body.get("error") == "validation_error":
            EVENTS_REJECTED.labels(source="http", reason="validation").inc()
        first = events[0] if events else None
        log.info(
            "ingest.rejected",
            status=rejected.status,
            error=rejected.body.get("error"),
            rule=rejected.body.get("rule"),
            field=rejected.body.get("field"),
            event_id=str(first.event_id) if first else None,
            seq=first.seq if first else None,
        )
        return JSONResponse(rejected.body, status_code=rejected.status)
    body_out = result.to_dict()
    if grant.creating and any(
        e.seq == 1 and not e.duplicate for e in result.events
    ):  # auth: issue once
        token = await write_tokens(request).issue(game_id)
        if token is not None:
            body_out["write_token"] = token
    return JSONResponse(body_out, status_code=201)


Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[None]]


def ingest_lifespan(settings: IngestSettings) -> Lifespan:
    """A FastAPI lifespan that sets `app.state.ingest_store` (own Redis client, closed after)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        client = aioredis.Redis.from_url(settings.redis_url)
        app.state.ingest_store = CheckedEventStore(
            EventStore(client, Keys(settings.shards)), settings.state_cache_games
        )
        try:
            yield
        finally:
            await client.aclose()

    return lifespan


def create_ingest_app(settings: IngestSettings) -> FastAPI:
    """A minimal ingest-only app: the router plus its lifespan (no query, no inbox)."""
    app = FastAPI(title="scoreledger ingest", version="0.1.0", lifespan=ingest_lifespan(settings))
    app.include_router(router)
    return app
