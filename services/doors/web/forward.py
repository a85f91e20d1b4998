"""Forwarding of the page's writes to ingest in a split deployment (query and ingest apart).

`POST /games/{game_id}/events` on the query origin is passed to
`{SCORELEDGER_INGEST_URL}/games/{game_id}/events` with the body, `Content-Type` and
`Authorization` (the game's write token) unchanged; ingest checks the token, the version and
the rules exactly as for any client, and its answer (status and body) comes back as is.
Bounded: a body over `forward_max_bytes` is refused with 413 before anything is sent; ingest
unreachable gives 502 `ingest_unreachable`. Mounted only when `ingest_url` is set.
Source: docs/integrating/http.md ("dispute across a split deployment").
"""

from __future__ import annotations

from urllib.parse import quote

import httpx
from fastapi import APIRouter, Request, Response

from services.platform.problems import ProblemResponse, problem
from services.platform.settings import QuerySettings

FORWARDED_HEADERS = ("content-type", "authorization")


def forward_router(settings: QuerySettings) -> APIRouter:
    """The router that forwards writes to `settings.ingest_url` (which must be set)."""
    if settings.ingest_url is None:
        raise ValueError("forward_router: ingest_url is not set")
    base = str(settings.ingest_url).rstrip("/")
    router = APIRouter(tags=["web"])

    @router.post("/games/{game_id}/events", include_in_schema=False)
    async def forward_events(game_id: str, request: Request) -> Response:
        """Pass one append (or batch) to ingest; see the module docstring."""
        declared = request.headers.get("content-length")
        if declared is not None and (
            not declared.isdigit() or int(declared) > settings.forward_max_bytes
        ):
            return _problem(413, "body_too_large", f"body over {settings.forward_max_bytes} bytes")
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > settings.forward_max_bytes:
                return _problem(
                    413, "body_too_large", f"body over {settings.forward_max_bytes} bytes"
                )
        headers = {k: v for k, v in request.headers.items() if k.lower() in FORWARDED_HEADERS}
        try:
            async with httpx.AsyncClient(timeout=settings.forward_timeout_s) as client:
                answer = await client.post(
                    f"{base}/games/{quote(game_id, safe='')}/events",
                    content=bytes(body),
                    headers=headers,
                )
        except httpx.HTTPError as error:
            return _problem(
                502, "ingest_unreachable", f"ingest did not answer: {type(error).__name__}"
            )
        retry = answer.headers.get("retry-after")  # ingest's 503 while Redis is down
        return Response(
            answer.content,
            status_code=answer.status_code,
            media_type=answer.headers.get("content-type", "application/json"),
            headers={"Retry-After": retry} if retry is not None else None,
        )

    return router


def _problem(status: int, code: str, message: str) -> ProblemResponse:
    return ProblemResponse(problem(status, f"forward.{code}", None, message))
