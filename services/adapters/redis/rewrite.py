"""Rewrite stored events into today's stored form: a log written with player names inline
(before names left the logs, `contracts.names`) has its named events' `data` replaced by the
same events with the names taken out, so that a forgotten name is in no Redis value.

A Redis stream entry cannot be changed in place, and an entry id below the stream's last
cannot be added again; so one Lua call copies the whole stream to a scratch key in the same
slot, every entry with its id and fields, the given entries' `data` replaced, and renames the
copy over the stream: atomic, the version (XLEN) and every entry id unchanged. Source:
Greg Young, "Versioning in an Event Sourced System", copy-and-replace.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.adapters.redis.connect import RedisClient

# KEYS: 1 the stream, 2 a scratch key in its slot. ARGV: (seq, data) pairs. Returns the number
# of entries whose data changed (0: nothing written, the scratch key left absent).
_REWRITE_LUA = """
local new = {}
for i = 1, #ARGV - 1, 2 do new[ARGV[i]] = ARGV[i + 1] end
local entries = redis.call('XRANGE', KEYS[1], '-', '+')
redis.call('DEL', KEYS[2])
local changed = 0
for _, e in ipairs(entries) do
  local f, seq = e[2], nil
  for j = 1, #f - 1, 2 do if f[j] == 'seq' then seq = f[j + 1] end end
  local args = {KEYS[2], e[1]}
  for j = 1, #f - 1, 2 do
    local v = f[j + 1]
    if f[j] == 'data' and seq and new[seq] and new[seq] ~= v then
      v = new[seq]
      changed = changed + 1
    end
    args[#args + 1] = f[j]
    args[#args + 1] = v
  end
  redis.call('XADD', unpack(args))
end
if changed == 0 then
  redis.call('DEL', KEYS[2])
  return 0
end
redis.call('RENAME', KEYS[2], KEYS[1])
return changed
"""


class StreamRewriter:
    """Replaces entries' `data` in a stream whose entries carry `seq` and `data` fields (the
    game and side streams), on `client` (no `decode_responses`)."""

    def __init__(self, client: RedisClient) -> None:
        self._rewrite = client.register_script(_REWRITE_LUA)

    async def rewrite(self, stream_key: str, data_by_seq: Mapping[int, bytes]) -> int:
        """Replace the `data` of each entry `seq` in `data_by_seq` (others copied as they
        are), in one atomic call; the number of entries changed (0: none differed)."""
        if not data_by_seq:
            return 0
        args: list[Any] = []
        for seq, data in data_by_seq.items():
            args += [str(seq), data]
        out: Any = await self._rewrite(keys=[stream_key, stream_key + ":rewrite"], args=args)
        return int(out)
