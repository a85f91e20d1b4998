"""Projections and checkpoints on Redis (`services.ports.projections.Projections`).

Per game: the projection HASH `Keys.projection` (seq, status, game, standings JSON, the
rendered view and its view_seq, updated_at, held); per shard: the checkpoint STRING and the
changes stream. A batch is one call of `project_lua.APPLY_LUA`; for a shard whose lease this
process holds (`hold_lease`) the call goes through `lease.fenced_script`, so a former owner
writes nothing (`LeaseLost`).
Source: docs/decisions/0004-projector-catch-up-subscription.md.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from redis.commands.core import AsyncScript
from redis.exceptions import ResponseError

from services.adapters.redis.coalesce import ScriptCoalescer
from services.adapters.redis.connect import RedisClient, is_cluster
from services.adapters.redis.fanout import script_calls
from services.adapters.redis.keys import Keys, shard_of
from services.adapters.redis.lease import (
    ShardLease,
    fence_key,
    fenced_script,
    lease_key,
    raise_if_fenced,
)
from services.adapters.redis.project_lua import ADVANCE_LUA, APPLY_LUA
from services.adapters.redis.readonly import ReadOnlyScript
from services.adapters.redis.unavailable import unavailable
from services.ports.projections import (
    START_ID,
    Advanced,
    HeldGame,
    ProjectionBatch,
    ProjectionHead,
    StoredProjection,
    StoredStandings,
    WriteOutcome,
    held_game,
)

# Count the feed entries after the checkpoint, at most ARGV[1]: the lag, computed server-side
# so only a number crosses the wire. KEYS share the shard's hash tag (one Cluster slot).
_LAG_LUA = """
local ckpt = redis.call('GET', KEYS[2]) or '0-0'
return #redis.call('XRANGE', KEYS[1], '(' .. ckpt, '+', 'COUNT', tonumber(ARGV[1]))
"""

# A projection and its shard checkpoint in one command (KEYS share the shard's hash tag).
_GET_LUA = """
return {redis.call('HGETALL', KEYS[1]), redis.call('GET', KEYS[2])}
"""


# Release a hold (KEYS: 1 projection, 2 held-games HASH, 3 the shard feed; ARGV: 1 game id,
# 2 the held seq, 3 and 4 the seq and data of the log's last event): only if still held there.
_RELEASE_LUA = """
if redis.call('HGET', KEYS[1], 'held') ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[1], 'held', 'held_reason')
redis.call('HDEL', KEYS[2], ARGV[1])
if tonumber(ARGV[3]) > 0 then
  redis.call('XADD', KEYS[3], '*', 'game', ARGV[1], 'seq', ARGV[3], 'data', ARGV[4])
