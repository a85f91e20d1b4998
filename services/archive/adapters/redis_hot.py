"""`HotGames` on Redis: one Lua call per snapshot, removal or restore of a game's keys (all in
its shard's slot `{sK}`, so one atomic step on a single node and on Redis Cluster).

Keys (`services.adapters.redis.keys`): the game stream, the event-id HASH, the token digest, the shard's game
index ZSET (the game's member), the projection HASH, the shard's held-games HASH (the game's
field) and the legacy ledger LIST. The shard feed is not touched: its entries of the game are
trimmed by the projector like any other (`SCORELEDGER_FEED_KEEP_S`).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator
from typing import Any

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.keys import PREFIX, Keys, shard_of
from services.archive.ports.cold import ArchivedProjection, SealedGame
from services.archive.ports.hot import HotGame

# KEYS: 1 stream, 2 digest, 3 index, 4 projection, 5 held HASH, 6 names; ARGV: 1 game id.
_SNAPSHOT_LUA = """
local entries = redis.call('XRANGE', KEYS[1], '-', '+')
if #entries == 0 then return false end
return {entries, redis.call('GET', KEYS[2]), redis.call('ZSCORE', KEYS[3], ARGV[1]) or '0',
        redis.call('HGETALL', KEYS[4]), redis.call('HEXISTS', KEYS[5], ARGV[1]),
        redis.call('HGETALL', KEYS[6])}
"""

# KEYS: 1 stream, 2 ids, 3 digest, 4 index, 5 projection, 6 held HASH, 7 ledger, 8 names;
# ARGV: 1 game id, 2 version, 3 the last event's id, 4 the names as JSON. Only if the game
# is unchanged (the same version, last event and names).
_REMOVE_LUA = """
local version = redis.call('XLEN', KEYS[1])
if version ~= tonumber(ARGV[2]) or version == 0 then return 0 end
local last = redis.call('XRANGE', KEYS[1], version .. '-1', version .. '-1')
local f = last[1] and last[1][2] or {}
local head = ''
for j = 1, #f - 1, 2 do if f[j] == 'id' then head = f[j + 1] end end
if head ~= ARGV[3] then return 0 end
local kept, n = cjson.decode(ARGV[4]), 0
local now = redis.call('HGETALL', KEYS[8])
for j = 1, #now, 2 do
  if kept[now[j]] ~= now[j + 1] then return 0 end
  n = n + 1
end
for _ in pairs(kept) do n = n - 1 end
if n ~= 0 then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[5], KEYS[7], KEYS[8])
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('HDEL', KEYS[6], ARGV[1])
return 1
"""

# KEYS: 1 stream, 2 projection, 3 ledger, 4 held HASH; ARGV: 1 game id. Only while the game
# has no events in Redis (a write that restored it meanwhile keeps its projection).
_DROP_STRAY_LUA = """
if redis.call('XLEN', KEYS[1]) > 0 then return 0 end
local n = redis.call('DEL', KEYS[2], KEYS[3]) + redis.call('HDEL', KEYS[4], ARGV[1])
if n > 0 then return 1 end
return 0
"""

_PROJECTIONS = f"{PREFIX}:proj:".encode()
_SCAN_PAGE = 1000


# KEYS: 1 stream, 2 ids, 3 digest, 4 index, 5 shard feed, 6 names; ARGV: 1 game id, 2 digest
# ('' none), 3 index score, 4 names as JSON, then per event: id, seq, type, data. Only if the
# stream is empty. The archived names replace any kept since (a creation sent again keeps its
# names before its append restores the game: the archive's, forgotten ones too, win). The last
# event is fed again, so the projector refolds the game from its log (as `release` does):
# ingest, which restores, writes no projection here (the projection left with the game).
_RESTORE_LUA = """
if redis.call('XLEN', KEYS[1]) > 0 then return 0 end
if ARGV[2] ~= '' then redis.call('SET', KEYS[3], ARGV[2]) end
redis.call('ZADD', KEYS[4], 'NX', ARGV[3], ARGV[1])
for player, name in pairs(cjson.decode(ARGV[4])) do redis.call('HSET', KEYS[6], player, name) end
local last = #ARGV - 3
for i = 5, last, 4 do
  local seq = ARGV[i + 1]
  redis.call('XADD', KEYS[1], seq .. '-1', 'seq', seq, 'id', ARGV[i], 'type', ARGV[i + 2],
    'data', ARGV[i + 3])
  redis.call('HSET', KEYS[2], ARGV[i], seq)
end
redis.call('XADD', KEYS[5], '*', 'game', ARGV[1], 'seq', ARGV[last + 1], 'data', ARGV[last + 3])
return 1
"""


# KEYS: 1 the tier lock; ARGV: 1 owner, 2 ttl ms. Taken if free or already the owner's.
_LOCK_LUA = """
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""

