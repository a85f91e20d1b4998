"""The web scoreboard served by the query service: pages, static files, replay and export APIs.

`web_routers(settings)` and `web_lifespans(settings)` are what a composition root passes to
`services.query.app.create_app(settings, routers=..., lifespans=...)`: the live-push router
comes before the pages so `/games/live` is not taken for a game id. With
`settings.ingest_url` set (a split deployment), a router forwarding the page's writes to
ingest is mounted too (`services.web.forward`). `settings` defaults to `WebSettings()` (the
environment, `SCORELEDGER_` prefix).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from fastapi import APIRouter, FastAPI

from services.web.settings import WebSettings


def web_routers(settings: WebSettings | None = None) -> list[APIRouter]:
    """The routers of live push (SSE), the write forwarder (split deployment only) and the web
    scoreboard, in mounting order."""
    from services.push.routes import router as push_router
    from services.web.forward import forward_router
    from services.web.routes import router as web_router

    settings = settings or WebSettings()
    forward = [forward_router(settings)] if settings.ingest_url is not None else []
    return [push_router, *forward, web_router]


def web_lifespans(settings: WebSettings | None = None) -> Sequence[Any]:
    """Lifespans the routers need: the process's shared change-stream reader (`ChangeHub`) and
    the scoreboard's settings (as `app.state.web_settings`)."""
    from services.push.routes import push_lifespan

    chosen = settings or WebSettings()

    @asynccontextmanager
    async def web_settings_lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.web_settings = chosen
        yield

    return [push_lifespan, web_settings_lifespan]
