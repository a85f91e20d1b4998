"""The backends of the composition root: one adapter of every port on one store.

`Ports` holds one adapter of every port sharing one backend: `redis_ports` on the process's
Redis client, `memory_ports` on a fresh in-memory backend (tests, specs, documents). Beside
them: the archive of `archive_url` (`archive_of`, `open_archive`), the replay workers' own
event log (`replay_log`), the start-up PING (`ping_once`), the simulator's inbox writer and its
in-memory tournaments and leagues, and the demo's Redis (`demo_redis`, `NoRedis`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from services.adapters.memory.feeds import MemoryFeedRetention, MemoryShardFeeds
from services.adapters.memory.leases import MemoryShardLeases
from services.adapters.memory.names import MemoryPlayerNames, MemorySideNames
from services.adapters.memory.projections import MemoryChangeNotices, MemoryProjections
from services.adapters.memory.store import (
    MemoryBackend,
    MemoryCredentials,
    MemoryDeadLetters,
    MemoryEventLog,
)
from services.adapters.redis.connect import RedisClient, connect, connect_from
from services.adapters.redis.credentials import RedisCredentials
from services.adapters.redis.deadletters import RedisDeadLetters
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.feeds import RedisShardFeeds
from services.adapters.redis.keys import Keys
from services.adapters.redis.lease import ShardLeases as RedisShardLeases
from services.adapters.redis.localredis import NoRedis as NoRedis  # the demo's Redis
from services.adapters.redis.localredis import demo_redis as demo_redis
from services.adapters.redis.names import RedisPlayerNames, RedisSideNames
from services.adapters.redis.notices import RedisChangeNotices
from services.adapters.redis.projections import RedisProjections
from services.adapters.redis.retention import FeedRetention
from services.archive.adapters.memory_hot import MemoryHotGames
from services.archive.adapters.redis_hot import RedisHotGames
from services.archive.ports.cold import Archive
from services.archive.ports.hot import HotGames
from services.archive.usecases.tiered import ArchiveReader, TieredEventLog
from services.leagues.adapters.memory import MemoryLeagueLog
from services.leagues.adapters.memory_index import MemoryLeagueIndex
from services.leagues.adapters.redis import LEAGUE, RedisLeagueLog
from services.leagues.adapters.redis_index import RedisLeagueIndex
from services.leagues.ports.index import LeagueIndex
from services.leagues.ports.log import LeagueLog
from services.leagues.usecases.rating import OpenSkillModel
from services.leagues.usecases.stream import Leagues
from services.platform.settings import CommonSettings, ServiceSettings
from services.ports.credentials import Credentials
from services.ports.deadletters import DeadLetters
from services.ports.eventlog import EventLog
from services.ports.feeds import FeedTrimming, Reseed, ShardFeeds
from services.ports.inbox import InboxQueue
from services.ports.leases import FencedProjections, ShardLeases
from services.ports.names import PlayerNames, SideNames
from services.ports.notices import ChangeNotices, ProjectionFields
from services.ports.projections import Projections
from services.tournaments.adapters.memory import MemoryTournamentLog
from services.tournaments.adapters.memory_approvals import MemoryApprovalSchedule
from services.tournaments.adapters.redis import RedisTournamentLog
from services.tournaments.adapters.redis_approvals import RedisApprovalSchedule
from services.tournaments.ports.approvals import ApprovalSchedule
from services.tournaments.ports.log import TournamentLog
from services.tournaments.usecases.stream import Tournaments
from services.usecases.authorize import Authorizer
from services.usecases.names import NamedEventLog
from services.usecases.opening import OpeningArchive
from services.webhooks.adapters.memory import MemoryWebhookStore
from services.webhooks.adapters.redis import RedisWebhookStore
from services.webhooks.ports import WebhookStore


async def open_archive(settings: ServiceSettings) -> Archive | None:
    """The archive of `settings.archive_url`, opened now (None when unset): a directory for
    `file:///dir`, PostgreSQL (pooled, schema migrated) for `postgresql://`.

    Raises: ArchiveUnavailable (PostgreSQL unreachable), psycopg errors (a failed migration).
    """
    archive = archive_of(settings)
    return None if archive is None else await archive.open()


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
    league_index: LeagueIndex | None = None
    """Which leagues hold each tournament (None: not kept)."""

    def named_log(self) -> EventLog:
        """`log` with names kept outside it (`usecases.names.NamedEventLog`; Redis only)."""
        return self.log if self.names is None else NamedEventLog(self.log, self.names)


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
        RedisLeagueIndex(client, keys),
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
        MemoryLeagueIndex(),
    )


def archive_of(settings: CommonSettings) -> OpeningArchive | None:
    """The archive of `settings.archive_url` (None when unset): a directory for
    `file:///dir`, PostgreSQL (pooled, its schema migrated when first opened) for
    `postgresql://`. Nothing is opened until first use or `open()`."""
    if settings.archive_url is None:
        return None
    url = settings.archive_url.get_secret_value()
    if url.startswith("file://"):

        async def directory() -> Archive:
            from services.archive.adapters.directory import DirectoryArchive

            return DirectoryArchive(Path(unquote(urlsplit(url).path)))

        return OpeningArchive(directory)

    async def postgres() -> Archive:
        from services.archive.adapters.postgres import PostgresArchive

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
