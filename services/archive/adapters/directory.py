"""`Archive` on a directory: one gzip-compressed JSONL file per game (the embedded default,
`SCORELEDGER_ARCHIVE_URL=file:///path`; what `scoreledger demo` uses).

File `<root>/<game_id>.jsonl.gz`: line 1 a header object (`entry`, `token_digest`,
`projection`, `index_score`), then the game's stored events, one per line, byte for byte, so
`zcat FILE | tail -n +2` is the game's JSONL export. The header's `entry.checksum` (SHA-256
of those lines, `ports.cold.checksum_of`) is verified on every read; gzip's own CRC
catches a damaged file too. A write is atomic and durable: a temporary file in the same
directory, fsynced, renamed over the old one, then the directory fsynced; a crash leaves the
old copy or the new one, never a part (a leftover `.tmp-*` file is ignored). File I/O runs in
a worker thread, off the event loop. Listing reads the directory (O(archived games) a page):
for a platform's archive use PostgreSQL.
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import json
import os
import tempfile
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from services.archive.ports.cold import (
    GAME_ID,
    ArchiveCorrupt,
    ArchivedProjection,
    ArchiveEntry,
    ArchivePage,
    SealedGame,
    by_update,
    check_sealable,
)

SUFFIX = ".jsonl.gz"


def _header(game: SealedGame) -> bytes:
    """Line 1 of a game's file."""
    proj = game.projection
    header: dict[str, Any] = {
        "entry": {
            "game_id": game.entry.game_id,
            "ruleset": game.entry.ruleset,
            "players": list(game.entry.players),
            "ended_at": game.entry.ended_at,
            "event_count": game.entry.event_count,
            "checksum": game.entry.checksum,
            "archived_at": game.entry.archived_at,
            "updated_at": game.entry.updated_at,
        },
        "token_digest": game.token_digest,
        "index_score": game.index_score,
        "names": dict(game.names),
        "projection": None
        if proj is None
        else {
            "seq": proj.seq,
            "status": proj.status,
            "game": proj.game,
            "standings_json": proj.standings_json,
            "view_json": base64.b64encode(proj.view_json).decode(),
            "updated_at": proj.updated_at,
            "checkpoint": proj.checkpoint,
        },
    }
    return json.dumps(header, separators=(",", ":")).encode()


def _entry(raw: dict[str, Any]) -> ArchiveEntry:
    return ArchiveEntry(
        game_id=str(raw["game_id"]),
        ruleset=str(raw["ruleset"]),
        players=tuple(str(p) for p in raw["players"]),
        ended_at=str(raw["ended_at"]),
        event_count=int(raw["event_count"]),
        checksum=str(raw["checksum"]),
        archived_at=str(raw["archived_at"]),
        updated_at=raw.get("updated_at"),
    )


def _projection(raw: dict[str, Any] | None) -> ArchivedProjection | None:
    if raw is None:
        return None
    return ArchivedProjection(
        seq=int(raw["seq"]),
        status=str(raw["status"]),
        game=str(raw["game"]),
        standings_json=str(raw["standings_json"]),
        view_json=base64.b64decode(raw["view_json"]),
        updated_at=raw["updated_at"],
        checkpoint=raw["checkpoint"],
    )


