"""The archive contract: the memory, directory and PostgreSQL adapters store a sealed game and
give it back byte for byte, list it in pages, delete it, and refuse a copy whose events do not
match their checksum (on write, and on read after the stored copy was damaged)."""

from __future__ import annotations

import dataclasses
import gzip
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from contracts.events import dump_event_json
from services.archive.adapters.directory import DirectoryArchive
from services.archive.adapters.memory import MemoryArchive
from services.archive.ports.cold import (
    Archive,
    ArchiveCorrupt,
    ArchivedProjection,
    ArchiveEntry,
    SealedGame,
    checksum_of,
)
from tests.pipeline.factory import game_log


@dataclass
class Subject:
    """An archive under test and a way to damage its stored copy of a game behind its back
    (`tamper(game_id)` swaps the second event's bytes)."""

    name: str
    archive: Archive
    tamper: Callable[[str], Awaitable[None]]


@pytest.fixture(
    params=["memory", "directory", pytest.param("postgres", marks=pytest.mark.postgres)]
)
async def subject(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Subject]:
    if request.param == "memory":
        memory = MemoryArchive()

        async def tamper_memory(game_id: str) -> None:
            game = memory.games[game_id]
            events = (game.events[0], b'{"forged":1}', *game.events[2:])
            memory.games[game_id] = dataclasses.replace(game, events=events)

        yield Subject("memory", memory, tamper_memory)
    elif request.param == "directory":
        directory = DirectoryArchive(tmp_path / "archive")

        async def tamper_file(game_id: str) -> None:
            path = tmp_path / "archive" / f"{game_id}.jsonl.gz"
            lines = gzip.decompress(path.read_bytes()).split(b"\n")
            lines[2] = b'{"forged":1}'
            path.write_bytes(gzip.compress(b"\n".join(lines)))

        yield Subject("directory", directory, tamper_file)
    else:
        from services.archive.adapters.postgres import PostgresArchive

        url = request.getfixturevalue("postgres_url")
        pg = await PostgresArchive.open(url)

        async def tamper_row(game_id: str) -> None:
            async with pg.pool.connection() as conn:
                await conn.execute(
                    "UPDATE archived_games SET events = overlay(events placing 'X' from 3)"
                    " WHERE game_id = %s",
                    (game_id,),
                )

        try:
            yield Subject("postgres", pg, tamper_row)
        finally:
            await pg.close()


def sealed(game_id: str, n: int = 5, digest: str | None = "ab" * 32) -> SealedGame:
    """A sealed game of `n` stored events (as the Redis log stores them: compact JSON)."""
    events = tuple(dump_event_json(e).encode() for e in game_log(game_id, n))
    entry = ArchiveEntry(
        game_id=game_id,
        ruleset="trickerion",
        players=("ann", "bob", "cat"),
        ended_at="2026-11-30T10:00:00+00:00",
        event_count=n,
        checksum=checksum_of(events),
        archived_at="2026-12-01T00:00:00+00:00",
        updated_at="2026-11-30T10:00:01+00:00",
    )
    projection = ArchivedProjection(
        seq=n,
        status="final",
        game="trickerion",
        standings_json='{"players": []}',
        view_json=b'{"game_id": "x", "\xc3\xa9": 1}',
        updated_at="2026-11-30T10:00:01+00:00",
        checkpoint="17-0",
    )
    return SealedGame(entry, events, digest, projection, index_score=1_764_000_000_000)


async def test_a_put_game_comes_back_byte_for_byte(subject: Subject) -> None:
    archive = subject.archive
    game = sealed("g-1")
    assert await archive.get("g-1") is None
    assert not await archive.exists("g-1")
    assert await archive.entry("g-1") is None
    await archive.put(game)
    assert await archive.get("g-1") == game
    assert await archive.exists("g-1")
    assert await archive.entry("g-1") == game.entry
    bare = dataclasses.replace(sealed("g-2", 1, digest=None), projection=None)
    await archive.put(bare)
    assert await archive.get("g-2") == bare


async def test_entries_answer_several_games_in_order(subject: Subject) -> None:
    one, two = sealed("g-1"), dataclasses.replace(sealed("g-2", 2), projection=None)
    two = dataclasses.replace(two, entry=dataclasses.replace(two.entry, updated_at=None))
    await subject.archive.put(one)
    await subject.archive.put(two)
    assert await subject.archive.entries(["g-2", "nope", "g-1"]) == [two.entry, None, one.entry]
    assert await subject.archive.entries([]) == []


