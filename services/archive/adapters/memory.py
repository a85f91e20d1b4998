"""`Archive` in memory (tests, specs): a dict of sealed games; the checksum is verified on
read as the durable adapters do, so a corrupted copy is refused the same way."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from services.archive.ports.cold import (
    ArchiveEntry,
    ArchivePage,
    SealedGame,
    by_update,
    check_sealable,
)


@dataclass
class MemoryArchive:
    """`ports.cold.Archive` on a dict (`games`: game id -> sealed game, as put)."""

    games: dict[str, SealedGame] = field(default_factory=dict)

    async def put(self, game: SealedGame) -> None:
        """See `Archive.put`."""
        check_sealable(game)
        self.games[game.entry.game_id] = game

    async def get(self, game_id: str) -> SealedGame | None:
        """See `Archive.get`."""
        game = self.games.get(game_id)
        if game is not None:
            game.verify()
        return game

    async def exists(self, game_id: str) -> bool:
        """See `Archive.exists`."""
        return game_id in self.games

    async def entry(self, game_id: str) -> ArchiveEntry | None:
        """See `Archive.entry`."""
        game = self.games.get(game_id)
        return None if game is None else game.entry

    async def entries(self, game_ids: Sequence[str]) -> list[ArchiveEntry | None]:
        """See `Archive.entries`."""
        return [await self.entry(g) for g in game_ids]

    async def list_games(self, after: str | None = None, limit: int = 1000) -> ArchivePage:
        """See `Archive.list_games`."""
        ids = sorted(g for g in self.games if after is None or g > after)
        page = tuple(ids[: max(1, limit)])
        return ArchivePage(page, page[-1] if len(ids) > len(page) else None)

    async def list_by_update(
        self, after: tuple[str, str] | None = None, limit: int = 1000
    ) -> list[tuple[str, str]]:
        """See `Archive.list_by_update`."""
        pairs = [(g.entry.updated_at or "", g.entry.game_id) for g in self.games.values()]
        return by_update(pairs, after, limit)

    async def count(self) -> int:
        """See `Archive.count`."""
        return len(self.games)

    async def delete(self, game_id: str) -> bool:
        """See `Archive.delete`."""
        return self.games.pop(game_id, None) is not None

    async def close(self) -> None:
        """Nothing to release."""
