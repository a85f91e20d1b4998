"""An inbox stream whose last id is the largest a stream id can be, renewed once it is drained.

Any holder of XADD on a stream may name the entry id `18446744073709551615-18446744073709551615`
(Redis ACLs cannot restrict XADD's arguments); after it every `XADD <stream> *` fails with "The
stream has exhausted the last possible ID, unable to add more items", for every writer, until
the stream is deleted. `renew_if_exhausted` does that safely, in one script (one slot):

* not exhausted (or no such stream): nothing (0);
* exhausted, but the group has not settled every entry (one is undelivered or pending, or the
  group is missing): nothing yet (-1); no entry can be added after the last possible id, so
  once the group's last delivered id is that id and nothing is pending, every entry is settled;
* exhausted and drained: `DEL` and `XGROUP CREATE <group> 0 MKSTREAM` in the same script, so no
  entry can arrive in between (1). What is deleted was settled: appended to its game or
  dead-lettered (the inbox's retention would have trimmed it).

Source: Redis XADD ("The stream has exhausted the last possible ID"), XINFO STREAM
(`last-generated-id`), XINFO GROUPS; Lua scripts run atomically.
"""

from __future__ import annotations

from typing import Any

from services.adapters.redis.connect import RedisClient

LAST_POSSIBLE_ID = "18446744073709551615-18446744073709551615"

_RENEW_LUA = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local info = redis.call('XINFO', 'STREAM', KEYS[1])
local last
for i = 1, #info, 2 do
  if info[i] == 'last-generated-id' then last = info[i + 1] end
end
if last ~= ARGV[2] then return 0 end
local drained = false
for _, group in ipairs(redis.call('XINFO', 'GROUPS', KEYS[1])) do
  local f = {}
  for i = 1, #group, 2 do f[group[i]] = group[i + 1] end
  if f['name'] == ARGV[1] then
    drained = tonumber(f['pending']) == 0 and f['last-delivered-id'] == ARGV[2]
  end
end
if not drained then return -1 end
redis.call('DEL', KEYS[1])
redis.call('XGROUP', 'CREATE', KEYS[1], ARGV[1], '0', 'MKSTREAM')
return 1
"""


class ExhaustedStreams:
    """Runs the renewal script (module docstring) for any inbox stream of one client."""

    def __init__(self, client: RedisClient) -> None:
        self._renew = client.register_script(_RENEW_LUA)

    async def renew_if_exhausted(self, stream: str, group: str) -> int:
        """0: `stream` is not exhausted; -1: it is, and waits for `group` to settle its
        entries; 1: it was, and was deleted and re-created empty with `group` at 0.

        Raises: Redis errors (connection, ACL)."""
        reply: Any = await self._renew(keys=[stream], args=[group, LAST_POSSIBLE_ID])
        return int(reply)
