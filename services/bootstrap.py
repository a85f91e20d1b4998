"""The one composition root: settings -> one Redis client (one retry policy) -> adapters ->
use cases -> the app and the processes for the roles asked.

Nothing else builds a client, an adapter or a use case (but the replay worker processes, which
build their own event log in `services.replaylog`). The app's mounting order (it is also
`contracts/openapi.json`'s order): query, ingest, live push, web scoreboard (after push, so
`/games/live` is not taken for a game id), probes. Handlers receive typed dependencies
(router factories taking the use cases); no `app.state` look-ups. FastStream's inbox broker
reads the inbox stream over its own connection (FastStream owns it); every other Redis call of
the process goes through the one client built here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from services.adapters.memory.store import (
    MemoryBackend,
    MemoryChangeNotices,
    MemoryCredentials,
    MemoryDeadLetters,
    MemoryEventLog,
    MemoryProjections,
)
from services.adapters.redis.connect import RedisClient, connect_from
from services.adapters.redis.credentials import RedisCredentials
from services.adapters.redis.deadletters import RedisDeadLetters
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.notices import RedisChangeNotices
from services.adapters.redis.projections import RedisProjections
from services.gctune import collecting_frozen
from services.keys import Keys
from services.ports.credentials import Credentials
from services.ports.deadletters import DeadLetters
from services.ports.eventlog import EventLog
from services.ports.notices import ChangeNotices
from services.ports.projections import Projections
from services.push.hub import ChangeHub
from services.replaylog import replay_log
from services.settings import ServiceSettings
from services.usecases.authorize import Authorizer, digest
from services.usecases.check import CheckedAppend
from services.usecases.project import Project
from services.usecases.readmodels.offloop import LogSource
from services.usecases.readmodels.reads import ReadModels
from services.usecases.record import Record
from services.usecases.release import Release

if TYPE_CHECKING:  # the web and inbox stacks load only in the processes that run them
    from fastapi import FastAPI
    from faststream import FastStream

    from services.adapters.redis.retention import FeedRetention
    from services.projector.loop import ProjectorLoop
    from services.query.front import FrontedFastAPI
    from services.query.metrics import QueryMetrics


@dataclass(frozen=True, slots=True)
class Roles:
    """Which services this process runs."""

    ingest: bool = True
    inbox: bool = True
    projector: bool = True
    query: bool = True

    def names(self) -> list[str]:
        return [name for name in ("ingest", "inbox", "projector", "query") if getattr(self, name)]


@dataclass(frozen=True, slots=True)
class Ports:
    """One adapter of every port, sharing one backend."""

    log: EventLog
    credentials: Credentials
    letters: DeadLetters
    projections: Projections
    notices: ChangeNotices


@dataclass(frozen=True, slots=True)
class UseCases:
    """The use cases every door calls."""

    record: Record
    project: Project
    reads: ReadModels
    release: Release


def _redis_client(settings: ServiceSettings) -> RedisClient:
    """The process's one Redis client (`connect_from`): a single node or a Redis Cluster by
    `redis_url` / `redis_cluster`, the role's ACL user, password and TLS CA, a waiting pool and
    connection errors retried with backoff."""
    return connect_from(settings)


def redis_ports(client: RedisClient, keys: Keys) -> Ports:
    """The Redis adapters of every port on `client`."""
    return Ports(
        RedisEventLog(client, keys),
        RedisCredentials(client, keys),
        RedisDeadLetters(client, keys),
        RedisProjections(client, keys),
        RedisChangeNotices(client, keys),
    )


def memory_ports(shards: int = 16) -> Ports:
    """The in-memory adapters of every port, on one fresh backend (tests, specs)."""
    backend = MemoryBackend(shards=shards)
    return Ports(
        MemoryEventLog(backend),
        MemoryCredentials(backend),
        MemoryDeadLetters(backend),
        MemoryProjections(backend),
        MemoryChangeNotices(backend),
    )


def use_cases(
    ports: Ports, settings: ServiceSettings, replay_source: LogSource | None = None
) -> UseCases:
    """The use cases on `ports`, configured by `settings` (`replay_source`: where the replay
    workers read the log, None for ports they cannot open, such as the in-memory ones)."""
    key = settings.creator_key
    authorizer = Authorizer(digest(key.get_secret_value()) if key is not None else None)
    checked = CheckedAppend(ports.log, settings.state_cache_games, settings.state_cache_bytes)
    return UseCases(
        record=Record(ports.credentials, checked, authorizer),
        project=Project(
            ports.log,
            ports.projections,
            ports.letters,
            changes_maxlen=settings.changes_maxlen,
            cache_bytes=settings.projector_cache_bytes,
        ),
        reads=ReadModels(
            ports.log,
            ports.projections,
            cache_bytes=settings.read_cache_bytes,
            replay_source=replay_source,
        ),
        release=Release(ports.log, ports.projections),
    )


@dataclass(frozen=True, slots=True)
class Service:
    """A built process: its client, key layout, ports and use cases."""

    settings: ServiceSettings
    client: RedisClient
    keys: Keys
    ports: Ports
    cases: UseCases


def build(settings: ServiceSettings) -> Service:
    """Client, adapters and use cases for `settings` (no connection is opened yet)."""
    client = _redis_client(settings)
    keys = Keys(settings.shards)
    ports = redis_ports(client, keys)
    source = LogSource(replay_log, (settings,))
    return Service(settings, client, keys, ports, use_cases(ports, settings, source))


def build_app(roles: Roles, settings: ServiceSettings | None = None) -> FastAPI:
    """The FastAPI app for `roles` (settings from the environment when not given)."""
    return assemble(build(settings or ServiceSettings()), roles).app


def inbox_app(service: Service, consumer: str | None = None) -> FastStream:
    """The inbox consumer of `service` as a FastStream app (its broker connects on start);
    `consumer` None: the setting `inbox_consumer`, else `ingest-<hostname>-<pid>`."""
    from services.ingest.inbox import Inbox, Retention
    from services.ingest.inbox_app import build_inbox_app

    settings = service.settings
    retention = Retention(
        settings.inbox_keep_s, settings.dead_letter_keep_s, settings.retention_every_s
    )
    inbox = Inbox(
        service.client,
        service.keys,
        service.cases.record,
        service.ports.letters,
        retention,
        retry_cap_s=settings.inbox_retry_cap_s,
        max_entry_bytes=settings.max_body_bytes,
    )
    return build_inbox_app(service.settings, inbox, consumer)


@asynccontextmanager
async def running_inbox(
    settings: ServiceSettings, consumer: str | None = None
) -> AsyncIterator[None]:
    """Run an inbox consumer (own `Service`) for the block's duration."""
    service = build(settings)
    try:
        async with inbox_app(service, consumer):
            yield
    finally:
        await service.client.aclose()