# KEYS: 1 the tier lock; ARGV: 1 owner. Deleted only if the owner's.
_UNLOCK_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
"""


def _projection(raw: dict[bytes, bytes]) -> ArchivedProjection | None:
    """The archived form of a projection HASH (None: no standings stored)."""
    fields = {k.decode(): v for k, v in raw.items()}
    if not fields.get("standings"):
        return None
    text = {k: v.decode() for k, v in fields.items() if k != "view"}
    view = fields.get("view", b"") if text.get("view_seq") == text.get("seq") else b""
    return ArchivedProjection(
        seq=int(text.get("seq", "0")),
        status=text.get("status", "in_progress"),
        game=text.get("game", ""),
        standings_json=text["standings"],
        view_json=view,
        updated_at=text.get("updated_at"),
        checkpoint=None,
    )


class RedisHotGames:
    """`ports.hot.HotGames` on `client` (no `decode_responses`)."""

    def __init__(self, client: RedisClient, keys: Keys) -> None:
        self.client = client
        self.keys = keys
        self._snapshot = client.register_script(_SNAPSHOT_LUA)
        self._remove = client.register_script(_REMOVE_LUA)
        self._restore = client.register_script(_RESTORE_LUA)
        self._lock = client.register_script(_LOCK_LUA)
        self._unlock = client.register_script(_UNLOCK_LUA)
        self._drop_stray = client.register_script(_DROP_STRAY_LUA)

    async def lock(self, game_id: str, owner: str, ttl_ms: int) -> bool:
        """See `HotGames.lock` (one Lua call)."""
        keys = [self.keys.tier_lock(game_id)]
        return bool(await self._lock(keys=keys, args=[owner, ttl_ms]))

    async def unlock(self, game_id: str, owner: str) -> None:
        """See `HotGames.unlock` (one Lua call)."""
        await self._unlock(keys=[self.keys.tier_lock(game_id)], args=[owner])

    async def snapshot(self, game_id: str) -> HotGame | None:
        """See `HotGames.snapshot` (one Lua call; the projection's checkpoint is the shard's,
        read after it by a plain GET: the archiver's ACL user may only read checkpoints, and a
        script's keys count as written)."""
        k, shard = self.keys, shard_of(game_id, self.keys.shards)
        keys = [
            k.game_stream(game_id),
            k.write_token(game_id),
            k.game_index(shard),
            k.projection(game_id),
            k.held(shard),
            k.names(game_id),
        ]
        reply: Any = await self._snapshot(keys=keys, args=[game_id])
        if not reply:
            return None
        entries, digest, score, proj_raw, held, names_raw = reply
        checkpoint: Any = await self.client.get(k.checkpoint(shard))
        fields = [dict(zip(f[::2], f[1::2], strict=True)) for _, f in entries]
        projection = _projection(dict(zip(proj_raw[::2], proj_raw[1::2], strict=True)))
        if projection is not None and checkpoint is not None:
            projection = dataclasses.replace(projection, checkpoint=checkpoint.decode())
        return HotGame(
            events=tuple(f[b"data"] for f in fields),
            head_event_id=fields[-1][b"id"].decode(),
            token_digest=digest.decode() if digest else None,
            index_score=int(float(score)),
            projection=projection,
            held=bool(held),
            names={
                k.decode(): v.decode() for k, v in zip(names_raw[::2], names_raw[1::2], strict=True)
            },
        )

    async def remove(self, game_id: str, snap: HotGame) -> bool:
        """See `HotGames.remove` (one Lua call)."""
        k, shard = self.keys, shard_of(game_id, self.keys.shards)
        keys = [
            k.game_stream(game_id),
            k.event_ids(game_id),
            k.write_token(game_id),
            k.game_index(shard),
            k.projection(game_id),
            k.held(shard),
            k.ledger(game_id),
            k.names(game_id),
        ]
        names = json.dumps(snap.names)
        args: list[str | int] = [game_id, snap.version, snap.head_event_id, names]
        return bool(await self._remove(keys=keys, args=args))

    async def restore(self, game: SealedGame) -> bool:
        """See `HotGames.restore` (one Lua call with the whole log and a feed entry of its
        last event)."""
        game_id = game.entry.game_id
        k, shard = self.keys, shard_of(game_id, self.keys.shards)
        args: list[str | bytes | int] = [game_id, game.token_digest or "", game.index_score]
        args.append(json.dumps(game.names) if game.names else "{}")
        for seq, data in enumerate(game.events, start=1):
            event = json.loads(data)
            if not isinstance(event, dict) or "event_id" not in event or "type" not in event:
                raise ValueError(f"events: seq {seq} of {game_id} is not an envelope")
            args += [str(event["event_id"]), seq, str(event["type"]), data]
        keys = [
            k.game_stream(game_id),
            k.event_ids(game_id),
            k.write_token(game_id),
            k.game_index(shard),
            k.feed(shard),
            k.names(game_id),
        ]
        return bool(await self._restore(keys=keys, args=args))

    async def stray_projections(self) -> AsyncIterator[str]:
        """See `HotGames.stray_projections`: SCAN for projection keys (every primary of a
        cluster), then the length of each one's game stream, a page of 1,000 at a time."""
        page: list[str] = []
        async for key in self.client.scan_iter(match=_PROJECTIONS + b"*", count=_SCAN_PAGE):
            _, sep, game = bytes(key)[len(_PROJECTIONS) :].partition(b"}:")
            if sep:
                page.append(game.decode())
            if len(page) >= _SCAN_PAGE:
                for game_id in await self._without_events(page):
                    yield game_id
                page = []
        for game_id in await self._without_events(page):
            yield game_id

    async def _without_events(self, game_ids: list[str]) -> list[str]:
        if not game_ids:
            return []
        pipe = self.client.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.xlen(self.keys.game_stream(game_id))
        lengths = await pipe.execute()
        return [g for g, n in zip(game_ids, lengths, strict=True) if not n]

    async def drop_stray(self, game_id: str) -> bool:
        """See `HotGames.drop_stray` (one Lua call)."""
        k = self.keys
        keys = [
            k.game_stream(game_id),
            k.projection(game_id),
            k.ledger(game_id),
            k.held(shard_of(game_id, k.shards)),
        ]
        return bool(await self._drop_stray(keys=keys, args=[game_id]))
