"""`HotGames` on a `MemoryBackend` (tests): the same snapshot, conditional removal and restore
as the Redis adapter, on the in-memory adapters' state (no game index: score 0)."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator

from services.adapters.memory.store import MemoryBackend
from services.archive.ports.cold import ArchivedProjection, SealedGame
from services.archive.ports.hot import HotGame
from services.ports.eventlog import FeedEntry
from services.ports.shards import shard_of


def _head(data: bytes) -> str:
    return str(json.loads(data)["event_id"])


class MemoryHotGames:
    """`ports.hot.HotGames` in memory."""

    def __init__(self, backend: MemoryBackend) -> None:
        self.b = backend
        self.locks: dict[str, tuple[str, float]] = {}
        """game id -> (owner, monotonic time it ends)."""

    async def lock(self, game_id: str, owner: str, ttl_ms: int) -> bool:
        """See `HotGames.lock`."""
        now = time.monotonic()
        held = self.locks.get(game_id)
        if held is not None and held[0] != owner and held[1] > now:
            return False
        self.locks[game_id] = (owner, now + ttl_ms / 1000)
        return True

    async def unlock(self, game_id: str, owner: str) -> None:
        """See `HotGames.unlock`."""
        held = self.locks.get(game_id)
        if held is not None and held[0] == owner:
            del self.locks[game_id]

    async def snapshot(self, game_id: str) -> HotGame | None:
        """See `HotGames.snapshot`."""
        log = self.b.logs.get(game_id)
        if not log:
            return None
        raw = self.b.projections.get(game_id, {})
        projection = None
        if raw.get("standings"):
            seq = raw.get("seq", "0")
            view = raw.get("view", "") if raw.get("view_seq") == seq else ""
            projection = ArchivedProjection(
                seq=int(seq),
                status=raw.get("status", "in_progress"),
                game=raw.get("game", ""),
                standings_json=raw["standings"],
                view_json=view.encode(),
                updated_at=raw.get("updated_at"),
                checkpoint=self.b.checkpoints.get(shard_of(game_id, self.b.shards)),
            )
        return HotGame(
            events=tuple(log),
            head_event_id=_head(log[-1]),
            token_digest=self.b.digests.get(game_id),
            index_score=0,
            projection=projection,
            held="held" in raw,
            names=dict(self.b.names.get(game_id, {})),
        )

    async def remove(self, game_id: str, snap: HotGame) -> bool:
        """See `HotGames.remove`."""
        log = self.b.logs.get(game_id, [])
        if not log or len(log) != snap.version or _head(log[-1]) != snap.head_event_id:
            return False
        if self.b.names.get(game_id, {}) != snap.names:
            return False
        for table in (self.b.logs, self.b.ids, self.b.digests, self.b.projections, self.b.names):
            table.pop(game_id, None)
        return True

    async def restore(self, game: SealedGame) -> bool:
        """See `HotGames.restore`."""
        game_id = game.entry.game_id
        if self.b.logs.get(game_id):
            return False
        ids = {_head(data): seq for seq, data in enumerate(game.events, start=1)}
        self.b.logs[game_id] = list(game.events)
        self.b.names.setdefault(game_id, {}).update(game.names)
        self.b.ids[game_id] = ids
        if game.token_digest is not None:
            self.b.digests[game_id] = game.token_digest
        shard = shard_of(game_id, self.b.shards)
        entry = FeedEntry(self.b.next_id(), game_id, len(game.events), game.events[-1])
        self.b.feeds.setdefault(shard, []).append(entry)
        return True

    async def stray_projections(self) -> AsyncIterator[str]:
        """See `HotGames.stray_projections`."""
        for game_id in [g for g in self.b.projections if not self.b.logs.get(g)]:
            yield game_id

    async def drop_stray(self, game_id: str) -> bool:
        """See `HotGames.drop_stray`."""
        if self.b.logs.get(game_id):
            return False
        return self.b.projections.pop(game_id, None) is not None