def feed_retention(service: Service) -> FeedRetention | None:
    """The projector's feed trimming and its reseed from the game streams (None: off)."""
    from services.adapters.redis.retention import FeedRetention
    from services.usecases.reseed import Reseed

    settings, ports = service.settings, service.ports
    if not settings.feed_trim:
        return None
    reseed = Reseed(
        ports.log, ports.projections, ports.letters, service.keys.shards, settings.changes_maxlen
    )
    return FeedRetention(
        service.client, service.keys, settings.feed_keep_s, settings.feed_trim_every_s, reseed.shard
    )


def projecting(service: Service) -> AbstractAsyncContextManager[ProjectorLoop]:
    """The projector of `service`: its loop over the shards this process holds, under a lease
    per shard (`ShardOwnership`, owner id `owner_id()`, `lease_ttl_ms`); entering it starts
    everything within `projector_start_timeout_s` or raises `StartupFailed`."""
    from services.adapters.redis.lease import ShardLeases
    from services.adapters.redis.ownership import ShardOwnership, owner_id
    from services.projector.loop import ProjectorLoop, running

    settings = service.settings
    projections = service.ports.projections
    if not isinstance(projections, RedisProjections):
        raise TypeError("the projector needs the Redis projections (fenced writes)")
    loop = ProjectorLoop(
        service.client,
        service.keys,
        service.cases.project,
        projections,
        batch=settings.batch,
        retention=feed_retention(service),
    )
    leases = ShardLeases(service.client, service.keys, owner_id(), settings.lease_ttl_ms)
    ownership = ShardOwnership(leases, loop.acquire, loop.lose)
    return running(loop, ownership, settings.projector_start_timeout_s)


