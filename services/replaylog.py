"""The replay worker processes' own composition root: the event log a worker reads itself,
and the archive adapter of a setting (shared with `services.bootstrap`).

A replay worker (`services.usecases.readmodels.offloop`) is a spawned process with no client
of its parent's; `replay_log` builds it one, from the same settings (URL, cluster, ACL user,
TLS, retry policy, archive), when the worker starts. It lives apart from `services.bootstrap`
so that a worker imports the storage adapters only, not the web stack. Source: issue 9
(replays O(n) off the event loop: the parent ships a game id, not the stored events).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from urllib.parse import unquote, urlsplit

from services.adapters.redis.connect import connect_from
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.hotgames import RedisHotGames
from services.keys import Keys
from services.ports.archive import Archive, ArchiveEntry, ArchivePage, SealedGame
from services.ports.eventlog import EventLog
from services.settings import CommonSettings, ServiceSettings
from services.usecases.tiered import ArchiveReader, TieredEventLog


class OpeningArchive:
    """An `Archive` opened on first use (`opener` awaited once, on the loop that first uses
    it), so a synchronous composition root can build it; `open()` opens it now (a role's
    start-up, to fail early). Raises what the opener raises, at each use until it succeeds."""

    def __init__(self, opener: Callable[[], Awaitable[Archive]]) -> None:
        self._opener = opener
        self._archive: Archive | None = None
        self._lock: asyncio.Lock | None = None

    async def open(self) -> Archive:
        if self._archive is None:
            self._lock = self._lock or asyncio.Lock()
            async with self._lock:
                if self._archive is None:
                    self._archive = await self._opener()
        return self._archive

    async def put(self, game: SealedGame) -> None:
        await (await self.open()).put(game)

    async def get(self, game_id: str) -> SealedGame | None:
        return await (await self.open()).get(game_id)

    async def exists(self, game_id: str) -> bool:
        return await (await self.open()).exists(game_id)

    async def entry(self, game_id: str) -> ArchiveEntry | None:
        return await (await self.open()).entry(game_id)

    async def entries(self, game_ids: Sequence[str]) -> list[ArchiveEntry | None]:
        return await (await self.open()).entries(game_ids)

    async def list_games(self, after: str | None = None, limit: int = 1000) -> ArchivePage:
        return await (await self.open()).list_games(after, limit)

    async def list_by_update(
        self, after: tuple[str, str] | None = None, limit: int = 1000
    ) -> list[tuple[str, str]]:
        return await (await self.open()).list_by_update(after, limit)

    async def count(self) -> int:
        return await (await self.open()).count()

    async def delete(self, game_id: str) -> bool:
        return await (await self.open()).delete(game_id)

    async def close(self) -> None:
        if self._archive is not None:
            await self._archive.close()
            self._archive = None


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
    archive = archive_of(settings)
    if archive is None:
        return log
    return TieredEventLog(log, RedisHotGames(client, keys), ArchiveReader(archive))
