"""`PlayerNames` on Redis: one HASH per game (`Keys.names`, in the game's shard slot), and a
Lua call that forgets a player, replaces their name in the game's projection, feeds the game's
last event again and adds a change notice, at once (every key in the game's slot)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from contracts.names import side_field_player
from services.adapters.redis.coalesce import ScriptCoalescer
from services.adapters.redis.connect import RedisClient, is_cluster
from services.adapters.redis.keys import Keys, shard_of
from services.adapters.redis.lua_replace import replaced_lua
from services.adapters.redis.rewrite import StreamRewriter
from services.ports.names import Scrub

# KEYS: 1 names HASH, 2 projection HASH, 3 legacy ledger LIST, 4 game stream, 5 shard feed,
# 6 shard changes; ARGV: 1 player id, 2 game id, 3 changes MAXLEN, 4 the rendered projection's
# seq ('': none), 5 its standings, 6 its view, then (old, new) pairs. The rendered projection
# is stored only over a projection at its seq (else the projector's next write renders it),
# and the (old, new) pairs are not applied to it (another player may have the same name);
# returns 1 when it was stored.
# Plain (not pattern) replacement: a name may hold Lua pattern characters. The game's last
# event is fed again (the projector drops its cached fold of the game, which holds the name,
# and refolds it from the log) and a change notice tells live push to render it again.
_FORGET_LUA = (
    replaced_lua(7)
    + """
