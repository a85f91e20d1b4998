"""Every HTTP error answer as one shape: RFC 9457 problem details (`services.platform.problems`).

`install_problem_handlers(app)` (called by the composition root, `services.bootstrap`) maps:

* FastAPI's `RequestValidationError` -> 422 `request.invalid` (field: the first error's loc);
* Starlette's `HTTPException` (404 of an unknown route, 405, ...) -> its status,
  `http.<status>`, its headers kept;
* the read models' `NotFound` -> 404 `read.<code>` (`read.game_not_found`, ...), `Pending` ->
  503 `read.projection_pending` with `Retry-After: 1`; `ReplayRefused` -> 429 / 503
  `replay.*` with `Retry-After` (`services.doors.asgi.replaylimits`);
* the storage unable to serve (the ports' `StoreUnavailable`: Redis refused, timed out,
  LOADING, cluster down, failover, out of memory, no pool connection free within
  `redis_pool_timeout_s`, NOREPLICAS, MISCONF, BUSY, MASTERDOWN, as the Redis adapter
  translates them in `services/adapters/redis/errors.py`; the archive's `ArchiveUnavailable`)
  -> 503 `service.storage_unavailable` with `Retry-After: 1`, naming the error's reason;
* `ReplicasUnconfirmed` -> 503 `append.replicas_unconfirmed` with `Retry-After` (an append
  too few replicas confirmed in time, `SCORELEDGER_APPEND_REPLICAS`);
* any other exception -> 500 `server.internal` without detail (it is logged).

`refusal_problem` is the ingest door's answer to a use-case `Refusal` (`refusal_item`, whose
members the dead letters carry too): 401 with `WWW-Authenticate: Bearer`; 409 with `expected`,
`actual`, `version` (the version the game holds); `index`, the 0-based position in a batch of
the event at fault; 422 with `errors` (each error's type, loc and a clipped msg, never the
input). Source: docs/decisions/0010-one-error-style.md ("One error shape"), RFC 9457.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable
from typing import Any, ParamSpec

import structlog
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.sse import ServerSentEvent
from starlette.exceptions import HTTPException as StarletteHTTPException

from services.archive.ports.cold import ArchiveUnavailable
from services.doors.asgi.replaylimits import replay_refused_handler
from services.platform.problems import (
    MAX_MSG_CHARS,
    RETRY_AFTER_S,
    Problem,
    ProblemResponse,
    bounded_errors,
    internal_error,
    problem,
    quote,
    storage_unavailable,
)
from services.ports.errors import ReplicasUnconfirmed, StoreUnavailable
from services.usecases.readmodels.errors import ReplayRefused
from services.usecases.readmodels.reads import NotFound, Pending
from services.usecases.refusal import Refusal

log = structlog.get_logger("http")
P = ParamSpec("P")

STATUS_OF_KIND = {"unauthorized": 401, "forbidden": 403, "conflict": 409}
STATUS_OF_RULE = {"body.too_large": 413}

STORAGE_FAULTS: tuple[type[Exception], ...] = (ArchiveUnavailable, StoreUnavailable)
"""The port errors answered 503 (`ArchiveUnavailable`: "the archive is unreachable"; a
`StoreUnavailable` names its own `reason`, set by the adapter that raised it). Any other error
stays a 500."""

ARCHIVE_UNAVAILABLE = "the archive is unreachable"


def refusal_item(refusal: Refusal) -> Problem:
    """The problem of a use-case refusal, the same on every door (HTTP answers it, the inbox's
    dead letter carries its members): status by kind (422 for `invalid` and `rule`; 413 for
    `body.too_large`); `index` (the event at fault in a batch); on a conflict `expected`,
    `actual` and `version` (the version the game holds); `errors` for schema refusals."""
    status = STATUS_OF_RULE.get(refusal.rule) or STATUS_OF_KIND.get(refusal.kind, 422)
    extras: dict[str, Any] = {}
    if refusal.kind == "conflict":
        expected, actual = refusal.extras.get("expected"), refusal.extras.get("actual")
        version = refusal.extras.get("version", actual)
        extras = {"expected": expected, "actual": actual, "version": version}
    if "errors" in refusal.extras:
        extras["errors"] = bounded_errors(refusal.extras["errors"])
    index = refusal.extras.get("index")
    return problem(
        status,
        refusal.rule,
        refusal.field,
        refusal.message,
        index=index if isinstance(index, int) else None,
        **extras,
    )


def refusal_problem(refusal: Refusal) -> ProblemResponse:
    """The HTTP answer to a use-case refusal (`refusal_item`; 401 with `WWW-Authenticate`)."""
    item = refusal_item(refusal)
    headers = {"WWW-Authenticate": "Bearer"} if item.status == 401 else None
    return ProblemResponse(item, headers=headers)


def _field(loc: Any) -> str:
    parts = [str(p) for p in loc if not (isinstance(p, str) and "." in p)]
    return ".".join(parts)[:MAX_MSG_CHARS] or "body"


async def validation_handler(request: Request, exc: Exception) -> ProblemResponse:
    """422 `request.invalid` for a path, query, header or body that fails its declaration."""
    assert isinstance(exc, RequestValidationError)
    errors = list(exc.errors())
    first = errors[0] if errors else {}
    more = len(errors) - 1
    message = str(first.get("msg", "invalid request"))[:MAX_MSG_CHARS]
    if more > 0:
        message += f" (and {more} more error{'s' if more > 1 else ''})"
    item = problem(
        422,
        "request.invalid",
        _field(first.get("loc", ())),
        message,
        errors=bounded_errors(errors),
    )
    return ProblemResponse(item)


async def http_exception_handler(request: Request, exc: Exception) -> ProblemResponse:
    """Starlette's `HTTPException` (unknown route, wrong method, ...) as a problem."""
    assert isinstance(exc, StarletteHTTPException)
    status = exc.status_code if 400 <= exc.status_code <= 599 else 500
    detail = exc.detail if isinstance(exc.detail, str) else quote(exc.detail)
    item = problem(status, f"http.{status}", None, detail)
    return ProblemResponse(item, headers=dict(exc.headers or {}))