end
return 1
"""


# The standings GET's read (docs/decisions/0012-hot-reads-and-off-loop-replays.md): the rendered view if it is of the stored seq (an older
# projector writes seq and standings, not the view), else the standings to render; updated_at
# and the checkpoint. Nothing else crosses the wire, nothing is decoded.
_STANDINGS_LUA = """
local got = redis.call('HMGET', KEYS[1], 'view', 'view_seq', 'seq', 'updated_at')
local ckpt = redis.call('GET', KEYS[2])
if got[1] and got[2] == got[3] then return {got[1], got[4], ckpt} end
return {false, got[4], ckpt, redis.call('HGET', KEYS[1], 'standings')}
"""


# The apply script behind the lease guard: lease and fence keys last in KEYS, the token last in
# ARGV, so the body's indexes stay as they are.
FENCED_APPLY_LUA = fenced_script(APPLY_LUA, "KEYS[#KEYS - 1]", "KEYS[#KEYS]", "ARGV[#ARGV]")
FENCED_ADVANCE_LUA = fenced_script(ADVANCE_LUA, "KEYS[#KEYS - 1]", "KEYS[#KEYS]", "ARGV[#ARGV]")


def _head(reply: Sequence[Any]) -> ProjectionHead:
    """A `ProjectionHead` from an HMGET of `seq`, `held`, `held_reason`, `live`."""
    seq, held, why, live = reply
    return ProjectionHead(
        int(seq) if seq else 0,
        int(held) if held else None,
        why.decode() or None if why is not None else None,
        live == b"1",
    )


def _stored(raw: dict[str, str], checkpoint: str | None) -> StoredProjection | None:
    if not raw.get("standings"):
        return None
    return StoredProjection(
        seq=int(raw.get("seq", 0)),
        status=raw.get("status", "in_progress"),
        game=raw.get("game", ""),
        standings_json=raw["standings"],
        updated_at=raw.get("updated_at"),
        checkpoint=checkpoint,
    )


class RedisProjections:
    """`client`: single node or cluster (`connect`), without `decode_responses`.

    Writes of a shard registered with `hold_lease` are fenced by that lease's token; other
    shards' writes are unfenced (a single projector, tests).
    """

    def __init__(self, client: RedisClient, keys: Keys) -> None:
        self.client = client
        self.keys = keys
        self._apply = client.register_script(APPLY_LUA)
        self._fenced_apply = client.register_script(FENCED_APPLY_LUA)
        self._advance = client.register_script(ADVANCE_LUA)
        self._fenced_advance = client.register_script(FENCED_ADVANCE_LUA)
        # The shards' writes of one read, and the standings reads of one turn: one round trip.
        self._writes = ScriptCoalescer.of(client)
        self.leases: dict[int, ShardLease] = {}
        # Checkpoints this process wrote, or read with no write of its own around, under a held
        # lease: no other writer can move them (a former owner's writes are fenced), so
        # `checkpoint` need not ask Redis before each batch (docs/decisions/0012-hot-reads-and-off-loop-replays.md: one round trip less per
        # apply). Dropped with the lease, before each write, and on a stale batch.
        self._written: dict[int, str] = {}
        # per shard: writes sent (`_calls`) and not answered yet (`_pending`), so a read that
        # a write may have overtaken is not kept
        self._calls: dict[int, int] = {}
        self._pending: dict[int, int] = {}
        # read-only: the projector's user may only read the feeds (`readonly` module)
        self._lag = ReadOnlyScript(client, _LAG_LUA)
        self._get = client.register_script(_GET_LUA)
        self._release = client.register_script(_RELEASE_LUA)
        self._standings = client.register_script(_STANDINGS_LUA)

    async def prepare(self) -> None:
        """Load the fenced scripts (a refused script fails here, at start-up)."""
        await self.client.script_load(FENCED_APPLY_LUA)
        await self.client.script_load(FENCED_ADVANCE_LUA)

    def hold_lease(self, lease: ShardLease) -> None:
        """Fence the writes of `lease.shard` with its token from now on."""
        self._written.pop(lease.shard, None)
        self.leases[lease.shard] = lease

    def drop_lease(self, shard: int) -> None:
        """Forget the shard's lease (its writes are unfenced again; the loop stops reading it)."""
        self._written.pop(shard, None)
        self.leases.pop(shard, None)

    async def checkpoint(self, shard: int) -> str:
        """The shard's stored checkpoint, `START_ID` when none (the one this process last wrote
        or read under the shard's held lease, without a round trip). A read is kept when the
        lease was held all along and no write of the shard was sent or unanswered meanwhile:
        the projector's first batch of each shard then asks no `GET` (at a catch-up's start,
        sixteen at once, each a new pooled connection: about 6% of a 48k-event catch-up's CPU,
        docs/profiles/projector-round-trips.md)."""
        if shard in self._written:
            return self._written[shard]
        lease, calls = self.leases.get(shard), self._calls.get(shard, 0)
        idle = not self._pending.get(shard)
        stored: Any = await self.client.get(self.keys.checkpoint(shard))
        checkpoint: str = stored.decode() if stored else START_ID
        if idle and not self._pending.get(shard) and self._calls.get(shard, 0) == calls:
            self._wrote(shard, checkpoint, lease)
        return checkpoint

    async def heads(self, game_ids: Sequence[str]) -> list[ProjectionHead]:
        """Stored seq and held seq per game: one HMGET each, all in one round trip; on a
        single node sent with the other calls of this event-loop turn (`ScriptCoalescer`: the
        shards' applies of one read ask their heads in the same turn, docs/profiles/hot-path-profiles.md)."""
        if not game_ids:
            return []
        fields = ("seq", "held", "held_reason", "live")
        if is_cluster(self.client):
            async with self.client.pipeline(transaction=False) as pipe:
                for game_id in game_ids:
                    pipe.hmget(self.keys.projection(game_id), list(fields))
                replies = await pipe.execute()
        else:
            command = self._writes.command
            replies = await asyncio.gather(
                *(command("HMGET", self.keys.projection(g), *fields) for g in game_ids)
            )
        return [_head(reply) for reply in replies]

    async def advance(self, shard: int, last_feed_id: str, reached: Mapping[str, int]) -> Advanced:
        """One `ADVANCE_LUA` call (fenced when the shard's lease is held; on a single node sent
        with the other calls of this event-loop turn): for a batch the appends projected, the
        heads check and the checkpoint in one round trip instead of an HMGET and then a write.
        Raises: as `write`."""
        games = list(reached)
        keys = [self.keys.checkpoint(shard), *(self.keys.projection(g) for g in games)]
        args: list[str | int | bytes] = [last_feed_id, len(games), *reached.values()]
        lease = self.leases.get(shard)
        out = await self._fenced_call(shard, self._advance, self._fenced_advance, keys, args)
        if out == -1:
            return Advanced(False, stale=True)
        if out == 1:
            self._wrote(shard, last_feed_id, lease)
            return Advanced(True)
        return Advanced(False, heads=dict(zip(games, map(_head, out), strict=True)))

    async def _fenced_call(
        self,
        shard: int,
        plain: AsyncScript,
        fenced: AsyncScript,
        keys: list[str],
        args: list[str | int | bytes],
    ) -> Any:
        """Call `fenced` (lease and fence keys and the token appended) when the shard's lease
        is held, else `plain`, sent with this turn's calls. Raises: `LeaseLost`,
        `StoreUnavailable`; the written checkpoint is forgotten until the call answers."""
        lease = self.leases.get(shard)
        self._written.pop(shard, None)  # a failed or unanswered write: ask Redis again
        self._calls[shard] = self._calls.get(shard, 0) + 1
        self._pending[shard] = self._pending.get(shard, 0) + 1
        try:
            with unavailable():
                if lease is None:
                    return await self._writes.call(plain, keys, args)
                keys += [lease_key(self.keys, lease.shard), fence_key(self.keys, lease.shard)]
                try:
                    return await self._writes.call(fenced, keys, [*args, lease.token])
                except ResponseError as error:
                    raise_if_fenced(error, lease.shard)
                    raise
        finally:
            self._pending[shard] -= 1

    def _wrote(self, shard: int, checkpoint: str, lease: ShardLease | None) -> None:
        """Keep `checkpoint` as the shard's when written under `lease`, still held (read by
        `checkpoint` without a round trip)."""
        if checkpoint and lease is not None and self.leases.get(shard) is lease:
            self._written[shard] = checkpoint

    async def write(self, batch: ProjectionBatch, changes_maxlen: int) -> WriteOutcome:
        """One `APPLY_LUA` call for the whole batch (fenced when the shard's lease is held),
        sent with the other writes of this event-loop turn (`coalesce.ScriptCoalescer`).

        Raises: `LeaseLost` when the lease is no longer this process's (nothing written);
        `StoreUnavailable` for Redis's transient faults (written or not: the checkpoint says).
        """
        shard = batch.shard
        keys = [self.keys.checkpoint(shard), self.keys.changes(shard), self.keys.held(shard)]
        args: list[str | int | bytes] = [batch.last_feed_id, changes_maxlen, batch.updated_at]
        args.append(len(batch.ops))
        for op in batch.ops:
            keys.append(self.keys.projection(op.game_id))
            args += [op.kind, op.game_id, op.base_seq, op.seq, op.status, op.game]
            args.append(op.reason_json if op.kind == "hold" else op.standings_json)
            args.append(op.view_json)
        lease = self.leases.get(shard)
        out = await self._fenced_call(shard, self._apply, self._fenced_apply, keys, args)
        if out == -1:
            return WriteOutcome(stale=True)
        self._wrote(shard, batch.last_feed_id, lease)
        return WriteOutcome(False, frozenset(batch.ops[i - 1].game_id for i in out))

    async def get(self, game_id: str) -> StoredProjection | None:
        """The projection and its shard checkpoint, one command."""
        ckpt_key = self.keys.checkpoint(shard_of(game_id, self.keys.shards))
        flat, ckpt = await self._get(keys=[self.keys.projection(game_id), ckpt_key])
        raw = {flat[i].decode(): flat[i + 1].decode() for i in range(0, len(flat), 2)}
        return _stored(raw, ckpt.decode() if ckpt else None)

    async def standings(self, game_id: str) -> StoredStandings | None:
        """The view (else the standings) bytes, `updated_at` and shard checkpoint, one
        command, sent with the other calls of this event-loop turn (`coalesce.ScriptCoalescer`:
        a query process starts many standings GETs in one turn, docs/decisions/0012-hot-reads-and-off-loop-replays.md)."""
        ckpt_key = self.keys.checkpoint(shard_of(game_id, self.keys.shards))
        keys = [self.keys.projection(game_id), ckpt_key]
        got = await self._writes.call(self._standings, keys, ())
        view, updated, ckpt = got[0], got[1], got[2]  # Lua false arrives as None
        data = got[3] if len(got) > 3 else None
        if not (view or data):
            return None
        return StoredStandings(
            data, updated.decode() if updated else None, ckpt.decode() if ckpt else None, view
        )

    async def get_many(self, game_ids: Sequence[str]) -> list[StoredProjection | None]:
        """Projections of several games, one pipeline (checkpoints left None)."""
        if not game_ids:
            return []
        async with self.client.pipeline(transaction=False) as pipe:
            for game_id in game_ids:
                pipe.hgetall(self.keys.projection(game_id))
            replies = await pipe.execute()
        return [_stored({k.decode(): v.decode() for k, v in raw.items()}, None) for raw in replies]

    async def fields(self, game_ids: Sequence[str]) -> list[dict[str, str]]:
        """Each game's projection HASH decoded ({} when none): one pipeline (split per node on
        a cluster). Raises: StoreUnavailable."""
        if not game_ids:
            return []
        with unavailable():
            async with self.client.pipeline(transaction=False) as pipe:
                for game_id in game_ids:
                    pipe.hgetall(self.keys.projection(game_id))
                replies = await pipe.execute()
        return [{k.decode(): v.decode() for k, v in raw.items()} for raw in replies]

    async def lag(self, cap: int) -> int:
        """Unapplied feed entries over all shards, each counted to `cap + 1` at most (one
        script call per shard, fanned out per node on a cluster)."""
        calls = [
            ([self.keys.feed(shard), self.keys.checkpoint(shard)], [cap + 1])
            for shard in range(self.keys.shards)
        ]
        counts = await script_calls(self.client, self._lag, calls)
        for count in counts:
            if isinstance(count, Exception):
                raise count
        return sum(int(c) for c in counts)

    async def held(self, limit: int) -> tuple[int, list[HeldGame]]:
        """Held games over all shards: one pipeline of HLEN, then HSCANs of the shards that
        hold any until `limit` are listed (a pipeline is split per node on a cluster)."""
        async with self.client.pipeline(transaction=False) as pipe:
            for shard in range(self.keys.shards):
                pipe.hlen(self.keys.held(shard))
            counts = [int(n) for n in await pipe.execute()]
        out: list[HeldGame] = []
        for shard, count in enumerate(counts):
            if count and len(out) < limit:
                reply: Any = await self.client.hscan(self.keys.held(shard), 0, count=limit)
                fields: dict[bytes, bytes] = reply[1]
                out += [held_game(k.decode(), v) for k, v in fields.items()]
        return sum(counts), sorted(out, key=lambda h: h.game_id)[:limit]

    async def release(self, game_id: str, held_seq: int, seq: int, data: bytes) -> bool:
        """The release script (see `Projections.release`), one slot."""
        shard = shard_of(game_id, self.keys.shards)
        keys = [self.keys.projection(game_id), self.keys.held(shard), self.keys.feed(shard)]
        return bool(await self._release(keys=keys, args=[game_id, held_seq, seq, data]))
