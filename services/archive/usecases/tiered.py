"""Reads and writes over both tiers: Redis (hot) first, the archive when Redis has no event of
the game. Wrappers with the ports' own shapes, so every use case and door keeps calling the
`EventLog`, `Credentials` and `Projections` it always called.

* Reads fall through: a game with no event in Redis is answered from its archived copy (the
  same stored bytes, the same final projection), so every read route answers as before.
* A write to an archived game brings it back first: the credential lookup answers the
  archived digest (the same authorization, checked before anything is restored), and the
  append restores the game (`HotGames.restore`) when Redis does not have it, then appends.
  The archived copy stays until the game is sealed again; Redis shadows it meanwhile.
* Archived games are immutable between seals, so their copies are kept in a small LRU
  (bytes-bounded), checked against the archive's checksum on every use.
Source: docs/decisions/0013-archive-cold-tier.md (KurrentDB archiving: reads fall through).
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from contracts.envelope import Envelope
from contracts.events import parse_event_json
from services.archive.ports.cold import Archive, SealedGame
from services.archive.ports.hot import HotGames
from services.archive.usecases.seal import LOCK_TTL_MS
from services.ports.credentials import CredentialLookup, Credentials
from services.ports.errors import CredentialMismatch, StoreUnavailable, VersionConflict
from services.ports.eventlog import (
    AppendRequest,
    AppendResult,
    EventLog,
    EventLogBase,
    GamesPage,
)
from services.ports.projections import (
    Advanced,
    HeldGame,
    ProjectionBatch,
    ProjectionHead,
    Projections,
    StoredProjection,
    StoredStandings,
    WriteOutcome,
)
from services.ports.shards import shard_of
from services.runtime.sizedcache import ByteLRU


class ArchiveReader:
    """Archived games as read models need them: whole (verified), cached by checksum.

    Args:
        archive: the archive port.
        cache_bytes: bound of the copies kept (estimated as their stored bytes).
    """

    def __init__(self, archive: Archive, cache_bytes: int = 16 * 1024 * 1024) -> None:
        self.archive = archive
        self._games: ByteLRU[str, SealedGame] = ByteLRU(
            cache_bytes, lambda g: sum(len(e) for e in g.events) + 1024, 1000
        )

    async def game(self, game_id: str) -> SealedGame | None:
        """The archived game (None: not archived); a kept copy if its checksum is current.
        Raises: ArchiveCorrupt."""
        entry = await self.archive.entry(game_id)
        if entry is None:
            self._games.pop(game_id)
            return None
        kept = self._games.get(game_id)
        if kept is not None and kept.entry == entry:  # a forget changes `archived_at`
            return kept
        game = await self.archive.get(game_id)
        if game is not None:
            self._games.put(game_id, game)
        return game

    async def projection_fields(self, game_id: str) -> dict[str, str] | None:
        """The archived game's final projection as the projection HASH's fields (what live
        push renders), or None (not archived, or no projection)."""
        game = await self.game(game_id)
        p = None if game is None else game.projection
        if p is None:
            return None
        fields = {"seq": str(p.seq), "status": p.status, "game": p.game}
        fields["standings"] = p.standings_json
        if p.view_json:
            fields |= {"view": p.view_json.decode(), "view_seq": str(p.seq)}
        if p.updated_at is not None:
            fields["updated_at"] = p.updated_at
        return fields

    async def version(self, game_id: str) -> int:
        """The archived event count (0: not archived), from the metadata alone."""
        entry = await self.archive.entry(game_id)
        return 0 if entry is None else entry.event_count


def _slice(events: Sequence[bytes], from_seq: int, to_seq: int | None) -> list[bytes]:
    return list(events[max(0, from_seq - 1) : to_seq if to_seq is not None else len(events)])


@dataclass(eq=False, slots=True)
class TieredEventLog(EventLogBase):
    """`EventLog` over Redis and the archive (see the module docstring).

    Args:
        hot: the Redis event log; hot_games: restores a game before an append reopens it;
        archive: the archived games' reader; lock_wait_s: how long a restore waits for the
        game's tier lock (a seal or a `forget` holding it), in seconds.
    """

    hot: EventLog
    hot_games: HotGames
    archive: ArchiveReader
    lock_wait_s: float = 10.0

    async def _restore(self, game_id: str) -> bool:
        """Bring the archived game back to Redis when Redis has none of it; True if it is
        archived (restored now or by another writer). Holds the game's tier lock from the
        archive read to the write (`HotGames.lock`), so a `forget` never runs between them
        and a restore never writes back a name forgotten meanwhile (docs/forget.md).

        Raises: StoreUnavailable (`busy`: the lock stayed held past `lock_wait_s`; nothing
        was written, the write may be sent again)."""
        owner = f"restore-{uuid.uuid4().hex}"
        deadline = time.monotonic() + self.lock_wait_s
        while not await self.hot_games.lock(game_id, owner, LOCK_TTL_MS):
            if time.monotonic() >= deadline:
                raise StoreUnavailable(
                    f"game {game_id!r}: its tier lock stayed held {self.lock_wait_s:g} s",
                    "the game is being moved between storage tiers",
                    "busy",
                )
            await asyncio.sleep(0.05)
        try:
            game = await self.archive.game(game_id)
            if game is None:
                return False
            await self.hot_games.restore(game)
            return True
        finally:
            await self.hot_games.unlock(game_id, owner)

    @property
    def keeps_names(self) -> bool:  # type: ignore[override]  # the hot log's, as appends go there
        """See `EventLog.keeps_names`: the hot log's (every append is the hot log's)."""
        return self.hot.keeps_names

    async def append_one(self, request: AppendRequest) -> AppendResult:
        """See `EventLog.append_one`. A batch with a seq-1 event first restores an archived
        game (so a creation sent again is answered as the duplicate it is, not a new game); any
        other append finding Redis empty restores and tries once more."""
        game_id = request.game_id
        if any(e.seq == 1 for e in request.events) and await self.hot.version(game_id) == 0:
            await self._restore(game_id)
        try:
            return await self.hot.append_one(request)
        except VersionConflict as conflict:
            if conflict.actual != 0 or not await self._restore(game_id):
                raise
        return await self.hot.append_one(request)

    async def append_many(
        self, requests: Sequence[AppendRequest]
    ) -> list[AppendResult | VersionConflict | CredentialMismatch]:
        """See `EventLog.append_many`, with `append_one`'s restores: the requests that found
        Redis empty are sent once more after their games came back."""
        creating = {r.game_id for r in requests if any(e.seq == 1 for e in r.events)}
        for game_id in creating:
            if await self.hot.version(game_id) == 0:
                await self._restore(game_id)
        outcomes = await self.hot.append_many(requests)
        retry = [
            i
            for i, out in enumerate(outcomes)
            if isinstance(out, VersionConflict) and out.actual == 0
        ]
        restored = {g for g in {requests[i].game_id for i in retry} if await self._restore(g)}
        again = [i for i in retry if requests[i].game_id in restored]
        if again:
            redone = await self.hot.append_many([requests[i] for i in again])
            for i, out in zip(again, redone, strict=True):
                outcomes[i] = out
        return outcomes

    async def version(self, game_id: str) -> int:
        """See `EventLog.version`: Redis's, else the archived event count."""
        return await self.hot.version(game_id) or await self.archive.version(game_id)

    async def versions(self, game_ids: Sequence[str]) -> list[int]:
        """See `EventLog.versions` (the archive asked, in one call, only for games Redis has
        not)."""
        out = await self.hot.versions(game_ids)
        cold = [g for g, v in zip(game_ids, out, strict=True) if not v]
        if not cold:
            return out
        counts = {
            g: 0 if e is None else e.event_count
            for g, e in zip(cold, await self.archive.archive.entries(cold), strict=True)
        }
        return [v or counts[g] for g, v in zip(game_ids, out, strict=True)]

    async def stored_seqs(
        self, game_id: str, event_ids: Sequence[str]
    ) -> tuple[int, list[int | None]]:
        """See `EventLog.stored_seqs`."""
        version, seqs = await self.hot.stored_seqs(game_id, event_ids)
        if version:
            return version, seqs
        game = await self.archive.game(game_id)
        if game is None:
            return version, seqs
        ids = {str(json.loads(e)["event_id"]): s for s, e in enumerate(game.events, start=1)}
        return len(game.events), [ids.get(e) for e in event_ids]

    async def confirm_replicated(self, game_id: str, event_id: str) -> None:
        """See `EventLog.confirm_replicated`: Redis's (an archived game is durable already)."""
        await self.hot.confirm_replicated(game_id, event_id)

    async def read_raw(
        self, game_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> list[bytes]:
        """See `EventLog.read_raw`: Redis's, else (nothing there) the archived bytes."""
        raw = await self.hot.read_raw(game_id, from_seq, to_seq)
        if raw:
            return raw
        game = await self.archive.game(game_id)
        if game is None or await self.hot.version(game_id):
            return raw  # not archived, or a Redis log shorter than from_seq
        return _slice(game.events, from_seq, to_seq)

    async def read(
        self, game_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> list[Envelope]:
        """See `EventLog.read`."""
        return [parse_event_json(d) for d in await self.read_raw(game_id, from_seq, to_seq)]

    async def list_games(self, after: str | None = None, limit: int = 1000) -> GamesPage:
        """See `EventLog.list_games`: one sorted list over both tiers (a reopened game, in
        both, listed once). A page ends where the first tier with more games ended, so no id
        of either tier is skipped."""
        hot = await self.hot.list_games(after, limit)
        cold = await self.archive.archive.list_games(after, limit)
        bounds = [p.games[-1] for p in (hot, cold) if p.next_after is not None and p.games]
        bound = min(bounds) if bounds else None
        merged = sorted({*hot.games, *cold.games})
        within = [g for g in merged if bound is None or g <= bound]
        page = tuple(within[:limit])
        more = bound is not None or len(within) > limit
        return GamesPage(page, page[-1] if more and page else None)


@dataclass(eq=False, slots=True)
class TieredCredentials:
    """`Credentials` over Redis and the archive: an archived game's digest and version, so a
    write to it is authorized exactly as before it was archived (nothing restored yet)."""

    hot: Credentials
    archive: ArchiveReader

    async def lookup(self, game_id: str) -> CredentialLookup:
        """See `Credentials.lookup`."""
        found = await self.hot.lookup(game_id)
        if found.version:
            return found
        game = await self.archive.game(game_id)
        return found if game is None else CredentialLookup(game.token_digest, len(game.events))

    async def lookup_many(self, game_ids: Sequence[str]) -> list[CredentialLookup]:
        """See `Credentials.lookup_many`."""
        found = await self.hot.lookup_many(game_ids)
        out = []
        for game_id, one in zip(game_ids, found, strict=True):
            game = None if one.version else await self.archive.game(game_id)
            out.append(
                one if game is None else CredentialLookup(game.token_digest, len(game.events))
            )
        return out


@dataclass(eq=False, slots=True)
class TieredProjections:
    """`Projections` whose reads (`get`, `get_many`, `standings`) fall through to an archived
    game's final projection (with its shard's checkpoint now); everything the projector calls
    is Redis's alone."""

    hot: Projections
    archive: ArchiveReader
    shards: int

    async def _archived(self, game_id: str, checkpoint: bool) -> StoredProjection | None:
        game = await self.archive.game(game_id)
        p = None if game is None else game.projection
        if p is None:
            return None
        ckpt = await self.hot.checkpoint(shard_of(game_id, self.shards)) if checkpoint else None
        return StoredProjection(p.seq, p.status, p.game, p.standings_json, p.updated_at, ckpt)

    async def checkpoint(self, shard: int) -> str:
        return await self.hot.checkpoint(shard)

    async def heads(self, game_ids: Sequence[str]) -> list[ProjectionHead]:
        return await self.hot.heads(game_ids)

    async def write(self, batch: ProjectionBatch, changes_maxlen: int) -> WriteOutcome:
        return await self.hot.write(batch, changes_maxlen)

    async def advance(self, shard: int, last_feed_id: str, reached: Mapping[str, int]) -> Advanced:
        return await self.hot.advance(shard, last_feed_id, reached)

    async def get(self, game_id: str) -> StoredProjection | None:
        """See `Projections.get`."""
        return await self.hot.get(game_id) or await self._archived(game_id, True)

    async def get_many(self, game_ids: Sequence[str]) -> list[StoredProjection | None]:
        """See `Projections.get_many`. An archived game is answered from its metadata alone,
        in one archive call for all of them (the games list reads every game): status
        `final`, seq, game and `updated_at` as its final projection had them, and empty
        standings (`get` and `standings` give those)."""
        found = await self.hot.get_many(game_ids)
        cold = [g for g, p in zip(game_ids, found, strict=True) if p is None]
        if not cold:
            return found
        entries = dict(zip(cold, await self.archive.archive.entries(cold), strict=True))
        out: list[StoredProjection | None] = []
        for game_id, p in zip(game_ids, found, strict=True):
            e = entries.get(game_id) if p is None else None
            if e is not None:
                p = StoredProjection(e.event_count, "final", e.ruleset, "", e.updated_at)
            out.append(p)
        return out

    async def standings(self, game_id: str) -> StoredStandings | None:
        """See `Projections.standings`: the archived view (else standings) when Redis has no
        projection of the game."""
        stored = await self.hot.standings(game_id)
        if stored is not None:
            return stored
        game = await self.archive.game(game_id)
        p = None if game is None else game.projection
        if p is None:
            return None
        ckpt = await self.hot.checkpoint(shard_of(game_id, self.shards))
        if p.view_json:
            return StoredStandings(None, p.updated_at, ckpt, p.view_json)
        return StoredStandings(p.standings_json.encode(), p.updated_at, ckpt)

    async def lag(self, cap: int) -> int:
        return await self.hot.lag(cap)

    async def held(self, limit: int) -> tuple[int, list[HeldGame]]:
        return await self.hot.held(limit)

    async def release(self, game_id: str, held_seq: int, seq: int, data: bytes) -> bool:
        return await self.hot.release(game_id, held_seq, seq, data)