async def not_found_handler(request: Request, exc: Exception) -> ProblemResponse:
    """404 `read.<code>` with the read model's message and field."""
    assert isinstance(exc, NotFound)
    return ProblemResponse(problem(404, f"read.{exc.error}", exc.field, exc.message))


async def pending_handler(request: Request, exc: Exception) -> ProblemResponse:
    """503 `read.projection_pending`: the log exists, the projector has not caught up."""
    item = problem(503, "read.projection_pending", None, str(exc))
    return ProblemResponse(item, headers={"Retry-After": "1"})


def storage_fault(exc: BaseException) -> str | None:
    """The reason of `exc` when it (or, for an exception group, every member) is one of the
    `STORAGE_FAULTS`, else None."""
    if isinstance(exc, BaseExceptionGroup):
        reasons = [storage_fault(e) for e in exc.exceptions]
        return reasons[0] if reasons and all(reasons) else None
    if isinstance(exc, StoreUnavailable):
        return exc.reason
    if isinstance(exc, ArchiveUnavailable):
        return ARCHIVE_UNAVAILABLE
    return None


def storage_problem(reason: str) -> ProblemResponse:
    """The 503 answer while the storage cannot serve, with `Retry-After`."""
    return ProblemResponse(storage_unavailable(reason), headers={"Retry-After": str(RETRY_AFTER_S)})


def ends_cleanly(
    stream: Callable[P, AsyncIterator[ServerSentEvent]],
) -> Callable[P, AsyncIterator[ServerSentEvent]]:
    """An SSE endpoint whose stream, when the storage cannot serve (`STORAGE_FAULTS`), ends
    with a comment naming the fault and `retry` (the browser reconnects after it) instead of
    aborting the connection with an ASGI error. Other errors propagate."""

    @functools.wraps(stream)
    async def guarded(*args: P.args, **kwargs: P.kwargs) -> AsyncIterator[ServerSentEvent]:
        try:
            async for item in stream(*args, **kwargs):
                yield item
        except Exception as exc:
            reason = storage_fault(exc)
            if reason is None:
                raise
            log.warning("sse.storage_unavailable", reason=reason)
            yield ServerSentEvent(
                comment=f"storage unavailable: {reason}", retry=RETRY_AFTER_S * 1000
            )

    return guarded


async def storage_handler(request: Request, exc: Exception) -> ProblemResponse:
    """503 for one of the `STORAGE_FAULTS` (handled inside the app: nothing re-raised)."""
    return await internal_handler(request, exc)


async def internal_handler(request: Request, exc: Exception) -> ProblemResponse:
    """503 `service.storage_unavailable` for a storage fault (logged as a warning), else 500
    `server.internal`; the failure is logged (type and a short message, no locals)."""
    reason = storage_fault(exc)
    if reason is not None:
        log.warning("http.storage_unavailable", path=request.url.path[:200], reason=reason)
        return storage_problem(reason)
    log.error("http.failed", path=request.url.path[:200], error=type(exc).__name__)
    return ProblemResponse(internal_error())


async def replicas_handler(request: Request, exc: Exception) -> ProblemResponse:
    """503 `append.replicas_unconfirmed` with Retry-After: the write is on the primary but too
    few replicas confirmed it in time (`SCORELEDGER_APPEND_REPLICAS`), so it is not
    acknowledged; sending the same events again answers them as duplicates once confirmed, and
    a tournament or league write sent again with the same `Idempotency-Key` answers as stored
    (`services.usecases.idempotency`; without a key its retry is a new request).
    A write that created its game with a generated token carries `write_token`, as a 201 would."""
    assert isinstance(exc, ReplicasUnconfirmed)
    log.warning("http.replicas_unconfirmed", wanted=exc.wanted, acked=exc.acked)
    extras: dict[str, Any] = {"wanted": exc.wanted, "acked": exc.acked}
    if exc.write_token:
        extras["write_token"] = exc.write_token
    item = problem(
        503,
        "append.replicas_unconfirmed",
        None,
        f"{exc.acked} of {exc.wanted} replica(s) confirmed the write in time; send the same "
        f"request again after {RETRY_AFTER_S} s: the same game events are answered as "
        "duplicates, a tournament or league write as stored when it carries the same "
        "Idempotency-Key",
        **extras,
    )
    return ProblemResponse(item, headers={"Retry-After": str(RETRY_AFTER_S)})


def install_problem_handlers(app: FastAPI) -> None:
    """Install every handler above on `app`."""
    app.add_exception_handler(RequestValidationError, validation_handler)
    app.add_exception_handler(StarletteHTTPException, http_exception_handler)
    app.add_exception_handler(NotFound, not_found_handler)
    app.add_exception_handler(Pending, pending_handler)
    app.add_exception_handler(ReplayRefused, replay_refused_handler)
    app.add_exception_handler(ReplicasUnconfirmed, replicas_handler)
    for fault in STORAGE_FAULTS:
        app.add_exception_handler(fault, storage_handler)
    app.add_exception_handler(Exception, internal_handler)
