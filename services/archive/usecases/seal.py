"""Sealing: a final game quiet for `after_s` leaves Redis for the archive, losing nothing.

One game is sealed in four steps, each safe to crash after:

1. snapshot its hot keys at once (`HotGames.snapshot`: log, digest, index score, projection);
   it must be final, projected up to its last event, not held, and its last event recorded at
   least `after_s` ago;
2. `Archive.put` the sealed copy (events byte for byte, with their SHA-256 checksum);
3. read it back (`Archive.get`, which verifies the checksum) and compare it with the snapshot;
4. `HotGames.remove`: only if the game's version, last event and kept names are still the
   snapshot's (a writer that appended, or a `forget`, meanwhile keeps the game in Redis; the
   archived copy is shadowed and replaced at the next seal).

A crash after step 1 or 2 or 3 leaves the game whole in Redis (and maybe a copy in the
archive): reads answer from Redis, and the next pass seals it again (the put replaces the
copy). After step 4 it is whole in the archive. So at every moment one tier or the other
answers every read (`usecases.tiered`). Source: docs/decisions/0013-archive-cold-tier.md
(cold archive: seal the stream, a checksummed compressed segment, then trim Redis).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

import structlog

from services.archive.ports.cold import Archive, ArchiveEntry, SealedGame, checksum_of
from services.archive.ports.hot import HotGame, HotGames
from services.ports.eventlog import EventLog
from services.ports.projections import Projections

log = structlog.get_logger("archive")

Result = Literal["sealed", "gone", "not_final", "not_quiet", "held", "behind", "changed", "busy"]
"""What a seal attempt came to: `sealed` (now in the archive only), `gone` (no events in
Redis), `not_final` (no `game.ended` in force), `not_quiet` (an event within `after_s`),
`held` (the projector holds it), `behind` (its projection is behind its log), `changed` (an
append came between the snapshot and the removal: it stays in Redis), `busy` (a `forget`
holds the game's tier lock: the next pass tries again)."""

LOCK_TTL_MS = 120_000
"""How long a seal or a `forget` may hold a game's tier lock before it ends by itself (a
holder that crashed); far above one game's seal or forget."""


class SealMismatch(RuntimeError):
    """The archive gave back another copy than the one put (nothing was removed from Redis)."""


@dataclass(frozen=True, slots=True)
class SealPass:
    """One pass over Redis's games: each looked-at game's result, and the id to start the next
    pass after (None: the pass reached the last game)."""

    results: dict[str, Result]
    next_after: str | None


def _parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _ended_at(events: Sequence[bytes]) -> str | None:
    """`recorded_at` of the last `game.ended` event (None: none)."""
    for data in reversed(events):
        if b'"game.ended"' in data:
            event = json.loads(data)
            if event.get("type") == "game.ended":
                return str(event.get("recorded_at") or event["occurred_at"])
    return None


def _players(first: bytes) -> tuple[str, ...]:
    """Player ids of the start event (empty when it names none)."""
    payload = json.loads(first).get("payload") or {}
    return tuple(str(p["player_id"]) for p in payload.get("players", []) if "player_id" in p)


@dataclass(eq=False, slots=True)
class Seal:
    """Seals final, quiet games into the archive (see the module docstring).

    Args:
        log: Redis's event log (the games to look at); projections: Redis's (their status);
        hot: whole games in Redis; archive: where sealed games go; after_s: how long a final
        game stays in Redis after its last event (seconds).
    """

    log: EventLog
    projections: Projections
    hot: HotGames
    archive: Archive
    after_s: float

    async def pass_once(
        self, now: datetime, after: str | None = None, limit: int = 100
    ) -> SealPass:
        """Look at up to `limit` of Redis's games after `after` (sorted ids) and seal those
        that are final and quiet. Only final games are snapshot (one projection read each).
        Raises: storage errors, `SealMismatch` (the pass stops; nothing of that game removed).
        """
        page = await self.log.list_games(after, limit)
        stored = await self.projections.get_many(page.games)
        results: dict[str, Result] = {}
        for game_id, projection in zip(page.games, stored, strict=True):
            if projection is None or projection.status != "final":
                results[game_id] = "not_final"
                continue
            results[game_id] = await self.game(game_id, now)
        return SealPass(results, page.next_after)

    async def game(self, game_id: str, now: datetime) -> Result:
        """Seal one game if it is final and quiet (steps 1-4 of the module docstring), holding
        its tier lock throughout (`HotGames.lock`: a `forget` never runs between the steps).
        Raises: storage errors, `SealMismatch`, ArchiveCorrupt."""
        owner = f"seal-{uuid.uuid4().hex}"
        if not await self.hot.lock(game_id, owner, LOCK_TTL_MS):
            return "busy"
        try:
            return await self._locked(game_id, now)
        finally:
            await self.hot.unlock(game_id, owner)

    async def _locked(self, game_id: str, now: datetime) -> Result:
        snap = await self.hot.snapshot(game_id)
        if snap is None:
            return "gone"
        refusal = self._refusal(snap, now)
        if refusal is not None:
            return refusal
        sealed = self._sealed(game_id, snap, now)
        await self.archive.put(sealed)
        back = await self.archive.get(game_id)
        if (
            back is None
            or back.events != snap.events
            or back.token_digest != snap.token_digest
            or back.names != snap.names
        ):
            raise SealMismatch(f"the archive did not give back game {game_id!r} as put")
        if not await self.hot.remove(game_id, snap):
            log.info("archive.seal_raced", game_id=game_id, version=snap.version)
            return "changed"
        log.info("archive.sealed", game_id=game_id, events=snap.version)
        return "sealed"

    def _refusal(self, snap: HotGame, now: datetime) -> Result | None:
        p = snap.projection
        if p is None or p.status != "final":
            return "not_final"
        if snap.held:
            return "held"
        if p.seq != snap.version:
            return "behind"
        if _ended_at(snap.events) is None:
            return "not_final"
        last = json.loads(snap.events[-1])
        recorded = _parse_time(str(last.get("recorded_at") or last["occurred_at"]))
        if (now - recorded).total_seconds() < self.after_s:
            return "not_quiet"
        return None

    @staticmethod
    def _sealed(game_id: str, snap: HotGame, now: datetime) -> SealedGame:
        assert snap.projection is not None
        entry = ArchiveEntry(
            game_id=game_id,
            ruleset=snap.projection.game,
            players=_players(snap.events[0]),
            ended_at=_ended_at(snap.events) or "",
            event_count=snap.version,
            checksum=checksum_of(snap.events),
            archived_at=now.astimezone(UTC).isoformat(),
            updated_at=snap.projection.updated_at,
        )
        return SealedGame(
            entry, snap.events, snap.token_digest, snap.projection, snap.index_score, snap.names
        )
