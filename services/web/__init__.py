"""The web scoreboard served by the query service: pages, static files, replay and export APIs.

`web_routers()` and `web_lifespans()` are what a composition root passes to
`services.query.app.create_app(settings, routers=..., lifespans=...)`: the live-push router
comes before the pages so `/games/live` is not taken for a game id.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter


def web_routers() -> list[APIRouter]:
    """The routers of live push (SSE) and of the web scoreboard, in mounting order."""
    from services.push.routes import router as push_router
    from services.web.routes import router as web_router

    return [push_router, web_router]


def web_lifespans() -> Sequence[Any]:
    """Lifespans the routers need: the process's shared change-stream reader (`ChangeHub`)."""
    from services.push.routes import push_lifespan

    return [push_lifespan]