@asynccontextmanager
async def running_projector(settings: ServiceSettings) -> AsyncIterator[Service]:
    """Run a projector (own `Service`, `projecting`) for the block's duration; yields the
    service. Raises `StartupFailed` when it cannot start (the client is closed)."""
    service = build(settings)
    try:
        async with projecting(service):
            yield service
    finally:
        await service.client.aclose()


@asynccontextmanager
async def roles_lifespan(service: Service, roles: Roles) -> AsyncIterator[None]:
    """What `roles` run beside the routes: the inbox consumer, the projector loop; the client
    is closed at the end."""
    try:
        async with AsyncExitStack() as stack:
            if roles.inbox:
                await stack.enter_async_context(inbox_app(service))
            if roles.projector:
                await _enter_projector(stack, service)
                await stack.enter_async_context(collecting_frozen())  # serve --projector
            yield
    finally:
        await service.client.aclose()


async def _enter_projector(stack: AsyncExitStack, service: Service) -> None:
    """Start the projector of `service` on `stack`; a start-up failure raises its cause, so
    `serve` classifies it like its own check (exit codes: services/cli/startup.py)."""
    from services.projector.loop import StartupFailed

    cause: BaseException | None = None
    try:
        await stack.enter_async_context(projecting(service))
    except StartupFailed as failed:
        cause = failed.__cause__ or failed
    if cause is not None:  # raised outside the handler: no cycle in the exception chain
        raise cause


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
    from services.http_errors import install_problem_handlers
    from services.limits import BodySizeLimit
    from services.push.routes import push_router, render_projection
    from services.query.app import health_router
    from services.query.docs import install_docs
    from services.query.front import FrontedFastAPI
    from services.query.metrics import MetricsMiddleware, QueryMetrics

    reads = service.cases.reads
    hub = ChangeHub(service.client, service.keys, render_projection) if roles.query else None

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
    metrics = QueryMetrics()
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    app.add_middleware(BodySizeLimit, max_body_bytes=service.settings.max_body_bytes)  # outermost
    install_problem_handlers(app)
    if roles.query:
        from services.query.routes import query_router

        app.include_router(query_router(reads))
    if roles.ingest:
        from services.ingest.http import ingest_router

        app.include_router(ingest_router(service.cases.record))
    if hub is not None:
        from services.web.routes import web_router

        app.include_router(push_router(hub, reads))
        if service.settings.ingest_url is not None:  # a split deployment: writes go to ingest
            from services.web.forward import forward_router

            app.include_router(forward_router(service.settings))
        app.include_router(web_router(reads, service.settings))
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
    _install_lean_routes(app, reads, hub, metrics)
    return Assembled(app, service, hub)


def _install_lean_routes(
    app: FrontedFastAPI, reads: ReadModels, hub: ChangeHub | None, metrics: QueryMetrics
) -> None:
    """The hot reads as raw ASGI routes ahead of their FastAPI declarations, and served by the
    app's front door ahead of its middleware (issue 9)."""
    from services.push.routes import lean_push_routes
    from services.query.front import FrontDoor
    from services.query.lean import install
    from services.query.routes import lean_query_routes

    if hub is not None:  # the query role
        routes = [*lean_query_routes(reads), *lean_push_routes(hub)]
        install(app, routes)
        app.front = FrontDoor(app, routes, metrics)