redis.call('HSET', KEYS[1], ARGV[1], '')
local fresh = false  -- rendered: stored as is (a replacement could hit another's same name)
local stored = 0
if ARGV[4] ~= '' and redis.call('HGET', KEYS[2], 'seq') == ARGV[4] then
  redis.call('HSET', KEYS[2], 'standings', ARGV[5], 'view', ARGV[6], 'view_seq', ARGV[4])
  fresh = true
  stored = 1
end
local fields = redis.call('HGETALL', KEYS[2])
for i = 1, #fields, 2 do
  if not (fresh and (fields[i] == 'standings' or fields[i] == 'view')) then
    local new = replaced(fields[i + 1])
    if new ~= fields[i + 1] then redis.call('HSET', KEYS[2], fields[i], new) end
  end
end
local items = redis.call('LRANGE', KEYS[3], 0, -1)
for i = 1, #items do
  local new = replaced(items[i])
  if new ~= items[i] then redis.call('LSET', KEYS[3], i - 1, new) end
end
local last = redis.call('XREVRANGE', KEYS[4], '+', '-', 'COUNT', 1)[1]
if last then
  local f, seq, data = last[2], nil, nil
  for j = 1, #f - 1, 2 do
    if f[j] == 'seq' then seq = f[j + 1] elseif f[j] == 'data' then data = f[j + 1] end
  end
  redis.call('XADD', KEYS[5], '*', 'game', ARGV[2], 'seq', seq, 'data', data)
end
local projected = redis.call('HGET', KEYS[2], 'seq')
if projected and not fresh then  -- not rendered here: the projector folds it again
  redis.call('HSET', KEYS[2], 'live', '0')
end
if projected then
  redis.call('XADD', KEYS[6], 'MAXLEN', '~', ARGV[3], '*', 'game', ARGV[2], 'seq', projected)
end
return stored
"""
)


class RedisPlayerNames:
    """`ports.names.PlayerNames` on `client` (no `decode_responses`)."""

    def __init__(self, client: RedisClient, keys: Keys, changes_maxlen: int = 100_000) -> None:
        self.client = client
        self.keys = keys
        self.changes_maxlen = changes_maxlen
        self._forget = client.register_script(_FORGET_LUA)
        self._rewriter = StreamRewriter(client)

    async def names(self, game_id: str) -> dict[str, str]:
        """See `PlayerNames.names` (HGETALL)."""
        raw: Any = await self.client.hgetall(self.keys.names(game_id))
        return {k.decode(): v.decode() for k, v in raw.items()}

    async def names_many(self, game_ids: Sequence[str]) -> list[dict[str, str]]:
        """See `PlayerNames.names_many`: one HGETALL each, all in one round trip; on a single
        node sent with the other calls of this event-loop turn (`ScriptCoalescer`: the
        projector's shards ask in the same turn), on a cluster one pipeline split per node."""
        if not game_ids:
            return []
        replies: list[Any]
        if is_cluster(self.client):
            async with self.client.pipeline(transaction=False) as pipe:
                for game_id in game_ids:
                    pipe.hgetall(self.keys.names(game_id))
                replies = await pipe.execute()
        else:
            command = ScriptCoalescer.of(self.client).command
            replies = await asyncio.gather(
                *(command("HGETALL", self.keys.names(g)) for g in game_ids)
            )
        return [{k.decode(): v.decode() for k, v in raw.items()} for raw in replies]

    async def keep(self, game_id: str, names: Mapping[str, str]) -> None:
        """See `PlayerNames.keep` (HSETNX per player, one pipeline)."""
        if not names:
            return
        key = self.keys.names(game_id)
        async with self.client.pipeline(transaction=False) as pipe:
            for player_id, name in names.items():
                pipe.hsetnx(key, player_id, name)
            await pipe.execute()

    async def forget(self, game_id: str, player_id: str, scrub: Scrub) -> bool:
        """See `PlayerNames.forget` (one Lua call)."""
        k, shard = self.keys, shard_of(game_id, self.keys.shards)
        keys = [k.names(game_id), k.projection(game_id), k.ledger(game_id)]
        keys += [k.game_stream(game_id), k.feed(shard), k.changes(shard)]
        args: list[str | int | bytes] = [player_id, game_id, self.changes_maxlen]
        rendered = scrub.rendered
        if rendered is None:
            args += ["", "", ""]
        else:
            args += [rendered.seq, rendered.standings_json, rendered.view_json]
        for old, new in scrub.replacements:
            if old:
                args += [old, new]
        return bool(await self._forget(keys=keys, args=args))

    async def rewrite_start(self, game_id: str, data: bytes) -> bool:
        """See `PlayerNames.rewrite_start` (`StreamRewriter`: one Lua call)."""
        return bool(await self._rewriter.rewrite(self.keys.game_stream(game_id), {1: data}))


# KEYS: 1 the names HASH. ARGV: (field, player id, name) triples. Stores each field not set
# yet whose player is not forgotten; returns the fields stored.
_KEEP_SIDE_LUA = """
local out = {}
for i = 1, #ARGV - 2, 3 do
  if redis.call('HEXISTS', KEYS[1], '!' .. ARGV[i + 1]) == 0
      and redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 2]) == 1 then
    out[#out + 1] = ARGV[i]
  end
end
return out
"""

# KEYS: 1 the names HASH. ARGV: 1 player id, 2 pseudonym. Every name kept for the player
# (`<event_id>/<player id>`) and their forgotten field set to the pseudonym; returns how many
# fields changed.
_FORGET_SIDE_LUA = """
local suffix, changed = '/' .. ARGV[1], 0
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  local f = fields[i]
  if #f > #suffix and string.sub(f, -#suffix) == suffix and fields[i + 1] ~= ARGV[2] then
    redis.call('HSET', KEYS[1], f, ARGV[2])
    changed = changed + 1
  end
end
if redis.call('HGET', KEYS[1], '!' .. ARGV[1]) ~= ARGV[2] then
  redis.call('HSET', KEYS[1], '!' .. ARGV[1], ARGV[2])
  changed = changed + 1
end
return changed
"""


class RedisSideNames:
    """`ports.names.SideNames` of one side-log kind on `client`: `prefix` as the side log's
    (`""` tournaments, `"@league/"` leagues)."""

    def __init__(self, client: RedisClient, keys: Keys, prefix: str = "") -> None:
        self.client = client
        self.keys = keys
        self.prefix = prefix
        self._rewriter = StreamRewriter(client)
        self._keep = client.register_script(_KEEP_SIDE_LUA)
        self._forget = client.register_script(_FORGET_SIDE_LUA)

    def _key(self, stream_id: str) -> str:
        return self.keys.side_names(self.prefix + stream_id)

    async def names(self, stream_id: str) -> dict[str, str]:
        """See `SideNames.names` (HGETALL)."""
        raw: Any = await self.client.hgetall(self._key(stream_id))
        return {k.decode(): v.decode() for k, v in raw.items()}

    async def keep(self, stream_id: str, names: Mapping[str, str]) -> list[str]:
        """See `SideNames.keep` (SADD to the index first, so a kept name is always found;
        then one Lua call on the stream's HASH)."""
        if not names:
            return []
        await self.client.sadd(self.keys.side_names_index(self.prefix), stream_id)
        args: list[str] = []
        for field, name in names.items():
            args += [field, side_field_player(field), name]
        stored: Any = await self._keep(keys=[self._key(stream_id)], args=args)
        return [bytes(f).decode() for f in stored]

    async def drop(self, stream_id: str, fields: Sequence[str]) -> None:
        """See `SideNames.drop` (HDEL)."""
        if fields:
            await self.client.hdel(self._key(stream_id), *fields)

    async def forget(self, stream_id: str, player_id: str, pseudonym: str) -> bool:
        """See `SideNames.forget` (one Lua call)."""
        key = self._key(stream_id)
        return bool(await self._forget(keys=[key], args=[player_id, pseudonym]))

    async def streams(self) -> list[str]:
        """See `SideNames.streams` (SMEMBERS of the index)."""
        raw: Any = await self.client.smembers(self.keys.side_names_index(self.prefix))
        return sorted(bytes(m).decode() for m in raw)

    async def count(self, stream_id: str) -> int:
        """See `SideNames.count` (HLEN)."""
        return int(await self.client.hlen(self._key(stream_id)))

    async def rewrite(self, stream_id: str, data_by_seq: Mapping[int, bytes]) -> int:
        """See `SideNames.rewrite` (`StreamRewriter`: one Lua call)."""
        key = self.keys.tournament_stream(self.prefix + stream_id)
        return await self._rewriter.rewrite(key, data_by_seq)
