"""The HTTP assembly of the composition root: the FastAPI app of a `Service` for its roles.

`assemble` mounts the routers in the app's order (it is also `contracts/openapi.json`'s order):
query, ingest, live push, web scoreboard (after push, so `/games/live` is not taken for a game
id), probes; then the hot reads as raw ASGI routes ahead of them. `build_app` builds and
assembles in one call (`scoreledger serve`); `ingest_app` is the ingest door alone and
`change_hub` the push hub on any ports.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from services.archive.usecases.tiered import ArchiveReader
from services.bootstrap.backends import Ports
from services.bootstrap.roles import Roles, roles_lifespan
from services.bootstrap.usecases import Service, UseCases, build
from services.doors.push.hub import ChangeHub
from services.platform.settings import ServiceSettings
from services.usecases.live_changes import LiveChanges
from services.usecases.readmodels.reads import ReadModels

if TYPE_CHECKING:  # the web and inbox stacks load only in the processes that run them
    from fastapi import FastAPI

    from services.doors.push.holds import ClientHolds
    from services.doors.query.front import FrontedFastAPI
    from services.doors.query.metrics import QueryMetrics


@dataclass(frozen=True, slots=True)
class Assembled:
    """An app and the parts a test or a benchmark may watch (the change hub, when `query`)."""

    app: FastAPI
    service: Service
    hub: ChangeHub | None


def assemble(service: Service, roles: Roles) -> Assembled:
    """The FastAPI app of `service` for `roles`: every mix serves `/healthz`, `/readyz` and
    `/metrics`; the query endpoints, SSE push and the web page come with `query`, the ingest
    route with `ingest`; the inbox and the projector run in the app's lifespan."""
    from services.doors.asgi.http_errors import install_problem_handlers
    from services.doors.asgi.replaylimits import ReplayQueueCollector
    from services.doors.push.holds import ClientHolds
    from services.doors.push.routes import push_router
    from services.doors.query.app import health_router
    from services.doors.query.docs import install_docs
    from services.doors.query.front import FrontedFastAPI
    from services.doors.query.metrics import MetricsMiddleware, QueryMetrics
    from services.doors.query.openapi import serve_publishable
    from services.platform.limits import BodySizeLimit

    reads = service.cases.reads
    archived = service.cases.archived
    hub = change_hub(service.ports, service.keys.shards, archived) if roles.query else None

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            await stack.enter_async_context(roles_lifespan(service, roles))
            if hub is not None:
                await hub.start(wait=False)  # the app comes up while Redis is down
                stack.push_async_callback(hub.stop)
                reads.replays.warm()  # the replay processes start now, not on the first read
                stack.push_async_callback(reads.replays.stop)  # and end with the app
            yield

    app = FrontedFastAPI(
        title="scoreledger",
        version="0.1.0",
        lifespan=lifespan,
        description="Live, event-sourced scoring for Trickerion and Penumbra.",
        docs_url=None,  # served offline by install_docs
        redoc_url=None,
    )
    install_docs(app)
    serve_publishable(app)  # /openapi.json is contracts/openapi.json, fix-ups included
    metrics = QueryMetrics()
    metrics.registry.register(ReplayQueueCollector(reads.replays.queue))
    app.add_middleware(BodySizeLimit, max_body_bytes=service.settings.max_body_bytes)
    # Metrics outermost: it sees the 413 the body limit sends itself (a chunked body passing the
    # limit mid-read: the app then fails on the disconnect it is given, which an inner metrics
    # layer counted as a 500, so anyone could raise the 5xx rate), and counts every refusal.
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    install_problem_handlers(app)
    if roles.query:
        from services.doors.query.routes import query_router
        from services.leagues.doors.query import league_read_router, tournament_leagues_router
        from services.tournaments.doors.query import tournament_read_router
        from services.tournaments.doors.web import tournament_list_router

        app.include_router(query_router(reads))
        app.include_router(tournament_list_router(service.cases.tournaments))  # before /{id}
        app.include_router(tournament_read_router(service.cases.tournaments))
        app.include_router(league_read_router(service.cases.leagues))
        app.include_router(tournament_leagues_router(service.cases.leagues))
    if roles.ingest:
        from services.doors.ingest.http import ingest_router
        from services.leagues.doors.ingest import league_write_router
        from services.tournaments.doors.ingest import tournament_write_router
        from services.tournaments.doors.ingest_club import tournament_club_router

        app.include_router(ingest_router(service.cases.record, service.cases.tables))
        app.include_router(tournament_write_router(service.cases.desk))
        app.include_router(tournament_club_router(service.cases.desk, service.settings))
        app.include_router(league_write_router(service.cases.leagues))
    if hub is not None:
        from services.doors.web.routes import web_router

        streams = ClientHolds(service.settings.live_per_client)  # every live stream's client
        app.include_router(push_router(hub, reads, streams))
        if service.settings.ingest_url is not None:  # a split deployment: writes go to ingest
            from services.doors.web.forward import forward_router

            app.include_router(forward_router(service.settings))
        app.include_router(web_router(reads, service.settings))
        _include_tournament_pages(app, service, streams)
    lag_check = roles.query or roles.projector
    app.include_router(
        health_router(
            service.client.ping,
            reads,
            metrics,
            service.settings.max_lag_events,
            lag_check,
            service.ports.projections.held,
        )
    )
    if hub is not None:  # the query role
        _install_lean_routes(app, reads, hub, metrics, streams)
    return Assembled(app, service, hub)


