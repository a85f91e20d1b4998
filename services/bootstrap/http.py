"""The HTTP assembly of the composition root: the FastAPI app of a `Service` for its roles.

`assemble` mounts the routers in the app's order (it is also `contracts/openapi.json`'s order):
every door package in `FEATURES` mounts itself (`mount_query`, `mount_ingest`, `mount_pages`),
the games' first (`services.doors`: query, ingest, live push, web scoreboard), then each
feature's of the same part, in the order listed; then the probes, and the hot reads as raw ASGI
routes ahead of them. `build_app` builds and assembles in one call (`scoreledger serve`);
`ingest_app` is the ingest door alone and `change_hub` the push hub on any ports.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from services import doors as game_doors
from services.archive.usecases.tiered import ArchiveReader
from services.bootstrap.backends import Ports
from services.bootstrap.roles import Roles, roles_lifespan
from services.bootstrap.usecases import Service, UseCases, build
from services.doors.push.hub import ChangeHub
from services.leagues import doors as league_doors
from services.platform.settings import ServiceSettings
from services.tournaments import doors as tournament_doors
from services.usecases.live_changes import LiveChanges
from services.usecases.readmodels.reads import ReadModels

if TYPE_CHECKING:  # the web and inbox stacks load only in the processes that run them
    from fastapi import FastAPI

    from services.doors.asgi.lean import LeanRoute
    from services.doors.push.holds import ClientHolds
    from services.doors.query.front import FrontedFastAPI
    from services.doors.query.metrics import QueryMetrics


class FeatureDoors(Protocol):
    """A doors package (the games' or a feature's): it mounts its routers for each part of a
    role."""

    def mount_query(self, app: FastAPI, cases: UseCases, settings: ServiceSettings) -> None:
        """The feature's reads (query role)."""

    def mount_ingest(self, app: FastAPI, cases: UseCases, settings: ServiceSettings) -> None:
        """The feature's writes (ingest role)."""

    def mount_pages(
        self,
        app: FastAPI,
        cases: UseCases,
        settings: ServiceSettings,
        streams: ClientHolds,
        hub: ChangeHub,
    ) -> None:
        """The feature's live streams and pages (query role, with the push hub)."""


FEATURES: tuple[FeatureDoors, ...] = (game_doors, tournament_doors, league_doors)
"""The doors packages that mount themselves, in the app's route order (the games first)."""


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
        # operationId = the route's function name: generated clients get `post_events`, not
        # `post_events_games_game_id_events_post` (unique names: tests/contracts)
        generate_unique_id_function=lambda route: route.name,
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
    _mount_roles(app, service, roles)
    if hub is not None:
        streams = _mount_pages(app, service, hub)
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
    lean = _lean_write(service) if roles.ingest else []
    if hub is not None:  # the query role
        _install_lean_routes(app, reads, hub, metrics, streams, lean, service)
    elif lean:
        from services.doors.query.front import FrontDoor

        app.front = FrontDoor(app, lean, metrics, service.settings.max_body_bytes)
    return Assembled(app, service, hub)


def _lean_write(service: Service) -> list[LeanRoute]:
    """The ingest's write as a lean route for the front door (it stands in no router: the
    FastAPI route takes every request the door leaves)."""
    from services.doors.ingest.http import lean_ingest_route

    return [lean_ingest_route(service.cases.record, service.cases.tables)]


def build_app(roles: Roles, settings: ServiceSettings | None = None) -> FastAPI:
    """The FastAPI app for `roles` (settings from the environment when not given)."""
    return assemble(build(settings or ServiceSettings()), roles).app


def _mount_roles(app: FastAPI, service: Service, roles: Roles) -> None:
    """The routers of the query and the ingest role, each doors package's in turn."""
    cases, settings = service.cases, service.settings
    if roles.query:
        for feature in FEATURES:
            feature.mount_query(app, cases, settings)
    if roles.ingest:
        for feature in FEATURES:
            feature.mount_ingest(app, cases, settings)


def _mount_pages(app: FastAPI, service: Service, hub: ChangeHub) -> ClientHolds:
    """Live push and the pages (query role), each doors package's in turn, then the shared
    static files (a feature's `/static/<feature>/...` first); returns the holds of every live
    stream's client."""
    from services.doors.push.holds import ClientHolds
    from services.doors.web.routes import static_router

    cases, settings = service.cases, service.settings
    streams = ClientHolds(settings.live_per_client)  # every live stream's client
    for feature in FEATURES:
        feature.mount_pages(app, cases, settings, streams, hub)
    app.include_router(static_router())
    return streams


def _install_lean_routes(
    app: FrontedFastAPI,
    reads: ReadModels,
    hub: ChangeHub,
    metrics: QueryMetrics,
    streams: ClientHolds,
    writes: list[LeanRoute],
    service: Service,
) -> None:
    """The hot reads as raw ASGI routes ahead of their FastAPI declarations, and served by the
    app's front door ahead of its middleware (docs/decisions/0012-hot-reads-and-off-loop-replays.md),
    with the lean `writes` (the door's only)."""
    from services.doors.asgi.lean import install
    from services.doors.push.routes import lean_push_routes
    from services.doors.query.front import FrontDoor
    from services.doors.query.routes import lean_query_routes

    routes = [*lean_query_routes(reads), *lean_push_routes(hub, reads, streams)]
    install(app, routes)
    app.front = FrontDoor(app, [*routes, *writes], metrics, service.settings.max_body_bytes)


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
