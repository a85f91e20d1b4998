"""The one composition root: settings -> one Redis client (one retry policy) -> adapters ->
use cases -> the app and the processes for the roles asked.

Nothing else builds a client, an adapter or a use case (the replay worker processes build their
own event log here too: `replay_log`). The app's mounting order (it is also
`contracts/openapi.json`'s order): query, ingest, live push, web scoreboard (after push, so
`/games/live` is not taken for a game id), probes. Handlers receive typed dependencies
(router factories taking the use cases); no `app.state` look-ups. FastStream's inbox broker
reads the inbox stream over its own connection (FastStream owns it); every other Redis call of
the process goes through the one client built here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from services.adapters.memory.approvals import MemoryApprovalSchedule
from services.adapters.memory.feeds import MemoryFeedRetention, MemoryShardFeeds
from services.adapters.memory.hotgames import MemoryHotGames
from services.adapters.memory.leagues import MemoryLeagueLog
from services.adapters.memory.leases import MemoryShardLeases
from services.adapters.memory.names import MemoryPlayerNames, MemorySideNames
from services.adapters.memory.store import (
    MemoryBackend,
    MemoryChangeNotices,
    MemoryCredentials,
    MemoryDeadLetters,
    MemoryEventLog,
    MemoryProjections,
)
from services.adapters.memory.tournaments import MemoryTournamentLog
from services.adapters.memory.webhooks import MemoryWebhookStore
from services.adapters.redis.approvals import RedisApprovalSchedule
from services.adapters.redis.connect import RedisClient, connect, connect_from
from services.adapters.redis.credentials import RedisCredentials
from services.adapters.redis.deadletters import RedisDeadLetters
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.feeds import RedisShardFeeds
from services.adapters.redis.hotgames import RedisHotGames
from services.adapters.redis.keys import Keys
from services.adapters.redis.leagues import LEAGUE, RedisLeagueLog
from services.adapters.redis.lease import ShardLeases as RedisShardLeases
from services.adapters.redis.localredis import NoRedis as NoRedis  # the demo's Redis
from services.adapters.redis.localredis import demo_redis as demo_redis
from services.adapters.redis.names import RedisPlayerNames, RedisSideNames
from services.adapters.redis.notices import RedisChangeNotices
from services.adapters.redis.projections import RedisProjections
from services.adapters.redis.retention import FeedRetention
from services.adapters.redis.tournaments import RedisTournamentLog
from services.adapters.redis.webhooks import RedisWebhookStore
from services.doors.push.hub import ChangeHub
from services.platform.gctune import collecting_frozen
from services.platform.settings import CommonSettings, IngestSettings, ServiceSettings
from services.ports.approvals import ApprovalSchedule
from services.ports.archive import Archive
from services.ports.credentials import Credentials
from services.ports.deadletters import DeadLetters
from services.ports.eventlog import EventLog
from services.ports.feeds import FeedTrimming, Reseed, ShardFeeds
from services.ports.hotgames import HotGames
from services.ports.inbox import InboxQueue
from services.ports.leagues import LeagueLog
from services.ports.leases import FencedProjections, ShardLeases
from services.ports.names import PlayerNames, SideNames
from services.ports.notices import ChangeNotices, ProjectionFields
from services.ports.projections import Projections
from services.ports.tournaments import TournamentLog
from services.ports.webhooks import WebhookStore
from services.usecases.authorize import Authorizer, digest
from services.usecases.check import CheckedAppend
from services.usecases.league_rating import OpenSkillModel
from services.usecases.leagues import Leagues
from services.usecases.names import Forget, NamedEventLog
from services.usecases.opening import OpeningArchive
from services.usecases.project import Project
from services.usecases.readmodels.fairqueue import Limits
from services.usecases.readmodels.offloop import PROCESSES, LogSource
from services.usecases.readmodels.reads import ReadModels
from services.usecases.readmodels.snapshots import SnapshotConfig
from services.usecases.record import Record
from services.usecases.release import Release
from services.usecases.seal import Seal
from services.usecases.side_names import NamedSideLog, SideForget
from services.usecases.tiered import (
    ArchiveReader,
    TieredCredentials,
    TieredEventLog,
    TieredProjections,
)
from services.usecases.tournament_desk import TournamentDesk
from services.usecases.tournament_tables import TableGames
from services.usecases.tournaments import Tournaments

if TYPE_CHECKING:  # the web and inbox stacks load only in the processes that run them
    from fastapi import FastAPI
    from faststream import FastStream
    from faststream.redis import RedisBroker

    from services.doors.ingest.inbox import Inbox
    from services.doors.projector.loop import ProjectorLoop
    from services.doors.push.holds import ClientHolds
    from services.doors.query.front import FrontedFastAPI
    from services.doors.query.metrics import QueryMetrics
    from services.doors.webhooks.loop import WebhooksLoop
    from services.usecases.webhooks.admin import WebhookAdmin


async def open_archive(settings: ServiceSettings) -> Archive | None:
    """The archive of `settings.archive_url`, opened now (None when unset): a directory for
    `file:///dir`, PostgreSQL (pooled, schema migrated) for `postgresql://`.

    Raises: ArchiveUnavailable (PostgreSQL unreachable), psycopg errors (a failed migration).
    """
    archive = archive_of(settings)
    return None if archive is None else await archive.open()


@dataclass(frozen=True, slots=True)
class Roles:
    """Which services this process runs (`webhooks`: off unless asked, since a deployment runs
    one dispatcher: two would queue every message twice)."""

    ingest: bool = True
    inbox: bool = True
    projector: bool = True
    query: bool = True
    archiver: bool = False
    """Seal final, quiet games into the archive (only when `archive_url` is set)."""
    webhooks: bool = False

    def names(self) -> list[str]:
        names = ("ingest", "inbox", "projector", "query", "archiver", "webhooks")
        return [name for name in names if getattr(self, name)]


@dataclass(frozen=True, slots=True)
class PipelinePorts:
    """What the projector and the push hub need beyond `Ports`, on the same backend.

    `projections` and `fields` are the very object of `Ports.projections` (the project use
    case writes through it, so the leases it holds fence those writes)."""

    feeds: ShardFeeds
    projections: FencedProjections
    fields: ProjectionFields
    leases: Callable[[str, int], ShardLeases]
    """(owner id, ttl_ms) -> that owner's leases."""
    trimming: Callable[[float, float, Reseed], FeedTrimming]
    """(keep_s, every_s, reseed) -> the feeds' retention."""


