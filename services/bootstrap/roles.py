"""The roles of the composition root: what a process runs beside its routes.

`Roles` names the services a process runs; `roles_lifespan` enters them for the app's lifespan:
the inbox consumer (`inbox_app`, on FastStream's `inbox_broker`), the tournaments' approval
timer, the projector (`projector`, `projecting`), and the features' roles (`FEATURE_ROLES`:
the archiver and the webhooks role, `webhooking`), each run by its feature's doors package
(`run_role`) on parts built here. Each also runs alone on its own `Service` (`running_inbox`,
`running_projector`, `webhook_admin`), and the inbox on the in-memory adapters for its
AsyncAPI document.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from services.adapters.redis.keys import Keys
from services.archive import doors as archive_doors
from services.bootstrap.backends import Ports, memory_ports
from services.bootstrap.usecases import Service, UseCases, build, use_cases
from services.platform.settings import IngestSettings, ServiceSettings
from services.ports.feeds import FeedTrimming
from services.runtime.gctune import collecting_frozen
from services.usecases.opening import OpeningArchive
from services.webhooks import doors as webhook_doors
from services.webhooks.doors import WebhookRole

if TYPE_CHECKING:  # the web and inbox stacks load only in the processes that run them
    from faststream import FastStream
    from faststream.redis import RedisBroker

    from services.doors.projector.loop import ProjectorLoop
    from services.usecases.inbox.settle import Inbox
    from services.webhooks.doors.loop import WebhooksLoop
    from services.webhooks.usecases.admin import WebhookAdmin


P = TypeVar("P")
P_contra = TypeVar("P_contra", contravariant=True)


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


def inbox_app(service: Service, consumer: str | None = None) -> FastStream:
    """The inbox consumer of `service` as a FastStream app (its broker connects on start);
    `consumer` None: the setting `inbox_consumer`, else `ingest-<hostname>-<pid>`."""
    from services.adapters.redis.inbox import RedisInboxQueue
    from services.doors.ingest.inbox_app import build_inbox_app
    from services.doors.ingest.inbox_entry import INBOX_FORM, game_of_entry
    from services.usecases.inbox.settle import Inbox, Retention

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
        form=INBOX_FORM,
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


def memory_inbox(ports: Ports, settings: ServiceSettings) -> Inbox:
    """The inbox door on the in-memory adapters: `ports` and a `MemoryInboxQueue` of the shared
    stream (tests, the AsyncAPI document, an in-process pipeline)."""
    from services.adapters.memory.inbox import MemoryInboxQueue
    from services.doors.ingest.inbox_entry import INBOX_FORM, game_of_entry
    from services.usecases.inbox.settle import Inbox

    keys = Keys(settings.shards)
    record = use_cases(ports, settings).record
    return Inbox(
        MemoryInboxQueue(keys.inbox, game_of_entry),
        keys,
        record,
        ports.letters,
        form=INBOX_FORM,
    )


def inbox_document_app(settings: ServiceSettings) -> FastStream:
    """The inbox app on the in-memory adapters, for its AsyncAPI document (nothing connects)."""
    from services.doors.ingest.inbox_app import build_inbox_app

    inbox = memory_inbox(memory_ports(settings.shards), settings)
    return build_inbox_app(settings, inbox, inbox_broker(settings))


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
        checkpoint_every_ms=settings.checkpoint_every_ms,
    )
    ownership = ShardOwnership(
        pipe.leases(owner_id(), settings.lease_ttl_ms), loop.acquire, loop.lose
    )
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


def _webhook_parts(
    service: Service,
) -> tuple[WebhooksLoop, WebhookAdmin, AbstractAsyncContextManager[object]]:
    """The webhooks role's loop and the operator's use case on `service`, sharing one httpx
    transport (the third part: its closer)."""
    from contextlib import aclosing

    from services.webhooks.adapters.http import HttpxTransport
    from services.webhooks.doors.loop import WebhooksLoop
    from services.webhooks.usecases.admin import WebhookAdmin
    from services.webhooks.usecases.deliver import RetryPolicy, Sender
    from services.webhooks.usecases.dispatch import Bounds, Dispatcher

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
    loop = WebhooksLoop(dispatcher, sender, s.webhook_poll_s, grace_s)
    admin = WebhookAdmin(ports.webhooks, sender, bounds, allow_private=s.webhook_allow_private)
    return loop, admin, aclosing(transport)


def _webhook_role(service: Service) -> WebhookRole:
    """The webhooks role's parts on `service` (its loop and transport)."""
    loop, _, transport = _webhook_parts(service)
    return WebhookRole(loop, transport)


@asynccontextmanager
async def webhooking(service: Service) -> AsyncIterator[WebhooksLoop]:
    """Run the webhooks role of `service` (dispatcher and senders) for the block's duration."""
    parts = _webhook_role(service)
    async with webhook_doors.run_role(parts, service.settings):
        yield parts.loop


class FeatureRole(Protocol[P_contra]):
    """A feature's doors package that runs a role: `ROLE` names its `Roles` field, `run_role`
    runs it for a block on the parts the composition root built (adapters included)."""

    ROLE: str

    def run_role(
        self, parts: P_contra, settings: ServiceSettings
    ) -> AbstractAsyncContextManager[None]:
        """Run the role for the block's duration."""


@dataclass(frozen=True, slots=True)
class RoleEntry(Generic[P]):
    """A feature's role and how the root builds its parts from the process's `Service`
    (None: not configured here, so it does not run)."""

    doors: FeatureRole[P]
    parts: Callable[[Service], P | None]

    async def enter(self, stack: AsyncExitStack, service: Service, roles: Roles) -> None:
        """Start the role on `stack` when `roles` ask for it and its parts are configured."""
        if getattr(roles, self.doors.ROLE) and (parts := self.parts(service)) is not None:
            await stack.enter_async_context(self.doors.run_role(parts, service.settings))


FEATURE_ROLES: tuple[RoleEntry[Any], ...] = (
    RoleEntry(archive_doors, lambda service: service.cases.seal),
    RoleEntry(webhook_doors, _webhook_role),
)
"""The features whose roles run themselves, in the order they start."""


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
            if roles.ingest:
                await _backfill_league_index(service)
            if roles.inbox:
                await stack.enter_async_context(inbox_app(service))
            if roles.ingest or roles.inbox:
                await _enter_approvals(stack, service)
            if roles.projector:
                await _enter_projector(stack, service)
                await stack.enter_async_context(collecting_frozen())  # serve --projector
            for feature in FEATURE_ROLES:
                await feature.enter(stack, service, roles)
            yield
    finally:
        if archive is not None:
            await archive.close()
        await service.client.aclose()


async def _backfill_league_index(service: Service) -> None:
    """Index the tournaments leagues added before the index was kept (once per start)."""
    from services.leagues.usecases.index_backfill import backfill_league_index

    leagues = service.cases.leagues
    if leagues.index is not None:
        await backfill_league_index(leagues.log, leagues.index)


async def _enter_approvals(stack: AsyncExitStack, service: Service) -> None:
    """Start the tournaments' auto-approval timer of `service` on `stack` (the processes that
    write tournaments run it; off with `approval_every_s` 0)."""
    from services.tournaments.doors.ingest_approvals import approving
    from services.tournaments.usecases.timer import ApprovalTimer

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