class DirectoryArchive:
    """`ports.cold.Archive` on the directory `root` (created if missing)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, game_id: str) -> Path:
        if not GAME_ID.fullmatch(game_id):
            raise ValueError(f"game_id: {game_id[:40]!r} is not a game id")
        return self.root / f"{game_id}{SUFFIX}"

    async def put(self, game: SealedGame) -> None:
        """See `Archive.put`: a temporary file, fsync, rename, fsync of the directory."""
        check_sealable(game)
        await asyncio.to_thread(self._put, game)

    def _put(self, game: SealedGame) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        body = b"\n".join((_header(game), *game.events)) + b"\n"
        fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".tmp-", suffix=SUFFIX)
        try:
            with os.fdopen(fd, "wb") as raw:
                with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out:
                    out.write(body)
                raw.flush()
                os.fsync(raw.fileno())
            os.replace(tmp, self._path(game.entry.game_id))
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self._fsync_dir()

    def _fsync_dir(self) -> None:
        fd = os.open(self.root, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    async def get(self, game_id: str) -> SealedGame | None:
        """See `Archive.get` (the checksum verified)."""
        return await asyncio.to_thread(self._get, game_id)

    def _get(self, game_id: str) -> SealedGame | None:
        path = self._path(game_id)
        try:
            lines = gzip.decompress(path.read_bytes()).split(b"\n")
        except FileNotFoundError:
            return None
        except (OSError, EOFError, zlib.error) as error:
            raise ArchiveCorrupt(game_id, f"unreadable file ({error})") from None
        if len(lines) < 2 or lines[-1] != b"":
            raise ArchiveCorrupt(game_id, "the file is cut short")
        try:
            header = json.loads(lines[0])
            game = SealedGame(
                entry=_entry(header["entry"]),
                events=tuple(lines[1:-1]),
                token_digest=header["token_digest"],
                projection=_projection(header["projection"]),
                index_score=int(header["index_score"]),
                names={str(k): str(v) for k, v in header.get("names", {}).items()},
            )
        except (ValueError, KeyError, TypeError) as error:
            raise ArchiveCorrupt(game_id, f"unreadable header ({error})") from None
        if game.entry.game_id != game_id:
            raise ArchiveCorrupt(game_id, f"the file holds game {game.entry.game_id!r}")
        game.verify()
        return game

    async def exists(self, game_id: str) -> bool:
        """See `Archive.exists`."""
        return await asyncio.to_thread(self._path(game_id).is_file)

    async def entry(self, game_id: str) -> ArchiveEntry | None:
        """See `Archive.entry`: the header line only is decompressed."""
        return await asyncio.to_thread(self._entry, game_id)

    def _entry(self, game_id: str) -> ArchiveEntry | None:
        try:
            with gzip.open(self._path(game_id), "rb") as file:
                return _entry(json.loads(file.readline())["entry"])
        except FileNotFoundError:
            return None
        except (OSError, EOFError, zlib.error, ValueError, KeyError, TypeError) as error:
            raise ArchiveCorrupt(game_id, f"unreadable header ({error})") from None

    async def entries(self, game_ids: Sequence[str]) -> list[ArchiveEntry | None]:
        """See `Archive.entries`: the header lines, in one worker thread."""
        return await asyncio.to_thread(lambda: [self._entry(g) for g in game_ids])

    async def list_games(self, after: str | None = None, limit: int = 1000) -> ArchivePage:
        """See `Archive.list_games` (the directory read; temporary files skipped)."""
        return await asyncio.to_thread(self._list, after, max(1, limit))

    def _list(self, after: str | None, limit: int) -> ArchivePage:
        try:
            names = os.listdir(self.root)
        except FileNotFoundError:
            return ArchivePage((), None)
        ids = sorted(
            name[: -len(SUFFIX)]
            for name in names
            if name.endswith(SUFFIX) and GAME_ID.fullmatch(name[: -len(SUFFIX)])
        )
        ids = [g for g in ids if after is None or g > after]
        page = tuple(ids[:limit])
        return ArchivePage(page, page[-1] if len(ids) > limit else None)

    async def list_by_update(
        self, after: tuple[str, str] | None = None, limit: int = 1000
    ) -> list[tuple[str, str]]:
        """See `Archive.list_by_update`: every header read and sorted (no index: the
        directory archive is the embedded one, for a demo or a small club)."""

        def pairs() -> list[tuple[str, str]]:
            ids = self._list(None, 1 << 62).games
            entries = [self._entry(g) for g in ids]
            return [(e.updated_at or "", e.game_id) for e in entries if e is not None]

        return by_update(await asyncio.to_thread(pairs), after, limit)

    async def count(self) -> int:
        """See `Archive.count` (the directory read; temporary files skipped)."""
        return len((await asyncio.to_thread(self._list, None, 1 << 62)).games)

    async def delete(self, game_id: str) -> bool:
        """See `Archive.delete` (the directory fsynced after the unlink)."""
        return await asyncio.to_thread(self._delete, game_id)

    def _delete(self, game_id: str) -> bool:
        try:
            self._path(game_id).unlink()
        except FileNotFoundError:
            return False
        self._fsync_dir()
        return True

    async def close(self) -> None:
        """Nothing to release."""
