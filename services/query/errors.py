"""The read side's refusals as HTTP answers (`shapes.ErrorBody`): `NotFound` -> 404,
`Pending` -> 503 `projection_pending` with `Retry-After: 1`."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from services.usecases.readmodels.reads import NotFound, Pending
from services.usecases.readmodels.shapes import ErrorBody


async def not_found_handler(request: Request, exc: Exception) -> JSONResponse:
    """404 with the read model's error code, message and field."""
    assert isinstance(exc, NotFound)
    body = ErrorBody(error=exc.error, message=exc.message, field=exc.field)
    return JSONResponse(body.model_dump(), status_code=404)


async def pending_handler(request: Request, exc: Exception) -> JSONResponse:
    """503 `projection_pending`: the log exists, the projector has not caught up."""
    body = ErrorBody(error="projection_pending", message=str(exc), field=None)
    return JSONResponse(body.model_dump(), status_code=503, headers={"Retry-After": "1"})


def install_error_handlers(app: FastAPI) -> None:
    """Map the read models' `NotFound` and `Pending` on `app`."""
    app.add_exception_handler(NotFound, not_found_handler)
    app.add_exception_handler(Pending, pending_handler)