@dataclass(frozen=True, slots=True)
class Ports:
    """One adapter of every port, sharing one backend."""

    log: EventLog
    credentials: Credentials
    letters: DeadLetters
    projections: Projections
    notices: ChangeNotices
    webhooks: WebhookStore
    tournaments: TournamentLog
    leagues: LeagueLog
    hot_games: HotGames | None = None
    archive: Archive | None = None
    """The archive of sealed games (None: no archiving; every game stays in Redis)."""
    pipeline: PipelinePorts | None = None
    """The projector's and the push hub's ports (None: these ports cannot run them)."""
    approvals: ApprovalSchedule | None = None
    """When reported tournament results fall due for auto-approval (None: no timer)."""
    names: PlayerNames | None = None
    """Player names kept outside the log (None: names stay inline, as stored before)."""
    tournament_names: SideNames | None = None
    """Names kept outside the tournament streams (None: inline, as stored before)."""
    league_names: SideNames | None = None
    """Names kept outside the league streams (None: inline, as stored before)."""

    def named_log(self) -> EventLog:
        """`log` with names kept outside it (`usecases.names.NamedEventLog`; Redis only)."""
        return self.log if self.names is None else NamedEventLog(self.log, self.names)


@dataclass(frozen=True, slots=True)
class UseCases:
    """The use cases every door calls."""

    record: Record
    project: Project
    reads: ReadModels
    release: Release
    tournaments: Tournaments
    desk: TournamentDesk
    tables: TableGames
    """Tournament tables' games: created at seating, followed to the tables' results."""
    leagues: Leagues
    seal: Seal | None = None
    """Sealing into the archive (None: no archive)."""
    archived: ArchiveReader | None = None
    """Archived games as the doors read them (None: no archive)."""
    forget: Forget | None = None
    """Forgetting a player's name (`scoreledger forget`; None: names are not kept apart)."""


def _redis_client(settings: ServiceSettings) -> RedisClient:
    """The process's one Redis client (`connect_from`): a single node or a Redis Cluster by
    `redis_url` / `redis_cluster`, the role's ACL user, password and TLS CA, a waiting pool and
    connection errors retried with backoff."""
    return connect_from(settings)


