"""The append Lua script: dedupe, expected-version check and the writes, atomically.

KEYS: 1 game stream, 2 shard feed, 3 event-id HASH, 4 shard game-index ZSET, 5 the game's
write-token digest STRING, 6 the game's player-names HASH (one slot: `{sK}`).
ARGV: 1 game_id, 2 now (ms, the game-index score), 3 the write-token digest to store ("" none),
4 the expected head: the event id of the game's last stored event ("" unchecked), 5 K, the
number of player names to keep, then K (player id, name) pairs, then per event 4 values:
event_id, seq, type, data (the envelope JSON with `recorded_at`).

The K names (a start event's, taken out of it: docs/decisions/0014-names-outside-the-log.md)
are kept once the batch passed its checks, before any event is written: `HSETNX` each, so the
first writer wins and a forgotten player's name (kept as '') never comes back. A refused
batch (token, head, version) and an all-duplicate one (a retried creation, maybe with another
body under the same event ids) keep no name. The names and the events are one atomic step:
no reader sees a stored start event whose names are not kept yet.

When ARGV[4] is not empty the stored last event (entry `<XLEN>-1`) must carry that event id,
else `WRONGHEAD`: a version alone does not identify a log (Redis back from an older snapshot,
then another writer storing other events up to the same version), so a writer that checked
its batch on a cached state names the head that state ends with.

When ARGV[3] is not empty it is also checked first, atomically with the append: a game with a
stored digest takes only appends carrying that digest, and a game with events but no digest
(stored before write tokens) takes none (`WRONGTOKEN`). When the call writes seq 1 (it creates
the game) the digest is set in the same step: a game never exists without its credential, and
a writer authorized as "creator" cannot slip an event into a game created meanwhile.

The whole batch is checked before anything is written, so a conflict writes nothing. A
duplicate event_id (already stored, or earlier in the same batch) is not an error: its
original seq comes back with the dup flag. The game stream's entry id is `<seq>-1`, so XLEN
is the version and `XRANGE <from> <to>` reads by seq.

A call that writes no event (every one a duplicate) sets the first id's seq in the event-id
HASH again, to the value it holds: data unchanged, but the call propagates, so a `WAIT` sent
after it on the same connection (durable acknowledgements, `SCORELEDGER_APPEND_REPLICAS`)
covers the original write too (WAIT counts replicas up to the connection's own last write).

With KEYS 7-8 and 7 more ARGV after the events', the game's projection is stored too
(`live_lua.LIVE_PROJECTION_LUA`), and then the call's feed entries carry `live` = 1.

Returns a flat array: version, then per event: seq, feed id ("" for a duplicate), dup (0/1).
Errors: `WRONGVERSION expected X actual Y`, `WRONGTOKEN`, `WRONGHEAD version V`. Source: docs/decisions/0002-one-atomic-append.md.
"""

from services.adapters.redis.append_core_lua import APPEND_CORE_LUA
from services.adapters.redis.live_lua import LIVE_PROJECTION_ARGS, LIVE_PROJECTION_LUA

APPEND_LUA = (
    """
local live = #KEYS > 6 and """
    + str(LIVE_PROJECTION_ARGS)
    + """ or 0  -- a live projection's ARGV come after the events'
local STREAM, IDS, TOKEN, NAMES = KEYS[1], KEYS[3], KEYS[5], KEYS[6]
local DIGEST, HEAD, FIRST, TAIL = ARGV[3], ARGV[4], 5 + 2 * tonumber(ARGV[5]), live
"""
    + LIVE_PROJECTION_LUA
    + """
local function written(sseq, data, version, next_version)
  if projects(version, next_version) then
    return redis.call('XADD', KEYS[2], '*', 'game', ARGV[1], 'seq', sseq, 'data', data,
      'live', '1')
  end
  return redis.call('XADD', KEYS[2], '*', 'game', ARGV[1], 'seq', sseq, 'data', data)
end
local function checked(version, next_version)
  if next_version == version then return end  -- all duplicates: nothing of the batch kept
  for i = 6, FIRST - 1, 2 do redis.call('HSETNX', NAMES, ARGV[i], ARGV[i + 1]) end
end
local function grown() redis.call('ZADD', KEYS[4], 'NX', ARGV[2], ARGV[1]) end
local function finish(version, next_version) project(version, next_version) end
"""
    + APPEND_CORE_LUA
)
"""The games' append: the shared core (`append_core_lua`) with the player names kept once
the batch is checked, the shard feed written per event, the game index once the game grew,
and the live projection (`live_lua`) stored last."""

TOUCH_LUA = """
local seq = redis.call('HGET', KEYS[1], ARGV[1])
if seq then redis.call('HSET', KEYS[1], ARGV[1], seq) end
return seq and 1 or 0
"""
"""KEYS: 1 a game's event-id HASH; ARGV: 1 an event id. Sets the id's stored seq again (data
unchanged) so the call propagates and a `WAIT` after it on the same connection covers the id's
original write: how a duplicate answered without an append is made as durable as a fresh one.
Returns 1 when the id is stored, else 0 (nothing written)."""
