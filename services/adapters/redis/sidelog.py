"""A side log on Redis Streams (`services.ports.sidelog.SideLog`): per stream a never-trimmed
stream (entry id `<seq>-1`, fields `seq`, `id`, `type`, `data`), an event-id HASH and the
organiser token's digest, all in one slot (the stream id is the hash tag; the tournament keys of
`Keys`, the id behind a kind's `prefix`). One Lua call per append checks the token, the
expected version of every event and the event ids before it writes anything (the games' append
script without the shard feed and game index: side streams are folded on read). A call that
writes no event (every one a duplicate) sets the first id's seq again, to the value it holds,
so that a `WAIT` after it (durable acknowledgements, `durable.DurableWait`) covers the original
write too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Generic

from redis.exceptions import ResponseError

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.durable import DurableWait
from services.adapters.redis.keys import Keys
from services.ports.errors import CredentialMismatch, VersionConflict
from services.ports.eventlog import AppendedEvent, AppendResult
from services.ports.sidelog import E, SideStream

APPEND_SIDE_LUA = """
local n = (#ARGV - 1) / 4
local version = redis.call('XLEN', KEYS[1])
if ARGV[1] ~= '' then
  local stored = redis.call('GET', KEYS[3])
  if (stored and stored ~= ARGV[1]) or (not stored and version > 0) then
    return redis.error_reply('WRONGTOKEN the organiser token does not match the stream')
  end
end
local next_version = version
local seen = {}
local plan = {}
for i = 0, n - 1 do
  local eid = ARGV[2 + i * 4]
  local seq = tonumber(ARGV[3 + i * 4])
  local original = seen[eid] or redis.call('HGET', KEYS[2], eid)
  if original then
    plan[i + 1] = {dup = true, seq = tonumber(original)}
  else
    if seq - 1 ~= next_version then
      return redis.error_reply('WRONGVERSION expected ' .. (seq - 1) .. ' actual ' .. next_version)
    end
    next_version = seq
    seen[eid] = seq
    plan[i + 1] = {dup = false, seq = seq}
  end
end
local out = {next_version}
for i = 0, n - 1 do
  local p = plan[i + 1]
  if p.dup then
    table.insert(out, p.seq); table.insert(out, 1)
  else
    local eid, etype, data = ARGV[2 + i * 4], ARGV[4 + i * 4], ARGV[5 + i * 4]
    local sseq = tostring(p.seq)
    redis.call('XADD', KEYS[1], sseq .. '-1', 'seq', sseq, 'id', eid, 'type', etype, 'data', data)
    redis.call('HSET', KEYS[2], eid, sseq)
    if p.seq == 1 and ARGV[1] ~= '' then redis.call('SET', KEYS[3], ARGV[1]) end
    table.insert(out, p.seq); table.insert(out, 0)
  end
end
if next_version == version and n > 0 then
  redis.call('HSET', KEYS[2], ARGV[2], tostring(plan[1].seq))
end
return out
"""
"""KEYS: 1 the stream, 2 its event-id HASH, 3 its token digest STRING. ARGV: 1 the digest to
check and store ("" unchecked), then per event 4 values: event_id, seq, type, data. Returns
version, then per event seq and dup (0/1); errors `WRONGTOKEN`, `WRONGVERSION expected X actual
Y`."""
_WRONGVERSION = re.compile(r"WRONGVERSION expected (-?\d+) actual (\d+)")


class RedisSideLog(Generic[E]):
    """The side streams of kind `stream` on Redis (a client created without
    `decode_responses`), under the tournament keys of `prefix + stream id`. `replicas`,
    `wait_ms` (`SCORELEDGER_APPEND_REPLICAS`): as `RedisEventLog`'s, an append (a duplicate
    too) returns once that many replicas hold it, else raises `ReplicasUnconfirmed`."""

    def __init__(
        self,
        client: RedisClient,
        keys: Keys,
        stream: SideStream[E],
        prefix: str = "",
        replicas: int = 0,
        wait_ms: int = 1000,
    ) -> None:
        self.client = client
        self.keys = keys
        self.stream = stream
        self.prefix = prefix
        self.durable = DurableWait(client, replicas, wait_ms)
        self._append = client.register_script(APPEND_SIDE_LUA)

    async def append(
        self, stream_id: str, events: Sequence[E], credential: str | None = None
    ) -> AppendResult:
        """See `SideLog.append` (one Lua call, all or nothing, then `WAIT` with `replicas`).
        Raises also ReplicasUnconfirmed (stored, too few replicas confirmed)."""
        self.stream.check(stream_id, events)
        now = datetime.now(UTC)
        args: list[str | int] = [credential or ""]
        for event in events:
            data = event.with_recorded_at(now).model_dump_json()
            args += [str(event.event_id), event.seq, event.type, data]
        key = self.prefix + stream_id
        keys = [
            self.keys.tournament_stream(key),
            self.keys.tournament_ids(key),
            self.keys.tournament_token(key),
        ]
        try:
            out: Any = await self.durable.call(self._append, keys, args)
        except ResponseError as error:
            if "WRONGTOKEN" in str(error):
                raise CredentialMismatch(stream_id) from None
            match = _WRONGVERSION.search(str(error))
            if match is None:
                raise
            raise VersionConflict(int(match[1]), int(match[2])) from None
        positions = tuple(
            AppendedEvent(str(event.event_id), int(out[1 + 2 * i]), None, bool(out[2 + 2 * i]))
            for i, event in enumerate(events)
        )
        if any(p.seq == 1 and not p.duplicate for p in positions):
            # Outside the script: the index is one key for every stream, in another cluster
            # slot. A crash between the two leaves the stream readable but unlisted.
            index = self.keys.side_index(self.prefix)
            await self.client.zadd(index, {stream_id: int(now.timestamp() * 1000)}, nx=True)
        return AppendResult(positions, int(out[0]))

    async def digest(self, stream_id: str) -> str | None:
        """GET of the stream's token digest key."""
        stored: Any = await self.client.get(self.keys.tournament_token(self.prefix + stream_id))
        return None if stored is None else bytes(stored).decode()

    async def version(self, stream_id: str) -> int:
        """XLEN of the stream."""
        return int(await self.client.xlen(self.keys.tournament_stream(self.prefix + stream_id)))

    async def read(self, stream_id: str, from_seq: int = 1, to_seq: int | None = None) -> list[E]:
        """Events `from_seq..to_seq` (inclusive), parsed."""
        end = f"{to_seq}-1" if to_seq is not None else "+"
        entries: Any = await self.client.xrange(
            self.keys.tournament_stream(self.prefix + stream_id), f"{from_seq}-1", end
        )
        return [self.stream.parse_json(fields[b"data"]) for _, fields in entries]

    async def streams(self, limit: int) -> list[str]:
        """See `SideLog.streams` (ZREVRANGE of the kind's index)."""
        ids: Any = await self.client.zrevrange(self.keys.side_index(self.prefix), 0, limit - 1)
        return [bytes(i).decode() for i in ids]