def redis_ports(
    client: RedisClient,
    keys: Keys,
    archive: Archive | None = None,
    append_replicas: int = 0,
    append_wait_ms: int = 1000,
) -> Ports:
    """The Redis adapters of every port on `client`, and `archive` (None: none); appends wait
    for `append_replicas` replicas up to `append_wait_ms` (`SCORELEDGER_APPEND_REPLICAS`)."""
    projections = RedisProjections(client, keys)
    pipeline = PipelinePorts(
        RedisShardFeeds(client, keys),
        projections,
        projections,
        lambda owner, ttl_ms: RedisShardLeases(client, keys, owner, ttl_ms),
        lambda keep_s, every_s, reseed: FeedRetention(client, keys, keep_s, every_s, reseed),
    )
    return Ports(
        RedisEventLog(client, keys, append_replicas, append_wait_ms),
        RedisCredentials(client, keys),
        RedisDeadLetters(client, keys),
        projections,
        RedisChangeNotices(client, keys),
        RedisWebhookStore(client, keys),
        RedisTournamentLog(client, keys, append_replicas, append_wait_ms),
        RedisLeagueLog(client, keys, append_replicas, append_wait_ms),
        RedisHotGames(client, keys),
        archive,
        pipeline,
        RedisApprovalSchedule(client, keys),
        RedisPlayerNames(client, keys),
        RedisSideNames(client, keys),
        RedisSideNames(client, keys, LEAGUE),
    )


def memory_ports(shards: int = 16, archive: Archive | None = None) -> Ports:
    """The in-memory adapters of every port, on one fresh backend (tests, specs), and
    `archive` (None: none)."""
    backend = MemoryBackend(shards=shards)
    projections = MemoryProjections(backend)
    pipeline = PipelinePorts(
        MemoryShardFeeds(backend),
        projections,
        projections,
        lambda owner, ttl_ms: MemoryShardLeases(backend, owner, ttl_ms),
        lambda keep_s, every_s, reseed: MemoryFeedRetention(backend, keep_s, every_s, reseed),
    )
    tournament_log, league_log = MemoryTournamentLog(), MemoryLeagueLog()
    return Ports(
        MemoryEventLog(backend),
        MemoryCredentials(backend),
        MemoryDeadLetters(backend),
        projections,
        MemoryChangeNotices(backend),
        MemoryWebhookStore(),
        tournament_log,
        league_log,
        MemoryHotGames(backend),
        archive,
        pipeline,
        MemoryApprovalSchedule(),
        MemoryPlayerNames(backend),
        MemorySideNames(tournament_log),
        MemorySideNames(league_log),
    )


