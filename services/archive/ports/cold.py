"""The archive port: sealed (final, quiet) games kept outside Redis, read back byte for byte.

A sealed game is everything Redis held for it: its stored events exactly as stored (the
envelope JSON of each seq, byte for byte), the write-token digest, the final projection, the
game-index score, the players' names kept beside the log, and metadata (ruleset, players,
when it ended). `checksum` is the SHA-256 of the stored events' JSONL (`events_jsonl`; the
export's bytes but for the names the export puts back into the start event); every adapter verifies it on read and raises
`ArchiveCorrupt` on a mismatch. Implementations: `adapters.postgres.PostgresArchive`
(production), `adapters.directory.DirectoryArchive` (one compressed file per game,
the embedded default), `adapters.memory.MemoryArchive`; `tests/ports/test_archive.py`
holds all three to one suite. Source: docs/benchmarks.md (archive/cold tier), KurrentDB's
archive tier (reads fall through).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

GAME_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""A game id as the envelope contract allows it (`contracts.envelope.GameId`)."""


class ArchiveCorrupt(RuntimeError):
    """An archived game whose stored events do not match its checksum (or cannot be read)."""

    def __init__(self, game_id: str, detail: str) -> None:
        super().__init__(f"archived game {game_id!r} is corrupt: {detail}")
        self.game_id = game_id


class ArchiveUnavailable(ConnectionError):
    """The archive cannot serve right now (unreachable, no pooled connection in time): a
    transient fault, answered 503 like Redis's and retried by the inbox (an `OSError`)."""


class ArchiveRefused(ArchiveUnavailable):
    """The archive's server answered and refused the connection (credentials, role, database
    or host not allowed): a setting to fix, not a fault to wait out."""


def events_jsonl(events: Sequence[bytes]) -> bytes:
    """The JSONL of stored events: each one's bytes and a newline (the export's body)."""
    return b"".join(event + b"\n" for event in events)


def checksum_of(events: Sequence[bytes]) -> str:
    """The SHA-256 hex digest of `events_jsonl(events)`."""
    return hashlib.sha256(events_jsonl(events)).hexdigest()


@dataclass(frozen=True, slots=True)
class ArchivedProjection:
    """The game's final projection as the projector stored it (`ports.projections`): its seq,
    status, game, standings JSON, rendered view (b"": none), `updated_at` and the shard
    checkpoint when it was sealed (None: none)."""

    seq: int
    status: str
    game: str
    standings_json: str
    view_json: bytes
    updated_at: str | None
    checkpoint: str | None


@dataclass(frozen=True, slots=True)
class ArchiveEntry:
    """An archived game's metadata: id, ruleset (the game's registered name), player ids,
    when its last `game.ended` was recorded (ISO 8601), event count, checksum, when it was
    archived (ISO 8601), and its final projection's `updated_at` (what the games list shows
    and sorts by; None: none)."""

    game_id: str
    ruleset: str
    players: tuple[str, ...]
    ended_at: str
    event_count: int
    checksum: str
    archived_at: str
    updated_at: str | None = None


@dataclass(frozen=True, slots=True)
class SealedGame:
    """One archived game: `entry` (metadata; its `checksum` covers `events`), the stored
    events (envelope JSON, byte for byte, seq order, none containing a newline), the
    write-token digest (None: the game had none), the final projection (None: none stored),
    the game-index score (ms of its first append) and the players' names kept outside the
    log (`player_id -> name`, "" once forgotten: `contracts.names`; not covered by the
    checksum: forgetting changes them, and changes an event only to store a start event
    written with names inline in today's form, with a new checksum)."""

    entry: ArchiveEntry
    events: tuple[bytes, ...]
    token_digest: str | None
    projection: ArchivedProjection | None
    index_score: int
    names: dict[str, str] = field(default_factory=dict)

    def verify(self) -> None:
        """Raises `ArchiveCorrupt` unless the events match the entry's count and checksum."""
        if len(self.events) != self.entry.event_count:
            raise ArchiveCorrupt(
                self.entry.game_id,
                f"{len(self.events)} events stored, {self.entry.event_count} recorded",
            )
        if checksum_of(self.events) != self.entry.checksum:
            raise ArchiveCorrupt(self.entry.game_id, "the events do not match their checksum")


def check_sealable(game: SealedGame) -> None:
    """Raises ValueError unless `game` can be archived: a valid game id, at least one event,
    no event with a newline (the JSONL framing), and a matching checksum (`ArchiveCorrupt`)."""
    if not GAME_ID.fullmatch(game.entry.game_id):
        raise ValueError(f"game_id: {game.entry.game_id[:40]!r} is not a game id")
    if not game.events:
        raise ValueError("events: a sealed game has at least one event")
    if any(b"\n" in event for event in game.events):
        raise ValueError("events: a stored event holds a newline")
    game.verify()


@dataclass(frozen=True, slots=True)
class ArchivePage:
    """A page of archived game ids (sorted) and the id to pass as `after` for the next page
    (None: this is the last)."""

    games: tuple[str, ...]
    next_after: str | None


class Archive(Protocol):
    """Where sealed games live once Redis lets them go."""

    async def put(self, game: SealedGame) -> None:
        """Store `game`, replacing any archived copy of the same id, atomically (a reader
        sees the old copy or the new one, never a part). Raises ValueError
        (`check_sealable`), ArchiveCorrupt (checksum mismatch)."""
        ...

    async def get(self, game_id: str) -> SealedGame | None:
        """The archived game (verified), or None. Raises ArchiveCorrupt on a checksum or
        count mismatch or an unreadable copy."""
        ...

    async def exists(self, game_id: str) -> bool:
        """Whether the game is archived (nothing verified)."""
        ...

    async def entry(self, game_id: str) -> ArchiveEntry | None:
        """The archived game's metadata only (no events read), or None."""
        ...

    async def entries(self, game_ids: Sequence[str]) -> list[ArchiveEntry | None]:
        """`entry` of several games, in order (one query where the backend can)."""
        ...

    async def list_games(self, after: str | None = None, limit: int = 1000) -> ArchivePage:
        """Archived game ids, sorted, at most `limit` (>= 1) after `after`."""
        ...

    async def list_by_update(
        self, after: tuple[str, str] | None = None, limit: int = 1000
    ) -> list[tuple[str, str]]:
        """At most `limit` (>= 1) archived games as (`updated_at` or "", game id), most
        recently updated first, then by id (byte order): the games list's order of finished
        games. `after`: the last pair of the previous page (None: from the start)."""
        ...

    async def count(self) -> int:
        """How many games are archived (the games list's total)."""
        ...

    async def delete(self, game_id: str) -> bool:
        """Remove the archived game (a reopened game lives in Redis again); False when it was
        not archived."""
        ...

    async def close(self) -> None:
        """Release connections (a no-op where there are none)."""
        ...


def by_update(
    pairs: Sequence[tuple[str, str]], after: tuple[str, str] | None, limit: int
) -> list[tuple[str, str]]:
    """`Archive.list_by_update` over pairs held in memory (the directory and memory adapters)."""
    ordered = sorted(pairs, key=lambda p: p[1])
    ordered.sort(key=lambda p: p[0], reverse=True)
    if after is not None:
        ordered = [p for p in ordered if p[0] < after[0] or (p[0] == after[0] and p[1] > after[1])]
    return ordered[: max(1, limit)]