async def test_a_second_put_replaces_the_copy(subject: Subject) -> None:
    await subject.archive.put(sealed("g-1", 3))
    longer = sealed("g-1", 7)
    await subject.archive.put(longer)
    assert await subject.archive.get("g-1") == longer
    assert (await subject.archive.list_games()).games == ("g-1",)
    assert await subject.archive.count() == 1


async def test_games_are_listed_in_byte_order_in_pages(subject: Subject) -> None:
    ids = ["b-2", "B-1", "a.9", "a_1", "Z", "0"]
    for game_id in ids:
        await subject.archive.put(sealed(game_id, 1))
    seen: list[str] = []
    after: str | None = None
    pages = 0
    while True:
        page = await subject.archive.list_games(after, limit=4)
        seen += page.games
        pages += 1
        if page.next_after is None:
            break
        after = page.next_after
    assert seen == sorted(ids)
    assert pages == 2
    assert (await subject.archive.list_games("a.9", 10)).games == ("a_1", "b-2")
    assert (await subject.archive.list_games("b-2", 10)).games == ()
    assert await subject.archive.count() == 6


async def test_delete_removes_the_game_once(subject: Subject) -> None:
    await subject.archive.put(sealed("g-1"))
    assert await subject.archive.delete("g-1")
    assert not await subject.archive.delete("g-1")
    assert await subject.archive.get("g-1") is None
    assert (await subject.archive.list_games()).games == ()


async def test_a_damaged_copy_is_refused_on_read(subject: Subject) -> None:
    await subject.archive.put(sealed("g-1"))
    await subject.tamper("g-1")
    with pytest.raises(ArchiveCorrupt):
        await subject.archive.get("g-1")


async def test_a_game_that_does_not_match_its_checksum_is_not_stored(subject: Subject) -> None:
    game = sealed("g-1")
    wrong = dataclasses.replace(game, events=(*game.events[:-1], b'{"other":1}'))
    with pytest.raises(ArchiveCorrupt):
        await subject.archive.put(wrong)
    short = dataclasses.replace(game, events=game.events[:-1])
    with pytest.raises(ArchiveCorrupt):
        await subject.archive.put(short)
    assert not await subject.archive.exists("g-1")


async def test_unframeable_games_are_refused(subject: Subject) -> None:
    game = sealed("g-1", 2)
    newline = (game.events[0], b'{"a":\n1}')
    entry = dataclasses.replace(game.entry, checksum=checksum_of(newline))
    with pytest.raises(ValueError, match="newline"):
        await subject.archive.put(dataclasses.replace(game, events=newline, entry=entry))
    empty = dataclasses.replace(
        game, events=(), entry=dataclasses.replace(entry, event_count=0, checksum=checksum_of(()))
    )
    with pytest.raises(ValueError, match="at least one"):
        await subject.archive.put(empty)
    bad = dataclasses.replace(game, entry=dataclasses.replace(game.entry, game_id="../x"))
    with pytest.raises(ValueError, match="game_id"):
        await subject.archive.put(bad)


async def test_directory_writes_leave_no_partial_file(tmp_path: Path) -> None:
    archive = DirectoryArchive(tmp_path)
    await archive.put(sealed("g-1"))
    (tmp_path / ".tmp-abc.jsonl.gz").write_bytes(b"half a write")  # a crash mid-write
    assert (await archive.list_games()).games == ("g-1",)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".tmp-abc.jsonl.gz", "g-1.jsonl.gz"]
    stored = await archive.get("g-1")
    assert stored is not None
    lines = gzip.decompress((tmp_path / "g-1.jsonl.gz").read_bytes()).split(b"\n")
    assert lines[1:] == [*stored.events, b""]  # the lines after the header: the JSONL export


@pytest.mark.postgres
async def test_postgres_migrates_once_and_records_the_version(postgres_url: str) -> None:
    from services.archive.adapters.postgres import PostgresArchive
    from services.archive.adapters.postgres_migrations import MIGRATIONS

    first = await PostgresArchive.open(postgres_url)
    second = await PostgresArchive.open(postgres_url)  # a second process starting
    game = sealed("g-1")
    await first.put(game)
    assert await second.get("g-1") == game
    await first.close()
    await second.close()
    with psycopg.connect(postgres_url) as conn:
        rows = conn.execute("SELECT version FROM scoreledger_migrations ORDER BY 1").fetchall()
    assert [r[0] for r in rows] == [v for v, _ in MIGRATIONS]
