"""In-memory projections and change notices on the shared `MemoryBackend` (the store's
contract: projections and checkpoints changed together, a shard's writes fenced by its lease;
see `services.adapters.memory.store`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from services.adapters.memory.store import MemoryBackend
from services.ports.errors import LeaseLost
from services.ports.eventlog import (
    FeedEntry,
)
from services.ports.leases import ShardLease
from services.ports.notices import Notice
from services.ports.projections import (
    START_ID,
    Advanced,
    HeldGame,
    ProjectionBatch,
    ProjectionHead,
    StoredProjection,
    StoredStandings,
    WriteOutcome,
    feed_id_key,
    held_game,
    reaches,
)
from services.ports.shards import shard_of


class MemoryProjections:
    """`FencedProjections` in memory: a held shard's write is refused (`LeaseLost`, nothing
    written) unless its token holds the shard's lease with the newest fence, as on Redis."""

    def __init__(self, backend: MemoryBackend) -> None:
        self.b = backend
        self.leases: dict[int, ShardLease] = {}

    async def prepare(self) -> None:
        """Nothing to load."""

    def hold_lease(self, lease: ShardLease) -> None:
        self.leases[lease.shard] = lease

    def drop_lease(self, shard: int) -> None:
        self.leases.pop(shard, None)

    def _check_fence(self, shard: int) -> None:
        lease = self.leases.get(shard)
        if lease is None:
            return
        if self.b.lease_token(shard) != lease.token:
            raise LeaseLost(shard, "lease")
        if self.b.fences.get(shard) != lease.fence:
            raise LeaseLost(shard, "fence")

    async def fields(self, game_ids: Sequence[str]) -> list[dict[str, str]]:
        return [dict(self.b.projections.get(g, {})) for g in game_ids]

    async def checkpoint(self, shard: int) -> str:
        return self.b.checkpoints.get(shard, START_ID)

    def _head(self, game_id: str) -> ProjectionHead:
        raw = self.b.projections.get(game_id, {})
        held = raw.get("held")
        seq = int(raw.get("seq", 0))
        why = raw.get("held_reason") or None
        return ProjectionHead(seq, int(held) if held else None, why, raw.get("live") == "1")

    async def heads(self, game_ids: Sequence[str]) -> list[ProjectionHead]:
        return [self._head(game_id) for game_id in game_ids]

    async def advance(self, shard: int, last_feed_id: str, reached: Mapping[str, int]) -> Advanced:
        """See `Projections.advance`."""
        self._check_fence(shard)
        stored = self.b.checkpoints.get(shard)
        if stored is not None and feed_id_key(last_feed_id) <= feed_id_key(stored):
            return Advanced(False, stale=True)
        heads = {game_id: self._head(game_id) for game_id in reached}
        if not all(reaches(heads[g], seq) for g, seq in reached.items()):
            return Advanced(False, heads=heads)
        self.b.checkpoints[shard] = last_feed_id
        self.b.notify()
        return Advanced(True)

    async def write(self, batch: ProjectionBatch, changes_maxlen: int) -> WriteOutcome:
        self._check_fence(batch.shard)
        stored = self.b.checkpoints.get(batch.shard)
        moves = batch.last_feed_id != ""  # "": a reseed, the checkpoint stays
        if moves and stored is not None and feed_id_key(batch.last_feed_id) <= feed_id_key(stored):
            return WriteOutcome(stale=True)
        skipped = set()
        for op in batch.ops:
            proj = self.b.projections.setdefault(op.game_id, {})
            if op.kind == "hold":
                if "held" not in proj:
                    proj.update(held=str(op.seq), held_reason=op.reason_json)
            elif "held" in proj or int(proj.get("seq", 0)) != op.base_seq:
                skipped.add(op.game_id)
            else:
                proj.update(
                    seq=str(op.seq),
                    status=op.status,
                    game=op.game,
                    standings=op.standings_json,
                    updated_at=batch.updated_at,
                    view=op.view_json.decode(),
                    view_seq=str(op.seq) if op.view_json else "",
                    live="0",
                )
                notices = self.b.notices.setdefault(batch.shard, [])
                notices.append(Notice(batch.shard, self.b.next_id(), op.game_id, op.seq))
                del notices[: max(0, len(notices) - changes_maxlen)]
        if moves:
            self.b.checkpoints[batch.shard] = batch.last_feed_id
        self.b.notify()
        return WriteOutcome(False, frozenset(skipped))

    def _stored(self, game_id: str, checkpoint: str | None) -> StoredProjection | None:
        raw = self.b.projections.get(game_id, {})
        if not raw.get("standings"):
            return None
        return StoredProjection(
            int(raw["seq"]),
            raw["status"],
            raw["game"],
            raw["standings"],
            raw.get("updated_at"),
            checkpoint,
        )

    async def get(self, game_id: str) -> StoredProjection | None:
        shard = shard_of(game_id, self.b.shards)
        return self._stored(game_id, self.b.checkpoints.get(shard))

    async def get_many(self, game_ids: Sequence[str]) -> list[StoredProjection | None]:
        return [self._stored(g, None) for g in game_ids]

    async def standings(self, game_id: str) -> StoredStandings | None:
        stored = await self.get(game_id)
        if stored is None:
            return None
        raw = self.b.projections[game_id]  # the view of the stored seq, as the Redis script
        view = raw["view"].encode() if raw.get("view") and raw["view_seq"] == raw["seq"] else None
        standings = None if view else stored.standings_json.encode()
        return StoredStandings(standings, stored.updated_at, stored.checkpoint, view)

    async def lag(self, cap: int) -> int:
        total = 0
        for shard, feed in self.b.feeds.items():
            ckpt = feed_id_key(self.b.checkpoints.get(shard, START_ID))
            total += min(cap + 1, sum(1 for e in feed if feed_id_key(e.feed_id) > ckpt))
        return total

    async def held(self, limit: int) -> tuple[int, list[HeldGame]]:
        held = [
            held_game(g, p.get("held_reason", ""))
            for g, p in sorted(self.b.projections.items())
            if "held" in p
        ]
        return len(held), held[:limit]

    async def release(self, game_id: str, held_seq: int, seq: int, data: bytes) -> bool:
        proj = self.b.projections.get(game_id, {})
        if proj.get("held") != str(held_seq):
            return False
        proj.pop("held")
        proj.pop("held_reason", None)
        if seq > 0:
            entry = FeedEntry(self.b.next_id(), game_id, seq, data)
            self.b.feeds.setdefault(shard_of(game_id, self.b.shards), []).append(entry)
            self.b.notify()
        return True