def build_app(roles: Roles, settings: ServiceSettings | None = None) -> FastAPI:
    """The FastAPI app for `roles` (settings from the environment when not given)."""
    return assemble(build(settings or ServiceSettings()), roles).app


def _include_tournament_pages(app: FastAPI, service: Service, streams: ClientHolds) -> None:
    """The tournament SSE and pages, and the league page (query role)."""
    from services.leagues.doors.web import league_web_router
    from services.leagues.doors.web_players import player_router
    from services.tournaments.doors.push import TournamentWatch, tournament_push_router
    from services.tournaments.doors.web import tournament_web_router

    s = service.settings
    watch = TournamentWatch(service.cases.tournaments, per_client=s.watch_per_client)
    app.include_router(tournament_push_router(watch, streams))
    app.include_router(tournament_web_router(service.cases.tournaments, service.settings))
    app.include_router(league_web_router(service.cases.leagues))
    app.include_router(player_router(service.cases.leagues))


def _install_lean_routes(
    app: FrontedFastAPI,
    reads: ReadModels,
    hub: ChangeHub,
    metrics: QueryMetrics,
    streams: ClientHolds,
) -> None:
    """The hot reads as raw ASGI routes ahead of their FastAPI declarations, and served by the
    app's front door ahead of its middleware (docs/decisions/0012-hot-reads-and-off-loop-replays.md)."""
    from services.doors.asgi.lean import install
    from services.doors.push.routes import lean_push_routes
    from services.doors.query.front import FrontDoor
    from services.doors.query.routes import lean_query_routes

    routes = [*lean_query_routes(reads), *lean_push_routes(hub, reads, streams)]
    install(app, routes)
    app.front = FrontDoor(app, routes, metrics)


def change_hub(
    ports: Ports, shards: int, archived: ArchiveReader | None = None, **options: float
) -> ChangeHub:
    """The push hub on `ports` (Redis or memory), rendering with `render_projection`;
    `options`: `ChangeHub`'s timings. Raises: TypeError: `ports` have no `pipeline`."""
    from services.doors.push.routes import render_projection

    if ports.pipeline is None:
        raise TypeError("the change hub needs ports with a pipeline (projection fields)")
    changes = LiveChanges(
        ports.notices,
        ports.pipeline.fields,
        shards,
        archived.projection_fields if archived is not None else None,
    )
    return ChangeHub(changes, render_projection, **options)  # type: ignore[arg-type]


def ingest_app(cases: UseCases, settings: ServiceSettings) -> FastAPI:
    """The ingest door alone (`POST /games/{id}/events`, body limit, problem answers) on
    `cases`, whatever their ports: the in-process pipeline (`tests/usecases`)."""
    from fastapi import FastAPI

    from services.doors.asgi.http_errors import install_problem_handlers
    from services.doors.ingest.http import ingest_router
    from services.platform.limits import BodySizeLimit

    app = FastAPI(title="scoreledger ingest")
    app.add_middleware(BodySizeLimit, max_body_bytes=settings.max_body_bytes)
    install_problem_handlers(app)
    app.include_router(ingest_router(cases.record))
    return app