def use_cases(
    ports: Ports, settings: ServiceSettings, replay_source: LogSource | None = None
) -> UseCases:
    """The use cases on `ports`, configured by `settings` (`replay_source`: where the replay
    workers read the log, None for ports they cannot open, such as the in-memory ones)."""
    key = settings.creator_key
    authorizer = Authorizer(digest(key.get_secret_value()) if key is not None else None)
    # With an archive, the doors' log, credentials and projections fall through to it; the
    # projector, release and sealing work on Redis alone.
    log, credentials, projections = ports.named_log(), ports.credentials, ports.projections
    hot_log = log
    seal = reader = None
    if ports.archive is not None and ports.hot_games is not None:
        reader = ArchiveReader(ports.archive)
        log = TieredEventLog(ports.log, ports.hot_games, reader)
        if ports.names is not None:
            log = NamedEventLog(log, ports.names, reader, ports.log)
        credentials = TieredCredentials(ports.credentials, reader)
        projections = TieredProjections(ports.projections, reader, settings.shards)
        seal = Seal(
            ports.log, ports.projections, ports.hot_games, ports.archive, settings.archive_after_s
        )
    tournament_log: TournamentLog = ports.tournaments
    league_log: LeagueLog = ports.leagues
    side = None
    if ports.tournament_names is not None and ports.league_names is not None:
        named_t = NamedSideLog(ports.tournaments, ports.tournament_names)
        named_l = NamedSideLog(ports.leagues, ports.league_names)
        names_of = log.names_of if isinstance(log, NamedEventLog) else None
        tournament_log, league_log = named_t, named_l
        side = SideForget(named_t, named_l, names_of)
    tournaments = Tournaments(
        tournament_log,
        schedule=ports.approvals,
        names_count=None if ports.tournament_names is None else ports.tournament_names.count,
    )
    checked = CheckedAppend(log, settings.state_cache_games, settings.state_cache_bytes)
    # A tournament creates its tables' games through the same record use case as
    # POST /games, without the creator key: creating the tournament needed it already.
    tables = TableGames(tournaments, Record(credentials, checked, Authorizer(None)), log)
    return UseCases(
        record=Record(credentials, checked, authorizer),
        project=Project(
            hot_log,
            ports.projections,
            ports.letters,
            changes_maxlen=settings.changes_maxlen,
            cache_bytes=settings.projector_cache_bytes,
            names=ports.names,
        ),
        reads=ReadModels(
            log,
            projections,
            cache_bytes=settings.read_cache_bytes,
            replay_source=replay_source,
            limits=Limits(
                slots=PROCESSES,
                queued=settings.replay_queue,
                per_client=settings.replay_per_client,
                deadline_s=settings.replay_deadline_s,
            ),
            snapshots=SnapshotConfig(
                every=settings.replay_snapshot_every, max_bytes=settings.replay_snapshot_bytes
            ),
            names_stamp=log.names_stamp if isinstance(log, NamedEventLog) else None,
        ),
        release=Release(hot_log, ports.projections),
        tournaments=tournaments,
        desk=TournamentDesk(tournaments, authorizer, tables),
        tables=tables,
        leagues=Leagues(
            league_log,
            tournaments,
            log,
            authorizer,
            OpenSkillModel(),
            added=None if side is None else side.league_added,
        ),
        seal=seal,
        archived=reader,
        forget=None
        if ports.names is None
        else Forget(
            ports.log,
            ports.names,
            ports.archive,
            side=side,
            tiers=ports.hot_games,
            webhooks=ports.webhooks,
        ),
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
    ports = redis_ports(
        client, keys, archive_of(settings), settings.append_replicas, settings.append_wait_ms
    )
    source = LogSource(replay_log, (settings,))
    return Service(settings, client, keys, ports, use_cases(ports, settings, source))


def build_app(roles: Roles, settings: ServiceSettings | None = None) -> FastAPI:
    """The FastAPI app for `roles` (settings from the environment when not given)."""
    return assemble(build(settings or ServiceSettings()), roles).app


def inbox_app(service: Service, consumer: str | None = None) -> FastStream:
    """The inbox consumer of `service` as a FastStream app (its broker connects on start);
    `consumer` None: the setting `inbox_consumer`, else `ingest-<hostname>-<pid>`."""
    from services.adapters.redis.inbox import RedisInboxQueue
    from services.doors.ingest.inbox import Inbox, Retention
    from services.doors.ingest.inbox_app import build_inbox_app
    from services.doors.ingest.inbox_entry import game_of_entry

    settings = service.settings
    retention = Retention(
        settings.inbox_keep_s,
        settings.dead_letter_keep_s,
        settings.retention_every_s,
        settings.inbox_max_len,
    )
    inbox = Inbox(
        RedisInboxQueue(service.client, service.keys.inbox, game_of_entry),
        service.keys,
        service.cases.record,
        service.ports.letters,
        retention,
        retry_cap_s=settings.inbox_retry_cap_s,
        max_entry_bytes=settings.max_body_bytes,
        follow=service.cases.tables.after_write,
    )
    return build_inbox_app(service.settings, inbox, inbox_broker(settings), consumer)


def inbox_broker(settings: IngestSettings) -> RedisBroker:
    """FastStream's broker for the inbox: `RedisClusterBroker` (its startup nodes from the
    cluster URL) on a Redis Cluster, `RedisBroker` on a single node."""
    from faststream.redis import RedisBroker, RedisClusterBroker

    from services.adapters.redis.connect import parse_target

    target = parse_target(settings.redis_url, settings.redis_cluster)
    # FastStream's own logger writes to stdout, which `demo` keeps for the final standings.
    options: dict[str, Any] = {"logger": None, **settings.redis_options()}
    if target.cluster:
        options.pop("ssl_context", None)  # RedisCluster takes TLS options, not a context
        return RedisClusterBroker(target.url, startup_nodes=list(target.nodes), **options)
    return RedisBroker(target.url, **options)


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


def feed_retention(service: Service) -> FeedTrimming | None:
    """The projector's feed trimming and its reseed from the game streams (None: off)."""
    return feed_trimming(service.ports, service.settings)


def feed_trimming(ports: Ports, settings: ServiceSettings) -> FeedTrimming | None:
    """The feed trimming of `ports` (`feed_trim` and its times) with its reseed from the game
    streams (None: off)."""
    from services.usecases.reseed import Reseed

    if not settings.feed_trim or ports.pipeline is None:
        return None
    reseed = Reseed(
        ports.log, ports.projections, ports.letters, settings.shards, settings.changes_maxlen
    )
    return ports.pipeline.trimming(settings.feed_keep_s, settings.feed_trim_every_s, reseed.shard)


def projecting(service: Service) -> AbstractAsyncContextManager[ProjectorLoop]:
    """The projector of `service` (`projector`)."""
    return projector(service.ports, service.cases, service.settings)


def projector(
    ports: Ports, cases: UseCases, settings: ServiceSettings
) -> AbstractAsyncContextManager[ProjectorLoop]:
    """The projector on `ports` (Redis or memory): its loop over the shards this process
    holds, under a lease per shard (`ShardOwnership`, owner id `owner_id()`, `lease_ttl_ms`);
    entering it starts everything within `projector_start_timeout_s` or raises
    `StartupFailed`. Raises: TypeError: `ports` have no `pipeline`."""
    from services.doors.projector.loop import ProjectorLoop, running
    from services.usecases.ownership import ShardOwnership, owner_id

    pipe = ports.pipeline
    if pipe is None:
        raise TypeError("the projector needs ports with a pipeline (feeds, leases)")
    loop = ProjectorLoop(
        pipe.feeds,
        settings.shards,
        cases.project,
        pipe.projections,
        batch=settings.batch,
        retention=feed_trimming(ports, settings),
    )
    ownership = ShardOwnership(
        pipe.leases(owner_id(), settings.lease_ttl_ms), loop.acquire, loop.lose
    )
    return running(loop, ownership, settings.projector_start_timeout_s)


def change_hub(
    ports: Ports, shards: int, archived: ArchiveReader | None = None, **options: float
) -> ChangeHub:
    """The push hub on `ports` (Redis or memory), rendering with `render_projection`;
    `options`: `ChangeHub`'s timings. Raises: TypeError: `ports` have no `pipeline`."""
    from services.doors.push.routes import render_projection

    if ports.pipeline is None:
        raise TypeError("the change hub needs ports with a pipeline (projection fields)")
    return ChangeHub(
        ports.notices,
        ports.pipeline.fields,
        shards,
        render_projection,
        archived=archived.projection_fields if archived is not None else None,
        **options,  # type: ignore[arg-type]
    )


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


def _webhook_parts(
    service: Service,
) -> tuple[WebhooksLoop, WebhookAdmin, AbstractAsyncContextManager[object]]:
    """The webhooks role's loop and the operator's use case on `service`, sharing one httpx
    transport (the third part: its closer)."""
    from contextlib import aclosing

    from services.adapters.http.webhooks import HttpxTransport
    from services.doors.webhooks.loop import WebhooksLoop
    from services.usecases.webhooks.admin import WebhookAdmin
    from services.usecases.webhooks.deliver import RetryPolicy, Sender
    from services.usecases.webhooks.dispatch import Bounds, Dispatcher

    s, ports = service.settings, service.ports
    transport = HttpxTransport(s.webhook_timeout_s, allow_private=s.webhook_allow_private)
    bounds = Bounds(s.webhook_queue_max, s.webhook_log_max)
    policy = RetryPolicy(
        s.webhook_max_attempts,
        s.webhook_backoff_s,
        s.webhook_backoff_max_s,
        s.webhook_backoff_max_s,
    )
    sender = Sender(ports.webhooks, transport, policy, bounds.max_log)
    dispatcher = Dispatcher(
        ports.webhooks,
        ports.notices,
        ports.named_log(),
        ports.projections,
        service.keys.shards,
        bounds,
    )
    grace_s = s.webhook_timeout_s + 1.0
    loop = WebhooksLoop(dispatcher, sender, ports.webhooks, s.webhook_poll_s, grace_s)
    admin = WebhookAdmin(ports.webhooks, sender, bounds, allow_private=s.webhook_allow_private)
    return loop, admin, aclosing(transport)


@asynccontextmanager
async def webhooking(service: Service) -> AsyncIterator[WebhooksLoop]:
    """Run the webhooks role of `service` (dispatcher and senders) for the block's duration."""
    from services.doors.webhooks.loop import running

    loop, _, transport = _webhook_parts(service)
    async with transport, running(loop):
        yield loop


@asynccontextmanager
async def webhook_admin(settings: ServiceSettings) -> AsyncIterator[WebhookAdmin]:
    """The operator's webhook use case (own `Service`) for the block's duration."""
    service = build(settings)
    try:
        _, admin, transport = _webhook_parts(service)
        async with transport:
            yield admin
    finally:
        await service.client.aclose()


@asynccontextmanager
async def roles_lifespan(service: Service, roles: Roles) -> AsyncIterator[None]:
    """What `roles` run beside the routes: the inbox consumer, the projector loop; the client
    is closed at the end."""
    archive = service.ports.archive
    try:
        async with AsyncExitStack() as stack:
            if isinstance(archive, OpeningArchive):
                await archive.open()  # an unreachable archive fails the start, not a read
            if roles.inbox:
                await stack.enter_async_context(inbox_app(service))
            if roles.ingest or roles.inbox:
                await _enter_approvals(stack, service)
            if roles.projector:
                await _enter_projector(stack, service)
                await stack.enter_async_context(collecting_frozen())  # serve --projector
            if roles.archiver and service.cases.seal is not None:
                from services.doors.archiver import sealing

                await stack.enter_async_context(sealing(service.cases.seal, service.settings))
            if roles.webhooks:
                await stack.enter_async_context(webhooking(service))
            yield
    finally:
        if archive is not None:
            await archive.close()
        await service.client.aclose()


async def _enter_approvals(stack: AsyncExitStack, service: Service) -> None:
    """Start the tournaments' auto-approval timer of `service` on `stack` (the processes that
    write tournaments run it; off with `approval_every_s` 0)."""
    from services.doors.ingest.approvals import approving
    from services.usecases.tournament_timer import ApprovalTimer

    s, schedule = service.settings, service.ports.approvals
    if s.approval_every_s <= 0 or schedule is None:
        return
    timer = ApprovalTimer(service.cases.tournaments, schedule, s.approval_batch, s.approval_lease_s)
    await stack.enter_async_context(approving(timer, s.approval_every_s))


async def _enter_projector(stack: AsyncExitStack, service: Service) -> None:
    """Start the projector of `service` on `stack`; a start-up failure raises its cause, so
    `serve` classifies it like its own check (exit codes: services/cli/startup.py)."""
    from services.doors.projector.loop import StartupFailed

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
        from services.doors.query.leagues import league_read_router
        from services.doors.query.routes import query_router
        from services.doors.query.tournaments import tournament_read_router
        from services.doors.web.tournaments import tournament_list_router

        app.include_router(query_router(reads))
        app.include_router(tournament_list_router(service.cases.tournaments))  # before /{id}
        app.include_router(tournament_read_router(service.cases.tournaments))
        app.include_router(league_read_router(service.cases.leagues))
    if roles.ingest:
        from services.doors.ingest.http import ingest_router
        from services.doors.ingest.leagues import league_write_router
        from services.doors.ingest.tournaments import tournament_write_router

        app.include_router(ingest_router(service.cases.record, service.cases.tables))
        app.include_router(tournament_write_router(service.cases.desk))
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


def _include_tournament_pages(app: FastAPI, service: Service, streams: ClientHolds) -> None:
    """The tournament SSE and pages, and the league page (query role)."""
    from services.doors.push.tournaments import TournamentWatch, tournament_push_router
    from services.doors.web.leagues import league_web_router
    from services.doors.web.tournaments import tournament_web_router

    s = service.settings
    watch = TournamentWatch(service.cases.tournaments, per_client=s.watch_per_client)
    app.include_router(tournament_push_router(watch, streams))
    app.include_router(tournament_web_router(service.cases.tournaments, service.settings))
    app.include_router(league_web_router(service.cases.leagues))


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


async def ping_once(settings: CommonSettings, timeout_s: float) -> None:
    """PING the store of `settings` once as its role's user, on a client of its own with no
    retries, replies and connects within `timeout_s` (`services.cli.startup`'s check).

    Raises: the ports' `StoreError` (`StoreUnavailable`: unreachable, refused credentials,
    loading, ...), OSError, ValueError (a bad URL).
    """
    client = connect(
        settings.redis_url,
        cluster=settings.redis_cluster,
        max_connections=2,
        pool_timeout_s=timeout_s,
        socket_timeout_s=timeout_s,
        connect_timeout_s=min(settings.redis_connect_timeout_s, timeout_s),
        retries=0,
        **settings.redis_options(),
    )
    try:
        await client.ping()
    finally:
        await client.aclose()


def memory_inbox(ports: Ports, settings: ServiceSettings) -> Inbox:
    """The inbox door on the in-memory adapters: `ports` and a `MemoryInboxQueue` of the shared
    stream (tests, the AsyncAPI document, an in-process pipeline)."""
    from services.adapters.memory.inbox import MemoryInboxQueue
    from services.doors.ingest.inbox import Inbox
    from services.doors.ingest.inbox_entry import game_of_entry

    keys = Keys(settings.shards)
    record = use_cases(ports, settings).record
    return Inbox(MemoryInboxQueue(keys.inbox, game_of_entry), keys, record, ports.letters)


def inbox_document_app(settings: ServiceSettings) -> FastStream:
    """The inbox app on the in-memory adapters, for its AsyncAPI document (nothing connects)."""
    from services.doors.ingest.inbox_app import build_inbox_app

    inbox = memory_inbox(memory_ports(settings.shards), settings)
    return build_inbox_app(settings, inbox, inbox_broker(settings))


def archive_of(settings: CommonSettings) -> OpeningArchive | None:
    """The archive of `settings.archive_url` (None when unset): a directory for
    `file:///dir`, PostgreSQL (pooled, its schema migrated when first opened) for
    `postgresql://`. Nothing is opened until first use or `open()`."""
    if settings.archive_url is None:
        return None
    url = settings.archive_url.get_secret_value()
    if url.startswith("file://"):

        async def directory() -> Archive:
            from services.adapters.directory.archive import DirectoryArchive

            return DirectoryArchive(Path(unquote(urlsplit(url).path)))

        return OpeningArchive(directory)

    async def postgres() -> Archive:
        from services.adapters.postgres.archive import PostgresArchive

        return await PostgresArchive.open(url)

    return OpeningArchive(postgres)


def replay_log(settings: ServiceSettings) -> EventLog:
    """The event log on a new client of `settings` (made in the calling process; no
    connection is opened until the first read), falling through to the archive when one is
    set."""
    client, keys = connect_from(settings), Keys(settings.shards)
    log = RedisEventLog(client, keys)
    names = RedisPlayerNames(client, keys)
    archive = archive_of(settings)
    if archive is None:
        return NamedEventLog(log, names)
    reader = ArchiveReader(archive)
    tiered = TieredEventLog(log, RedisHotGames(client, keys), reader)
    return NamedEventLog(tiered, names, reader, log)


@asynccontextmanager
async def inbox_writer(settings: CommonSettings, shards: int = 16) -> AsyncIterator[InboxQueue]:
    """The shared inbox stream (`sl:inbox`) of the store `settings` name, for a deployment of
    `shards` feeds, as a queue to add entries to (the simulator's inbox sink), on a client of its
    own closed at the end."""
    keys = Keys(shards)
    from services.adapters.redis.inbox import RedisInboxQueue
    from services.doors.ingest.inbox_entry import game_of_entry

    client = connect_from(settings)
    try:
        yield RedisInboxQueue(client, keys.inbox, game_of_entry)
    finally:
        await client.aclose()


def memory_tournaments() -> Tournaments:
    """The tournaments use case on a fresh in-memory tournament log (the simulator)."""
    return Tournaments(MemoryTournamentLog())


def memory_leagues(tournaments: Tournaments) -> Leagues:
    """The leagues use case on fresh in-memory league and event logs, reading `tournaments`
    (the league simulator), rated with openskill's Plackett-Luce model."""
    return Leagues(
        MemoryLeagueLog(),
        tournaments,
        MemoryEventLog(MemoryBackend()),
        Authorizer(),
        OpenSkillModel(),
    )
