"""Errors of the query service and their JSON bodies (`models.ErrorBody`)."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import JSONResponse

from services.adapters.redis.projections import GameNotFound
from services.query.models import ErrorBody


class QueryError(Exception):
    """A 4xx/5xx answer: HTTP `status`, stable `error` code, readable `message`, `field`."""

    def __init__(self, status: int, error: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.body = ErrorBody(error=error, message=message, field=field)


async def query_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """Render `QueryError` (and `GameNotFound` as 404 `game_not_found`) as `ErrorBody` JSON."""
    if isinstance(exc, GameNotFound):
        exc = QueryError(404, "game_not_found", str(exc), "game_id")
    assert isinstance(exc, QueryError)
    headers = {"Retry-After": "1"} if exc.status == 503 else None
    return JSONResponse(exc.body.model_dump(), status_code=exc.status, headers=headers)
