"""`scoreledger serve`: one process running any mix of ingest (HTTP), the inbox consumer, the
projector and the query service, as one FastAPI app under uvicorn.

Every mix serves `/healthz`, `/readyz` and `/metrics`, so each deployment (one role per
container) and the development mix (all roles) have the same probes. The projector and the
inbox run as lifespans of the app, in its event loop.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

import uvicorn
from fastapi import APIRouter, FastAPI

from services.projector import run_projector
from services.query.app import create_app
from services.settings import IngestSettings, ProjectorSettings, QuerySettings

Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[Any]]


@dataclass(frozen=True, slots=True)
class Roles:
    """Which services this process runs."""

    ingest: bool = True
    inbox: bool = True
    projector: bool = True
    query: bool = True

    def names(self) -> list[str]:
        return [name for name in ("ingest", "inbox", "projector", "query") if getattr(self, name)]


def _projector_lifespan(settings: ProjectorSettings) -> Lifespan:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with run_projector(settings):
            yield

    return lifespan


def _ingest_parts(settings: IngestSettings, roles: Roles) -> tuple[list[APIRouter], list[Lifespan]]:
    routers: list[APIRouter] = []
    lifespans: list[Lifespan] = []
    if roles.ingest:
        from services.ingest.http import ingest_lifespan, router

        routers.append(router)
        lifespans.append(ingest_lifespan(settings))
    if roles.inbox:
        from services.ingest.inbox import inbox_lifespan

        lifespans.append(inbox_lifespan(settings))
    return routers, lifespans


def _query_parts() -> tuple[list[APIRouter], list[Lifespan]]:
    from services.web import web_lifespans, web_routers

    return web_routers(), list(web_lifespans())


def build_app(roles: Roles, overrides: dict[str, Any] | None = None) -> FastAPI:
    """The FastAPI app for `roles`; settings come from the environment, then `overrides`
    (e.g. `{"redis_url": ...}` from the CLI or the demo).

    The query endpoints, SSE push and the web page come with `query`; ingest's router with
    `ingest`; the projector and the inbox consumer run in the app's lifespan.
    """
    overrides = overrides or {}
    query_settings = QuerySettings(**overrides)
    routers: list[APIRouter] = []
    lifespans: list[Lifespan] = []
    if roles.ingest or roles.inbox:
        more_routers, more_lifespans = _ingest_parts(IngestSettings(**overrides), roles)
        routers += more_routers
        lifespans += more_lifespans
    if roles.projector:
        lifespans.append(_projector_lifespan(ProjectorSettings(**overrides)))
    if roles.query:
        more_routers, more_lifespans = _query_parts()
        routers += more_routers
        lifespans += more_lifespans
    return create_app(
        query_settings,
        routers=routers,
        lifespans=lifespans,
        query=roles.query,
        lag_check=roles.query or roles.projector,
    )


def uvicorn_server(app: FastAPI, host: str, port: int) -> uvicorn.Server:
    """A uvicorn server for `app` whose logs go through the structlog set-up (no own config)."""
    return uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_config=None, lifespan="on"))
