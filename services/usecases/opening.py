"""An archive opened on first use: the composition root is synchronous, the archive's opening
(a PostgreSQL pool, its schema migrated) is not."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

from services.archive.ports.cold import Archive, ArchiveEntry, ArchivePage, SealedGame


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
