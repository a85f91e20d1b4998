"""`NamedEventLog` alone: which tier's names a read takes, and what a read costs the archive."""

from __future__ import annotations

from contracts.events import parse_event_json
from contracts.names import FORGOTTEN
from services.adapters.memory.names import MemoryPlayerNames
from services.adapters.memory.store import MemoryBackend, MemoryEventLog
from services.archive.adapters.memory import MemoryArchive
from services.archive.adapters.memory_hot import MemoryHotGames
from services.archive.ports.cold import ArchiveEntry
from services.archive.usecases.tiered import ArchiveReader, TieredEventLog
from services.ports.names import Scrub
from services.usecases.names import NamedEventLog
from tests.names.helpers import GAME, NAME, PLAYER, holds_name, lines


class CountingArchive(MemoryArchive):
    """A memory archive that counts its `entry` reads (each one a query on PostgreSQL)."""

    entry_reads: int = 0

    async def entry(self, game_id: str) -> ArchiveEntry | None:
        self.entry_reads += 1
        return await super().entry(game_id)


def _named() -> tuple[NamedEventLog, MemoryEventLog, MemoryPlayerNames, CountingArchive]:
    backend = MemoryBackend(shards=4)
    hot, names, archive = MemoryEventLog(backend), MemoryPlayerNames(backend), CountingArchive()
    reader = ArchiveReader(archive)
    tiered = TieredEventLog(hot, MemoryHotGames(backend), reader)
    return NamedEventLog(tiered, names, reader, hot), hot, names, archive


async def test_a_new_game_reads_its_names_from_redis_and_never_asks_the_archive() -> None:
    log, hot, names, archive = _named()
    events = [parse_event_json(line) for line in lines()[:3]]
    await log.append(GAME, events)  # a creation asks the archive once (is it archived?)
    archive.entry_reads = 0
    assert not holds_name((await hot.read_raw(GAME, 1, 1))[0])
    assert (await names.names(GAME))[PLAYER] == NAME
    read = await log.read(GAME)
    assert [e.payload for e in read] == [e.payload for e in events]
    assert archive.entry_reads == 0


async def test_a_game_written_with_names_inline_reads_them_without_asking_the_archive() -> None:
    log, hot, names, archive = _named()
    await hot.append(GAME, [parse_event_json(line) for line in lines()[:3]])  # names inline
    assert holds_name((await log.read_raw(GAME, 1, 1))[0])
    assert archive.entry_reads == 0  # in Redis: no archive read for its (absent) names
    await names.forget(GAME, PLAYER, Scrub([]))
    assert (await names.names(GAME)) == {PLAYER: FORGOTTEN}
    first = (await log.read_raw(GAME))[0]
    assert not holds_name(first)
    assert b'"name":"player-2"' in first
    assert (await log.read_raw(GAME, 2)) == (await hot.read_raw(GAME, 2))  # no start: as stored