class MemoryChangeNotices:
    """`ChangeNotices` in memory (with `block_ms`, an empty read waits that long for a notice)."""

    def __init__(self, backend: MemoryBackend) -> None:
        self.b = backend

    async def tail(self, shard: int) -> str:
        notices = self.b.notices.get(shard, [])
        return notices[-1].entry_id if notices else START_ID

    async def tails(self, shards: Sequence[int]) -> list[str]:
        return [await self.tail(shard) for shard in shards]

    def _after(self, after: Mapping[int, str], count: int) -> list[Notice]:
        out: list[Notice] = []
        for shard, pos in after.items():
            key = feed_id_key(pos)
            fresh = [n for n in self.b.notices.get(shard, []) if feed_id_key(n.entry_id) > key]
            out += fresh[:count]
        return out

    async def read(
        self, after: Mapping[int, str], count: int = 500, block_ms: int | None = None
    ) -> Sequence[Notice]:
        out = self._after(after, count)
        if not out and block_ms:
            await self.b.changed(block_ms / 1000)
            out = self._after(after, count)
        return out

    async def changed_since(
        self, game_id: str, after: str, limit: int | None = None
    ) -> Notice | None:
        shard = shard_of(game_id, self.b.shards)
        try:
            key = feed_id_key(after)
        except ValueError:
            raise ValueError(f"not a notice id: {after[:40]!r}") from None
        later = [n for n in self.b.notices.get(shard, []) if feed_id_key(n.entry_id) > key]
        hits = [n for n in later[:limit] if n.game_id == game_id]
        return hits[-1] if hits else None
