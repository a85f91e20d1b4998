"""The use-case graph of the composition root, and a built process.

`use_cases` wires every use case the doors call on `Ports` and the settings (the archive's
tiers, names kept apart, the tournaments' tables); `build` makes the process's one Redis client,
its adapters and use cases into a `Service` (no connection is opened yet).
"""

from __future__ import annotations

from dataclasses import dataclass

from services.adapters.redis.connect import RedisClient, connect_from
from services.adapters.redis.keys import Keys
from services.archive.usecases.seal import Seal
from services.archive.usecases.tiered import (
    ArchiveReader,
    TieredCredentials,
    TieredEventLog,
    TieredProjections,
)
from services.bootstrap.backends import Ports, archive_of, redis_ports, replay_log
from services.leagues.ports.log import LeagueLog
from services.leagues.usecases.follow import LeagueFollow
from services.leagues.usecases.rating import OpenSkillModel
from services.leagues.usecases.stream import Leagues
from services.platform.settings import ServiceSettings
from services.runtime.fairqueue import Limits
from services.runtime.pool import PROCESSES
from services.tournaments.ports.log import TournamentLog
from services.tournaments.usecases.desk import TournamentDesk
from services.tournaments.usecases.stream import Tournaments
from services.tournaments.usecases.tables import TableGames
from services.usecases.authorize import Authorizer, digest
from services.usecases.check import CheckedAppend
from services.usecases.names import Forget, NamedEventLog
from services.usecases.project import Project
from services.usecases.readmodels.offloop import LogSource
from services.usecases.readmodels.reads import ReadModels
from services.usecases.readmodels.snapshots import SnapshotConfig
from services.usecases.record import Record
from services.usecases.release import Release
from services.usecases.side_names import NamedSideLog, SideForget


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
    # A live game's projection is stored by its append, from the state the check folded (one
    # parse and one fold per event); the projector projects what that leaves (catch-up, holds).
    live = settings.changes_maxlen if settings.live_projection else None
    checked = CheckedAppend(log, settings.state_cache_games, settings.state_cache_bytes, live)
    # A tournament creates its tables' games through the same record use case as
    # POST /games, without the creator key: creating the tournament needed it already.
    tables = TableGames(tournaments, Record(credentials, checked, Authorizer(None)), log)
    leagues = Leagues(
        league_log,
        tournaments,
        log,
        authorizer,
        OpenSkillModel(),
        added=None if side is None else side.league_added,
        index=ports.league_index,
    )
    tournaments.changed = LeagueFollow(leagues).tournament_changed
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
        leagues=leagues,
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
            letters=ports.letters,
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


def _redis_client(settings: ServiceSettings) -> RedisClient:
    """The process's one Redis client (`connect_from`): a single node or a Redis Cluster by
    `redis_url` / `redis_cluster`, the role's ACL user, password and TLS CA, a waiting pool and
    connection errors retried with backoff."""
    return connect_from(settings)


def build(settings: ServiceSettings) -> Service:
    """Client, adapters and use cases for `settings` (no connection is opened yet)."""
    client = _redis_client(settings)
    keys = Keys(settings.shards)
    ports = redis_ports(
        client, keys, archive_of(settings), settings.append_replicas, settings.append_wait_ms
    )
    source = LogSource(replay_log, (settings,))
    return Service(settings, client, keys, ports, use_cases(ports, settings, source))
